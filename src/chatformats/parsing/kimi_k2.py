"""Reading back a ``kimi-k2`` assistant turn (``ports/kimi_k2.py``).

What the template writes after ``<|im_assistant|>assistant<|im_middle|>`` (L17-39): without
tool calls, the content as given; with them, the content (when not empty), then one section
``<|tool_calls_section_begin|>`` + per call ``<|tool_call_begin|>functions.NAME:K`` +
``<|tool_call_argument_begin|>`` + ``ARGS|tojson`` + ``<|tool_call_end|>`` +
``<|tool_calls_section_end|>``; then ``<|im_end|>``.  ``K`` is the call's position in the turn
(``loop.index0``): the template rebuilds the id from it and never reads the call's own ``id``,
so the id read back is ``functions.NAME:K``.  ``ARGS`` goes through ``tojson`` whether a
mapping or a string: a string argument reads back as that string.  There is no reasoning.

The section is one tool-call region whose value is its list of calls (the exact reading checks
each id against the call's position, which only the whole section knows).

The recovering reading (``RECOVER``) follows vLLM's ``KimiK2ToolParser``
(``vllm/tool_parsers/kimi_k2_tool_parser.py`` @ ``c853e15``): the section opens at
``<|tool_calls_section_begin|>`` or its singular variant ``<|tool_call_section_begin|>``;
each call is ``<|tool_call_begin|>`` ID ``<|tool_call_argument_begin|>`` ARGS
``<|tool_call_end|>`` with whitespace around the ID and ARGS ignored, the ID any text ending in
``:DIGITS`` (kept as written), the name what follows ``functions.`` up to the last ``:``.  Where
vLLM drops text, it is content here: text around the calls, after the section, a call whose ID
or ARGS cannot be read (its markup included); a section or call left open ends at the end of
the turn.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ParseError
from . import _json, _recover
from ._scan import IGNORE, Outcome, State, excerpt

NAME = "kimi-k2"
ANCHOR = "<|im_assistant|>assistant<|im_middle|>"
_END = "<|im_end|>"
_SECTION = "<|tool_calls_section_begin|>"
_SECTION_END = "<|tool_calls_section_end|>"
_SECTION_1 = "<|tool_call_section_begin|>"  # vLLM's singular variants
_SECTION_END_1 = "<|tool_call_section_end|>"
_CALL = "<|tool_call_begin|>"
_ARGS = "<|tool_call_argument_begin|>"
_CALL_END = "<|tool_call_end|>"
_PREFIX = "functions."
# A call's tags, its id's "functions." and ":", the arguments' JSON (parsing.syntax).
SYNTAX = (_CALL, _ARGS, _CALL_END, _PREFIX, ":") + _json.SYNTAX
_ID = re.compile(r"[^<]+:\d+\Z", re.DOTALL)


def _verbatim(raw: str, marker: str) -> str:
    return raw


def _call(raw: str, pos: int, k: int) -> tuple[dict[str, Any], int]:
    """The call at ``raw[pos:]``, which must be the turn's ``k``-th: ``(call, end)``."""

    def fail(what: str, at: int) -> ParseError:
        return ParseError(f"{NAME}: malformed tool call, expected {what} at offset {at} of "
                          f"{excerpt(raw)}")

    head = _CALL + _PREFIX
    if not raw.startswith(head, pos):
        raise fail(repr(head), pos)
    args_at = raw.find(_ARGS, pos + len(head))
    if args_at < 0:
        raise fail(repr(_ARGS), pos + len(head))
    suffix = f":{k}"
    ident = raw[pos + len(_CALL):args_at]
    if not ident.endswith(suffix):
        raise fail(f"the id's index {suffix!r} (the call's position)", args_at)
    end = raw.find(_CALL_END, args_at + len(_ARGS))
    if end < 0:
        raise fail(repr(_CALL_END), len(raw))
    text = raw[args_at + len(_ARGS):end]
    arguments = _json.load(NAME, text)
    if not isinstance(arguments, (dict, str)):
        raise ParseError(f"{NAME}: a tool call's arguments must be a JSON object or string; "
                         f"got {excerpt(text)}")
    name = ident[len(_PREFIX):-len(suffix)]
    return ({"id": ident, "type": "function", "function": {"name": name, "arguments": arguments}},
            end + len(_CALL_END))


