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
        f"{len(template_text)} characters); ported templates: "
        + ", ".join(f"{f.name} {f.template_sha256[:12]}" for f in _FORMATS.values())
    )


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


def from_pretrained(path: str | os.PathLike[str]) -> ChatFormat:
    """The format of the model in local folder ``path``, bound to its special tokens."""
    import os

    folder = os.fspath(path)
    if not os.path.isdir(folder):
        raise UnknownFormatError(f"{folder}: not a model folder (no such directory)")
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
