"""Nothing silent: input a render dropped, and values it printed as Python syntax.

A template renders what it renders: parity means a message without a ``role`` gives ``''`` for a
Qwen template and a list content prints as ``[{'type': 'text', ...}]`` in a Llama one.  The
audit (:mod:`chatformats._audit`) reports both beside the control strings, and ``strict=True``
refuses them (:func:`check`); the text never changes.

Two kinds of finding, read off the render's spans (which input value each character came from):

- ``"dropped"``: input that contributed no character to the prompt.

  * A **message** none of whose values is the source of any character, and whose removal
    leaves the prompt unchanged (so the template wrote nothing on its behalf either: a
    DeepSeek ``<｜User｜>`` for an empty user message is the message's own text).
  * A **field the format documents**, holding something: a message's ``content``,
    ``tool_calls``, ``tool_call_id``, ``reasoning_content``, ``reasoning`` or ``thinking``, each
    where the template's text names it (:func:`documented`); the variables ``tools`` and
    ``documents`` where the template reads them.  Dropped when no character has it as its
    source and changing every string inside it (``type`` and ``role`` values excepted: they
    choose branches) leaves the prompt unchanged.  This includes what a template drops by its
    own rule, such as the reasoning of turns before the last user query in the Qwen3 templates:
    it is in the input and not in the prompt.

  Fields a template never names (a message's ``name`` for most formats, ``tool_call_id`` for
  the Qwen ones) are not findings.

- ``"repr"``: a container, boolean or ``None`` the template printed through ``str()`` (Python
  syntax in the prompt, where JSON was meant): a span whose text is ``str()`` of its value and
  not its JSON.  A number prints the same either way and is never a finding.

Every confirmation renders again with the same variables and clock (``rerender``), only for the
candidates the spans leave (a message or field with no span at all): the silent messages
together, then the silent fields together, one by one only where the joint render does not
confirm them all.  A conversation whose input all shows in its prompt costs no second render,
and a history of dropped reasoning one.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Sequence

from ._finding import Finding, resolve
from ._spans import Spans
from .errors import SilentInput

__all__ = ["findings", "check"]

#: The variables whose values are input (the rest are flags and tokens).
_INPUT_VARIABLES = ("tools", "documents")
#: Values that choose a template's branch: kept when a field's strings are changed.
_KEPT = frozenset(("type", "role"))
#: What :func:`_changed` appends to each string: not whitespace (``trim`` keeps it), no markup.
_MARK = "\ue000"

#: How ``str()`` of a container begins, and ``str()`` of a boolean or ``None``.
_REPR_FIRST = frozenset("[{(")
_REPR_WORDS = frozenset(("True", "False", "None"))

Rerender = Callable[[Any, Mapping[str, Any]], str]


def _under(source: str, prefix: str) -> bool:
    """``source`` is the value at ``prefix`` or inside it."""
    return source.startswith(prefix) and (len(source) == len(prefix) or source[len(prefix)] in ".[")


def _empty(value: Any) -> bool:
    """``value`` holds nothing to lose: ``None``, a string of whitespace only (a template's
    ``trim`` removes it), or containers holding only such values."""
    if value is None:
        return True
    if type(value) is str:
        return not value.strip()
    if type(value) is dict:
        return all(_empty(v) for v in value.values())
    if type(value) in (list, tuple):
        return all(_empty(v) for v in value)
    return False


#: The message fields a template may document (it does when its text reads one).
_CANDIDATES = ("content", "tool_calls", "reasoning_content", "reasoning", "thinking",
               "tool_call_id")
_DOCUMENTED: dict[str, tuple[str, ...]] = {}


def documented(fmt: Any) -> tuple[str, ...]:
    """The message fields format ``fmt``'s template reads (``.content``, ``['tool_calls']``,
    ``'reasoning_content' in message``: its text names the field as an attribute or a quoted
    key)."""
    found = _DOCUMENTED.get(fmt.template_sha256)
    if found is None:
        import re

        source = fmt.template_source()
        found = tuple(field for field in _CANDIDATES
                      if re.search(r"\.%s\b|['\"]%s['\"]" % (field, field), source))
        _DOCUMENTED[fmt.template_sha256] = found
    return found


def _changed(value: Any, key: Any = None) -> Any:
    """``value`` with every string inside it changed (its keys, and the values of ``type`` and
    ``role``, kept)."""
    if type(value) is str:
        return value if key in _KEPT else value + _MARK
    if type(value) is dict:
        return {k: _changed(v, k) for k, v in value.items()}
    if type(value) in (list, tuple):
        return [_changed(v) for v in value]
    return value


def _same(rerender: Rerender, messages: Any, variables: Mapping[str, Any], text: str) -> bool:
    """Whether rendering ``messages`` with ``variables`` gives ``text`` (a failure does not: the
    changed input mattered to the template)."""
    from .errors import ChatFormatError

    try:
        return rerender(messages, variables) == text
    except (ChatFormatError, TypeError):
        return False


def _is_repr(piece: str, value: Any) -> bool:
    """``piece`` is ``str(value)`` of a container, boolean or ``None``, and not its JSON."""
    if value is not None and type(value) not in (dict, list, tuple, bool):
        return False
    shown = str(value)
    if piece != shown and piece != shown.strip():
        return False
    try:
        as_json = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return True
    return shown != as_json and shown != json.dumps(value)


def findings(text: str, spans: Sequence[Any], messages: Any, variables: Mapping[str, Any],
             reads: Any, fields: tuple[str, ...], rerender: Rerender) -> list[Finding]:
    """The ``dropped`` and ``repr`` findings of a render of ``messages`` with ``variables`` that
    gave ``text`` and ``spans``; ``reads``: the variables the template reads; ``fields``: the
    message fields it documents (:func:`documented`); ``rerender``: the same render with other
    messages or variables (see the module docstring)."""
    if type(spans) is Spans:  # a Rendering's: read its columns, making no records
        bounds = spans._bounds
        sources = [(bounds[i], bounds[i + 1], source)
                   for i, source in enumerate(spans._paths()) if source is not None]
    else:
        sources = [(s.start, s.end, s.source) for s in spans if s.source is not None]
    roots = {**variables, "messages": messages}
    out: list[Finding] = []
    by_message: dict[int, list[tuple[int, int, str]]] = {}
    for start, end, source in sources:
        if source.startswith("messages["):
            close = source.find("]")
            digits = source[9:close]
            if digits.isdigit():
                index = int(digits)
                if index in by_message:
                    by_message[index].append((start, end, source))
                else:
                    by_message[index] = [(start, end, source)]
        # repr: what the spans say was printed of a non-string value
        if text[start:end].lstrip()[:1] not in _REPR_FIRST \
                and text[start:end].strip() not in _REPR_WORDS:  # what such a str() looks like
            continue
        value = resolve(source, roots)
        if type(value) is not str and _is_repr(text[start:end], value):
            out.append(Finding(text[start:end], start, source, 0, "rendered", (source,),
                               "repr", f"{type(value).__name__} printed through str() "
                               "(Python syntax, not JSON)"))

    if type(messages) not in (list, tuple):
        return out

    # dropped messages: no span, and the prompt is the same without them
    silent = [i for i in range(len(messages)) if i not in by_message
              and not _empty(_held(messages[i], fields))]
    dropped: list[int] = []
    if silent:
        def without(indices: Any) -> list[Any]:
            gone = set(indices)
            return [m for i, m in enumerate(messages) if i not in gone]

        if _same(rerender, without(silent), variables, text):
            dropped = silent
        else:
            dropped = [i for i in silent if _same(rerender, without((i,)), variables, text)]
    firsts = _firsts(by_message)
    for i in dropped:
        out.append(Finding("", _offset_after(i, firsts, len(text)), f"messages[{i}]", 0,
                           "value", (), "dropped", "the message contributed no character"))

    # dropped fields: the candidates changed all at once (one render when they are all
    # dropped, as a history of dropped reasoning is), else each on its own
    gone = set(dropped)
    candidates: list[tuple[int, str]] = []
    for i, message in enumerate(messages):
        if i in gone or type(message) is not dict:
            continue
        own = by_message.get(i, ())
        for field in fields:
            if _empty(message.get(field)):
                continue
            path = f"messages[{i}].{field}"
            if not any(_under(source, path) for _, _, source in own):
                candidates.append((i, field))
    if candidates:
        def changing(pairs: Any) -> list[Any]:
            changed = list(messages)
            for i, field in pairs:
                changed[i] = {**changed[i], field: _changed(messages[i][field])}
            return changed

        if len(candidates) > 1 and _same(rerender, changing(candidates), variables, text):
            confirmed = candidates
        else:
            confirmed = [c for c in candidates if _same(rerender, changing((c,)), variables, text)]
        for i, field in confirmed:
            own = by_message.get(i, ())
            at = max((end for _, end, _ in own), default=_offset_after(i, firsts, len(text)))
            out.append(Finding("", at, f"messages[{i}].{field}", 0, "value", (), "dropped",
                               "the field contributed no character"))
    for name in _INPUT_VARIABLES:
        value = variables.get(name)
        if name not in reads or _empty(value) or any(_under(s, name) for _, _, s in sources):
            continue
        if _same(rerender, messages, {**variables, name: _changed(value)}, text):
            out.append(Finding("", 0, name, 0, "value", (), "dropped",
                               "the variable contributed no character"))
    return out


def _held(message: Any, fields: tuple[str, ...]) -> Any:
    """What a message holds beside its role: its documented fields (a message that is not a
    mapping holds itself)."""
    if type(message) is not dict:
        return message
    return [message.get(field) for field in fields]


def _firsts(by_message: Mapping[int, Any]) -> tuple[list[int], list[int]]:
    """The indices of the messages with text, in order, and for each the least first offset of
    it and every later one (where a dropped message before it would be)."""
    indices = sorted(by_message)
    least: list[int] = [0] * len(indices)
    low = -1
    for k in range(len(indices) - 1, -1, -1):
        first = by_message[indices[k]][0][0]
        low = first if low < 0 or first < low else low
        least[k] = low
    return indices, least


def _offset_after(index: int, firsts: tuple[list[int], list[int]], size: int) -> int:
    """Where a dropped message would be: the start of the first later message's text."""
    from bisect import bisect_right

    indices, least = firsts
    k = bisect_right(indices, index)
    return least[k] if k < len(indices) else size


def check(found: Sequence[Finding], name: str, where: str = "") -> None:
    """``strict=True``: refuse the first ``dropped`` or ``repr`` finding with
    :class:`SilentInput` naming its path (``where``: ``"conversation 3: "`` in a batch)."""
    for finding in sorted(found, key=lambda f: (f.kind != "dropped", f.offset)):
        if finding.kind == "dropped":
            raise SilentInput(f"{where}{finding.path}: {finding.detail} (format {name}); "
                              "strict=True refuses input the template drops", finding)
        if finding.kind == "repr":
            raise SilentInput(f"{where}{finding.path}: {finding.detail} (format {name}): "
                              f"{_excerpt(finding.token)}; strict=True refuses it", finding)


def _excerpt(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")
