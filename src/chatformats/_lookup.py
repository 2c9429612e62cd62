"""Finding a format: by name or model id (any case), by a template's text, by a model folder.

- :func:`detect`: the format whose reference template is exactly ``template_text`` (its
  UTF-8 sha256 against the registry's pinned sha256s).
- :func:`from_pretrained`: :func:`detect` on a local model folder's template, bound to the
  folder's own special tokens, as transformers' ``AutoTokenizer.from_pretrained`` would load
  them: the template from ``chat_template.jinja``, else ``chat_template.json`` (a processor's
  template, which multimodal models ship and vLLM prefers to the tokenizer's), else
  ``tokenizer_config.json``'s ``chat_template`` (a string, or a list of ``{name, template}``
  whose ``default`` entry is used); the special tokens are the ``*_token`` entries of
  ``tokenizer_config.json`` (strings, or ``AddedToken`` dicts with a ``content``).

Recognition is by fingerprint only, never by sniffing: a template that differs from a ported
one by a single byte is unknown, because its output may differ.

Every failure is an :class:`~chatformats.UnknownFormatError` naming the file: a file that cannot
be read (an I/O error, no permission), that is not UTF-8, not JSON or JSON nested too deeply for
the parser, a ``chat_template`` of the wrong shape (a template name that is not a string), and a
file larger than :data:`MAX_FILE_BYTES` (refused from its size, never read).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping

from ._spec import fingerprint
from .errors import UnknownFormatError

if TYPE_CHECKING:
    import os

    from ._registry import ChatFormat

__all__ = ["detect", "from_pretrained", "fingerprint", "MAX_FILE_BYTES"]

#: The largest file :func:`from_pretrained` reads (64 MiB): a ``tokenizer_config.json`` with
#: every added token of a large vocabulary is a few MB, a template a few dozen KB.  A larger
#: file is refused without being read; at most this much of any file is ever read.
MAX_FILE_BYTES = 64 * 1024 * 1024

#: ``tokenizer_config.json`` keys that are special tokens but not ones transformers passes to
#: the template (the list of extra special tokens) or that are not tokens at all.
_NOT_TEMPLATE_TOKENS = frozenset({"additional_special_tokens", "extra_special_tokens"})


def detect(template_text: str) -> ChatFormat:
    """The format whose reference template is exactly ``template_text``;
    :class:`UnknownFormatError` naming its fingerprint when no port reproduces it."""
    if not isinstance(template_text, str):
        raise TypeError(f"template_text must be a str, not {type(template_text).__name__}")
    from ._registry import table

    _FORMATS = table()

    digest = fingerprint(template_text)
    for fmt in _FORMATS.values():
        if fmt.template_sha256 == digest:
            return fmt
    raise UnknownFormatError(
        f"no chatformats port reproduces this chat template (sha256 {digest}, "
        f"{len(template_text)} characters); {nearest(template_text)}; ported templates: "
        + ", ".join(f"{f.name} {f.template_sha256[:12]}" for f in _FORMATS.values())
    )


#: Copies of a template that differ from it only in how a file was saved, each with what it
#: says of the copy: ``(undo, why)``; ``undo`` maps the copy's text to a candidate original.
_SAVED_AS: tuple[tuple[Any, str], ...] = (
    (lambda t: t.replace("\r\n", "\n"), "its line endings are CRLF (a Windows editor or a "
     "git checkout with autocrlf wrote them); the pinned text has LF"),
    (lambda t: t[:-1] if t.endswith("\n") else None, "it ends with a newline the pinned text "
     "does not have (an editor added it)"),
    (lambda t: t + "\n", "it lacks the pinned text's final newline"),
    (lambda t: t.replace("\r\n", "\n")[:-1] if t.endswith("\n") else None,
     "its line endings are CRLF and it ends with a newline the pinned text does not have"),
    (lambda t: t.replace("\r\n", "\n") + "\n", "its line endings are CRLF and it lacks the "
     "pinned text's final newline"),
    (lambda t: t.replace("\r\n", "\n").replace("\n", "\r\n"), "its line endings are LF; "
     "the pinned text has CRLF (a git checkout or an editor converted them)"),
    (lambda t: t[1:] if t.startswith("\ufeff") else None, "it starts with a byte-order mark"),
    (lambda t: t.strip(), "it differs only in whitespace at its start or end"),
)


def nearest(template_text: str) -> str:
    """What :func:`detect` says of a template no port reproduces: the ported template it is a
    copy of, and how the copy differs (CRLF line endings, a final newline, a byte-order mark:
    how a file was saved), or else the nearest ported template by lines in common, where the
    texts first differ, and the revisions of that template chatformats ports (a model may ship
    another revision).  Used on failure only (it compares with every ported template)."""
    from ._registry import table

    formats = table()
    by_digest = {fmt.template_sha256: fmt for fmt in formats.values()}
    for undo, why in _SAVED_AS:
        candidate = undo(template_text)
        if candidate is not None and candidate != template_text:
            fmt = by_digest.get(fingerprint(candidate))
            if fmt is not None:
                return (f"it is {fmt.name}'s template saved differently: {why}; restore the "
                        f"exact text (reference_templates/{fmt.template_file}) to use {fmt.name}")
    import re
    from collections import Counter

    # Compared piece by piece: a piece is a line, or a line's text from one Jinja tag to the next
    # (some templates are a single line of tags).
    def pieces(text: str) -> list[str]:
        return re.split(r"\r?\n|(?=\{[%{#])", text)

    text = template_text
    counted = Counter(pieces(text))
    total = sum(counted.values())
    best: tuple[float, Any, str] = (0.0, None, "")
    for fmt in formats.values():
        theirs = fmt.template_source()
        other = Counter(pieces(theirs))
        score = 2 * sum((counted & other).values()) / (total + sum(other.values()))
        if score > best[0]:
            best = (score, fmt, theirs)
    score, fmt, theirs = best
    if fmt is None or score < 0.5:
        return "no ported template is near it (fewer than half its pieces in common with any)"
    at = next((i for i, (a, b) in enumerate(zip(text, theirs)) if a != b), min(len(text), len(theirs)))
    line = text.count("\n", 0, at)
    column = at - (text.rfind("\n", 0, at) + 1)
    family = sorted({f.name for f in formats.values()
                     if fmt.name in (f.name, f.revision_of, f.variant_of)
                     or (fmt.revision_of and fmt.revision_of in (f.name, f.revision_of))})
    revisions = (f"; chatformats ports these revisions of it: {', '.join(family)}"
                 if len(family) > 1 else "")
    return (f"the nearest ported template is {fmt.name} ({score:.0%} of its lines and tags in "
            f"common), which differs first at line {line + 1}, column {column + 1} "
            f"({_excerpt(text, at)} here, {_excerpt(theirs, at)} there): probably another "
            f"revision of that template, which no port reproduces{revisions}")


def _excerpt(text: str, at: int) -> str:
    """Up to 40 characters of ``text`` from a little before offset ``at`` (on its line), quoted."""
    if at >= len(text):
        return "the end of the template"
    start = max(at - 10, text.rfind("\n", 0, at) + 1)
    part = text[start:start + 40].split("\n", 1)[0]
    return ("..." if start and text[start - 1] != "\n" else "") + repr(part) + (
        "..." if start + len(part) < len(text) and text[start + len(part)] != "\n" else "")


def _read_bytes(path: str) -> bytes:
    """The bytes of ``path``, at most :data:`MAX_FILE_BYTES` of them."""
    try:
        with open(path, "rb") as handle:
            import os

            size = os.fstat(handle.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise UnknownFormatError(
                    f"{path}: {size} bytes, more than from_pretrained reads "
                    f"({MAX_FILE_BYTES} bytes, chatformats._lookup.MAX_FILE_BYTES)")
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise UnknownFormatError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:  # it grew while it was read
        raise UnknownFormatError(f"{path}: more than {MAX_FILE_BYTES} bytes, more than "
                                 "from_pretrained reads")
    return data


def _read_text(path: str) -> str:
    """The UTF-8 text of ``path``, exactly (no newline translation), as transformers reads it."""
    data = _read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnknownFormatError(f"{path}: not UTF-8 (byte {exc.start + 1})") from None


def _read_json(path: str) -> Any:
    text = _read_text(path)
    try:
        return json.loads(text)
    except RecursionError:
        raise UnknownFormatError(f"{path}: cannot be read as JSON: nested too deeply") from None
    except ValueError as exc:
        raise UnknownFormatError(f"{path}: cannot be read as JSON: {exc}") from None


def _template_from(config_value: Any, where: str) -> str | None:
    """A ``chat_template`` value: a string, or a list of ``{name, template}`` (the ``default``
    one, as transformers picks it when no other name is asked for)."""
    if config_value is None:
        return None
    if isinstance(config_value, str):
        return config_value
    if isinstance(config_value, list):
        named: dict[str, Any] = {}
        for index, item in enumerate(config_value):
            if not isinstance(item, dict):
                continue
            name = item.get("name")
            if not isinstance(name, str):
                raise UnknownFormatError(
                    f"{where}: chat_template[{index}].name is not a string "
                    f"(a {type(name).__name__})")
            named[name] = item.get("template")
        template = named.get("default")
        if isinstance(template, str):
            return template
        raise UnknownFormatError(
            f"{where}: chat_template lists {sorted(map(str, named))} but no 'default' template"
        )
    raise UnknownFormatError(f"{where}: chat_template is neither a string nor a list")


def _token_text(value: Any) -> Any:
    """A special token as transformers passes it to the template: the text of a string or of an
    ``AddedToken`` dict; anything else is kept as given."""
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return value


def _model_id_hint(name: str) -> str:
    """For a path that is no folder but reads as a Hugging Face model id (``owner/name``): that
    ``from_pretrained`` reads local folders only, and what :func:`chatformats.get_format` finds
    for the id."""
    import os

    parts = name.split("/")
    if len(parts) != 2 or not all(parts) or name.startswith(".") or os.sep != "/" and os.sep in name:
        return ""
    from ._registry import get_format

    hint = ("; it reads like a Hugging Face model id: from_pretrained reads a local model folder "
            f"and never downloads, and chatformats.get_format({name!r}) finds a format by model id")
    try:
        fmt = get_format(name)
    except UnknownFormatError:
        return hint + (" (no ported format serves that id: download the model's tokenizer files, "
                       "then pass their folder here)")
    return hint + f" ({fmt.name} serves it)"


def from_pretrained(path: str | os.PathLike[str]) -> ChatFormat:
    """The format of the model in local folder ``path``, bound to its special tokens."""
    import os

    folder = os.fspath(path)
    if not os.path.isdir(folder):
        raise UnknownFormatError(f"{folder}: not a model folder (no such directory)"
                                 + _model_id_hint(folder))
    config: dict[str, Any] = {}
    config_path = os.path.join(folder, "tokenizer_config.json")
    if os.path.isfile(config_path):
        loaded = _read_json(config_path)
        if isinstance(loaded, dict):
            config = loaded
    template: str | None = None
    source = ""
    jinja_path = os.path.join(folder, "chat_template.jinja")
    json_path = os.path.join(folder, "chat_template.json")
    if os.path.isfile(jinja_path):
        template, source = _read_text(jinja_path), jinja_path
    elif os.path.isfile(json_path):
        loaded = _read_json(json_path)
        value = loaded.get("chat_template") if isinstance(loaded, dict) else None
        template, source = _template_from(value, json_path), json_path
    if template is None:
        template, source = _template_from(config.get("chat_template"), config_path), config_path
    if template is None:
        raise UnknownFormatError(
            f"{folder}: no chat template (looked for chat_template.jinja, chat_template.json and "
            "the chat_template of tokenizer_config.json)"
        )
    try:
        fmt = detect(template)
    except UnknownFormatError as exc:
        raise UnknownFormatError(f"{source}: {exc}") from None
    tokens = {key: _token_text(value) for key, value in config.items()
              if key.endswith("_token") and key not in _NOT_TEMPLATE_TOKENS and value is not None}
    return fmt.bind(tokens)