def _section(raw: str, marker: str) -> list[dict[str, Any]]:
    """The calls of one section, numbered from 0; nothing else."""
    if marker != _SECTION_END:
        raise ParseError(f"{NAME}: a tool-call section without {_SECTION_END!r}")
    calls: list[dict[str, Any]] = []
    pos = 0
    while pos < len(raw) or not calls:
        call, pos = _call(raw, pos, len(calls))
        calls.append(call)
    return calls


def _recover_one(piece: str, at: int, notes: list[tuple[str, int, str]],
                 parts: list[tuple[str, Any]], calls: list[dict[str, Any]]) -> None:
    """``piece``: the text after one ``<|tool_call_begin|>`` up to the next (or the end)."""
    args_at = piece.find(_ARGS)
    end = piece.find(_CALL_END, args_at + len(_ARGS)) if args_at >= 0 else -1
    ident = piece[:args_at].strip() if args_at >= 0 else ""
    if args_at < 0 or not _ID.match(ident):
        notes.append(("bad-call", at, "a tool call without ID:INDEX<|tool_call_argument_begin|> "
                                      "kept as content"))
        parts.append(("content", _CALL + piece))
        return
    text = piece[args_at + len(_ARGS):end if end >= 0 else len(piece)]
    arguments = _json.loads(text.strip())
    if not isinstance(arguments, (dict, str)):
        notes.append(("bad-json", at, "a tool call whose arguments are no JSON object or string "
                                      "kept as content"))
        parts.append(("content", _CALL + piece))
        return
    if end < 0:
        notes.append(("unclosed-call", at, f"a tool call without {_CALL_END!r}"))
    name = ident[:ident.rindex(":")]
    name = name[len(_PREFIX):] if name.startswith(_PREFIX) else name
    calls.append({"id": ident, "type": "function",
                  "function": {"name": name, "arguments": arguments}})
    rest = piece[end + len(_CALL_END):] if end >= 0 else ""
    if rest.strip():
        notes.append(("stray-text", at + end + len(_CALL_END),
                      "text between tool calls kept as content"))
        parts.append(("content", rest))


def _recover_section(raw: str, marker: str) -> Outcome:
    notes: list[tuple[str, int, str]] = []
    parts: list[tuple[str, Any]] = []
    calls: list[dict[str, Any]] = []
    if marker not in (_SECTION_END, _SECTION_END_1):
        notes.append(("unclosed-call", len(raw), f"a tool-call section without {_SECTION_END!r}"))
    first = raw.find(_CALL)
    head = raw if first < 0 else raw[:first]
    if head.strip():
        notes.append(("stray-text", 0, "text in the tool-call section kept as content"))
        parts.append(("content", head))
    pos = first
    while pos >= 0:
        start = pos + len(_CALL)
        nxt = raw.find(_CALL, start)
        _recover_one(raw[start:nxt if nxt >= 0 else len(raw)], pos, notes, parts, calls)
        pos = nxt
    if calls:
        parts.insert(0, ("tool_calls", calls))
    return Outcome(parts, notes)


def _section_value(raw: str, marker: str) -> Any:
    try:
        return _section(raw, marker)
    except ParseError:
        return _recover_section(raw, marker)


STATES = {
    s.name: s
    for s in (
        State("start", "content", markers=((_SECTION, "section", False), (_END, "end", False)),
              value=_verbatim),
        State("section", "tool_calls", markers=((_SECTION_END, "after", False),),
              value=_section, eager=True),
        State("after", None, markers=((_END, "end", False),), what="after the tool calls"),
        State("end", None, stray=IGNORE),
    )
}

_OPENS = ((_SECTION, "section", False), (_SECTION_1, "section", False), (_END, "end", False))

RECOVER = {
    s.name: s
    for s in (
        State("start", "content", markers=_OPENS, value=_verbatim),
        State("section", "tool_calls",
              markers=((_SECTION_END, "after", False), (_SECTION_END_1, "after", False),
                       (_END, "end", False)),
              value=_section_value, eager=True),
        State("after", "content", markers=_OPENS,
              value=_recover.stray("after the tool calls")),
        State("end", None, stray=IGNORE),
    )
}
START = "start"

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<|tool_call_section_begin|>", "<|tool_call_section_end|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<|im_assistant|>")
PREFIXES = ("", "<|im_assistant|>assistant<|im_middle|>")
STRING_ARGUMENTS = True
SINGLE_CALL = False
RECOVER_OPENERS = ()
CANONICAL = {"reasoning": "dropped", "ids": "positional"}
