"""The recovering reading's shared pieces: what becomes of text the exact reading refuses.

Each helper returns a state ``value`` for :mod:`._scan` that first tries the exact reading's
value and, only where that refuses the text, recovers: what can be read as a tool call is a
call (:func:`._json.recover_call`), what cannot is content, nothing is lost, and every recovery
is a diagnostic (an :class:`._scan.Outcome` note).  So on exact template output the two
readings give the same values, events included.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..errors import ParseError
from . import _json
from ._scan import Outcome

Value = Callable[[str, str], Any]

_SEPARATORS = " \t\r\n;,"


def stray(what: str, drop: tuple[tuple[str, str], ...] = ()) -> Value:
    """Text of a structural state (between tool calls, after a block): whitespace is the
    format's own and is dropped; other text is content (a ``stray-text`` diagnostic), less the
    template's separator ``sep`` before a following marker ``m`` for each ``(m, sep)`` of
    ``drop``."""

    def value(raw: str, marker: str) -> Any:
        if not raw.strip():
            return Outcome([], [])
        text = raw
        for m, sep in drop:
            if marker == m and text.endswith(sep):
                text = text[:-len(sep)]
        return Outcome([("content", text)], [("stray-text", 0, f"text {what} kept as content")])

    return value


def json_calls(raw: str, strings: bool, wrap: tuple[str, str], many: bool = True,
               openers: re.Pattern[str] | None = None) -> Outcome:
    """The tool calls at the start of ``raw``: JSON objects separated by whitespace, ``;`` or
    ``,`` (Llama 3's ``;``-separated calls, several objects in one block), each read by
    :func:`._json.recover_call`; the text after the last one is content.  With ``openers``,
    text after a call is content up to the next match of ``openers``, where the calls go on
    (vLLM's Llama3JsonToolParser decodes a call at every ``{`` of the output, the text between
    the calls dropped: kept here).  No call at all: all of ``wrap[0] + raw + wrap[1]`` is
    content (the opener and closer the block had).  One failed decode ends the search (so the
    time stays linear)."""
    calls: list[Any] = []
    notes: list[tuple[str, int, str]] = []
    between: list[tuple[str, Any]] = []
    i, n = 0, len(raw)
    while True:
        j = i
        while j < n and raw[j] in _SEPARATORS:
            j += 1
        if j < n and raw[j] != "{" and calls and many and openers is not None:
            found = openers.search(raw, j)
            if found is not None:
                notes.append(("stray-text", i, "text between tool calls kept as content"))
                between.append(("content", raw[i:found.start()]))
                i = j = found.start()
        if j >= n or raw[j] != "{" or (calls and not many):
            break
        decoded = _json.decode(raw, j)
        if decoded is None:
            notes.append(("bad-json", j, "a tool call that is not JSON kept as content"))
            break
        obj, end = decoded
        call, why = _json.recover_call(obj, strings)
        if call is None:
            notes.append(("not-a-call", j, f"JSON that is no tool call ({why[0]}) kept as content"))
            break
        for w in why:
            notes.append(("recovered-call", j, w))
        if calls or raw[i:j].strip():
            notes.append(("separated-calls", j, "several tool calls in one block"))
        calls.append(call)
        i = end
    if not calls:
        return Outcome([("content", wrap[0] + raw + wrap[1])], notes)
    rest = raw[i:]
    parts: list[tuple[str, Any]] = [("tool_calls", calls), *between]
    if rest.strip():
        notes.append(("stray-text", i, "text after a tool call kept as content"))
        parts.append(("content", rest))
    return Outcome(parts, notes)


def exact_or(exact: Value, recover: Callable[[str, str], Outcome]) -> Value:
    """The exact value where it accepts the text, else the recovery."""

    def value(raw: str, marker: str) -> Any:
        try:
            return exact(raw, marker)
        except ParseError:
            return recover(raw, marker)

    return value


_PARAMETER = re.compile(r"<parameter=(.*?)(</parameter>|(?=<parameter=)|(?=</function>)|$)",
                        re.DOTALL)


def xml_call(raw: str, wrap: tuple[str, str]) -> Outcome:
    """A Qwen3-Coder / MiniCPM XML call, read as vLLM's Qwen3CoderToolParser reads one
    (``qwen3coder_tool_parser.py`` at 1936cf3: ``<function=NAME>``, then each
    ``<parameter=KEY>`` up to ``</parameter>``, or the next ``<parameter=``, or
    ``</function>``, or the end; one newline stripped at each end of a value).  Without
    ``<function=...>`` (or its ``>``) the text is content."""
    notes: list[tuple[str, int, str]] = []
    start = raw.find("<function=")
    # The call ends at the first </function> after its opener, and its name at the first ">"
    # before that: vLLM cuts the call out first and then reads the name inside it, so the ">" of
    # the closer never ends a name ("<function=<</function>" is no call).
    end = raw.find("</function>", start + len("<function=")) if start >= 0 else -1
    name_end = raw.find(">", start, end if end >= 0 else len(raw)) if start >= 0 else -1
    if name_end < 0 or raw[:start].strip():
        return Outcome([("content", wrap[0] + raw + wrap[1])],
                       [("not-a-call", 0, "a tool call without <function=NAME> kept as content")])
    name = raw[start + len("<function="):name_end]
    body = raw[name_end + 1:end if end >= 0 else len(raw)]
    if end < 0:
        notes.append(("unclosed", len(raw), "a call without </function>"))
    arguments: dict[str, str] = {}
    # Text of the body outside its parameters (and a parameter without its ">"): content.
    outside: list[str] = []
    last = 0
    for m in _PARAMETER.finditer(body):
        text = m.group(1)
        key_end = text.find(">")
        if key_end < 0:
            continue
        outside.append(body[last:m.start()])
        last = m.end()
        value = text[key_end + 1:]
        value = value[1:] if value.startswith("\n") else value
        value = value[:-1] if value.endswith("\n") else value
        if not m.group(2):
            notes.append(("missing-close", name_end + 1 + m.start(),
                          f"parameter {text[:key_end][:40]!r} without </parameter>"))
        _put(arguments, text[:key_end], value, notes, name_end + 1 + m.start())
    outside.append(body[last:])
    parts: list[tuple[str, Any]] = [
        ("tool_calls", [{"type": "function", "function": {"name": name, "arguments": arguments}}])]
    stray = [t for t in outside if t.strip()]
    if stray:
        notes.append(("stray-text", name_end + 1, "text inside a call outside its parameters "
                                                  "kept as content"))
    rest = raw[end + len("</function>"):] if end >= 0 else ""
    if rest.strip():
        notes.append(("stray-text", end, "text after </function> kept as content"))
        stray.append(rest)
    # The content is the stretches joined, less the newlines at its two ends; each stretch is a
    # part of its own, so that the spans say where each came from (joined, "<" before a closer
    # and "/function>" after it would read as a "</function>" that is nowhere in the text).
    if stray:
        stray[0] = stray[0].lstrip("\n")
        stray[-1] = stray[-1].rstrip("\n")
    parts.extend(("content", t) for t in stray if t)
    return Outcome(parts, notes)


def _put(arguments: dict[str, str], key: str, value: str, notes: list[tuple[str, int, str]],
         at: int) -> None:
    """``arguments[key] = value``; a key given twice keeps its last value, as vLLM's parsers
    do, and the value it replaces is quoted by a ``duplicate-argument`` diagnostic (nothing is
    lost)."""
    if key in arguments:
        notes.append(("duplicate-argument", at, f"argument {key!r} given twice: the earlier "
                                                f"value {arguments[key]!r} replaced"))
    arguments[key] = value


_ARG_KEY, _ARG_KEY_END, _ARG_VALUE, _ARG_VALUE_END = ("<arg_key>", "</arg_key>", "<arg_value>",
                                                      "</arg_value>")


def glm_call(raw: str, wrap: tuple[str, str]) -> Outcome:
    """A GLM-4.5 call, read as vLLM's Glm4MoeModelToolParser reads one
    (``glm4_moe_tool_parser.py`` at 5a314e9: the name is the first line, each argument
    ``<arg_key>KEY</arg_key>``, whitespace, ``<arg_value>VALUE</arg_value>``, key and value
    stripped); here the name also ends at ``<arg_key>``, a value without ``</arg_value>`` runs
    to the end, and text outside the pairs is content.  No name: the text is content."""
    notes: list[tuple[str, int, str]] = []
    cut = [i for i in (raw.find("\n"), raw.find(_ARG_KEY)) if i >= 0]
    name_end = min(cut) if cut else len(raw)
    name = raw[:name_end].strip()
    if not name:
        return Outcome([("content", wrap[0] + raw + wrap[1])],
                       [("not-a-call", 0, "a tool call without a name kept as content")])
    arguments: dict[str, str] = {}
    stray_text: list[str] = []
    pos = name_end
    n = len(raw)
    while pos < n:
        k = raw.find(_ARG_KEY, pos)
        if k < 0:
            break
        stray_text.append(raw[pos:k])
        key_end = raw.find(_ARG_KEY_END, k + len(_ARG_KEY))
        if key_end < 0:
            break
        v = key_end + len(_ARG_KEY_END)
        while v < n and raw[v] in " \t\r\n":
            v += 1
        if not raw.startswith(_ARG_VALUE, v):
            stray_text.append(raw[k:v])
            pos = v
            continue
        value_end = raw.find(_ARG_VALUE_END, v + len(_ARG_VALUE))
        key = raw[k + len(_ARG_KEY):key_end].strip()
        if value_end < 0:
            notes.append(("missing-close", v, f"argument {key[:40]!r} without </arg_value>"))
            _put(arguments, key, raw[v + len(_ARG_VALUE):].strip(), notes, k)
            pos = n
            break
        _put(arguments, key, raw[v + len(_ARG_VALUE):value_end].strip(), notes, k)
        pos = value_end + len(_ARG_VALUE_END)
    stray_text.append(raw[pos:])
    parts: list[tuple[str, Any]] = [
        ("tool_calls", [{"type": "function", "function": {"name": name, "arguments": arguments}}])]
    rest = "".join(t for t in stray_text if t.strip())
    if rest:
        notes.append(("stray-text", name_end, "text inside a tool call outside its arguments "
                                              "kept as content"))
        parts.append(("content", rest.strip("\n")))
    return Outcome(parts, notes)
