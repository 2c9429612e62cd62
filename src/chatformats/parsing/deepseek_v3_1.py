"""Reading back a ``deepseek-v3.1`` assistant turn (``ports/deepseek_v3_1.py``).

What the template writes (L3): after a user turn, the header ``<｜Assistant｜></think>`` (the
generation prompt is ``<｜Assistant｜></think>``, or ``<｜Assistant｜><think>`` with
``thinking``: the model then writes its reasoning and ``</think>``); after a tool result or
another assistant turn, no header at all.  Then the content as given; with tool calls, ``<｜tool▁calls▁begin｜>`` + per call
``<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>`` + ``<｜tool▁calls▁end｜>``
(ARGS concatenated: the template takes only a string, so the arguments read back as that
string); ``<｜end▁of▁sentence｜>``.  The turn is read after the prefix's last
``<｜Assistant｜>``, ``<｜tool▁output▁end｜>`` or ``<｜end▁of▁sentence｜>``, whichever comes later.

The recovering reading (``RECOVER``) follows vLLM's ``DeepSeekV31ToolParser``
(``vllm/tool_parsers/deepseekv31_tool_parser.py`` @ ``e2fc92e``: each call
``<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>``, name and arguments as
written); where vLLM drops text it is content here (text between or after the calls, a call
without ``<｜tool▁sep｜>``, its tokens included); whitespace before ``<think>`` or ``</think>``
where the turn begins is dropped; the tool-call section inside unclosed reasoning ends it; a
section or call left open ends at the end of the turn.
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from . import _json, _recover
from ._scan import IGNORE, Outcome, State, excerpt

NAME = "deepseek-v3.1"
ANCHOR = ("<｜Assistant｜>", "<｜tool▁output▁end｜>", "<｜end▁of▁sentence｜>")
_EOS = "<｜end▁of▁sentence｜>"
_THINK, _THINK_END = "<think>", "</think>"
_CALLS = "<｜tool▁calls▁begin｜>"
_CALLS_END = "<｜tool▁calls▁end｜>"
_CALL = "<｜tool▁call▁begin｜>"
_SEP = "<｜tool▁sep｜>"
_CALL_END = "<｜tool▁call▁end｜>"
# A call's tags inside the section and the arguments' JSON (parsing.syntax).
SYNTAX = (_CALL, _SEP, _CALL_END) + _json.SYNTAX


def _verbatim(raw: str, marker: str) -> str:
    return raw


def _call(raw: str, marker: str) -> Any:
    """``NAME<｜tool▁sep｜>ARGS``."""
    at = raw.find(_SEP)
    if at < 0 or marker != _CALL_END:
        raise ParseError(f"{NAME}: malformed tool call, expected NAME{_SEP}ARGS{_CALL_END}; "
                         f"got {excerpt(raw)}")
    return {"type": "function", "function": {"name": raw[:at], "arguments": raw[at + len(_SEP):]}}


def _recover_call(raw: str, marker: str) -> Any:
    try:
        call = _call(raw, _CALL_END)
    except ParseError:
        end = marker if marker == _CALL_END else ""
        return Outcome([("content", _CALL + raw + end)],
                       [("bad-call", 0, f"a tool call without {_SEP!r} kept as content")])
    if marker != _CALL_END:
        return Outcome([("tool_calls", call)],
                       [("unclosed-call", len(raw), f"a tool call without {_CALL_END!r}")])
    return call


_LEADS = ((_THINK, "think", False), (_THINK_END, "content", False))

STATES = {
    s.name: s
    for s in (
        State("start", "content", leads=_LEADS, lead_miss="content"),
        State("think", "reasoning_content", markers=((_THINK_END, "content", False),),
              value=_verbatim, eager=True),
        State("content", "content", markers=((_CALLS, "calls", False), (_EOS, "end", False)),
              value=_verbatim),
        State("calls", None, markers=((_CALL, "call", False), (_CALLS_END, "after", False)),
              what="between tool calls"),
        State("call", "tool_calls", markers=((_CALL_END, "calls", False),), value=_call,
              eager=True),
        State("after", None, markers=((_EOS, "end", False),), what="after the tool calls"),
        State("end", None, stray=IGNORE),
    )
}

_UNCLOSED = {_EOS: ("unclosed-call", f"a tool-call section without {_CALLS_END!r}")}

RECOVER = {
    s.name: s
    for s in (
        State("start", "content", leads=_LEADS, lead_miss="content", lead_space=True),
        State("think", "reasoning_content",
              markers=((_THINK_END, "content", False), (_CALLS, "calls", False),
                       (_EOS, "end", False)),
              leads=((_THINK, "think", False),), lead_miss="think", lead_space=True,
              value=_verbatim, eager=True,
              notes={_CALLS: ("reasoning-ended-by-call",
                              f"{_CALLS!r} inside unclosed reasoning ends it")}),
        State("content", "content", markers=((_CALLS, "calls", False), (_EOS, "end", False)),
              value=_verbatim),
        State("calls", "content", markers=((_CALL, "call", False), (_CALLS_END, "after", False),
                                           (_EOS, "end", False)),
              value=_recover.stray("between tool calls"), notes=dict(_UNCLOSED)),
        State("call", "tool_calls", markers=((_CALL_END, "calls", False), (_CALL, "call", False),
                                             (_CALLS_END, "after", False), (_EOS, "end", False)),
              value=_recover_call, eager=True),
        State("after", "content", markers=((_CALLS, "calls", False), (_EOS, "end", False)),
              value=_recover.stray("after the tool calls")),
        State("end", None, stray=IGNORE),
    )
}
START = "start"

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<think>", "<｜tool▁sep｜>", "<｜Assistant｜>", "<｜tool▁output▁end｜>", "<｜User｜>", "<｜tool▁output▁begin｜>", "<｜begin▁of▁sentence｜>")
PREFIXES = ("", "<｜Assistant｜></think>", "<｜Assistant｜><think>", "<｜tool▁output▁end｜>")
STRING_ARGUMENTS = True
SINGLE_CALL = False
RECOVER_OPENERS = ()
CANONICAL = {"reasoning": "dropped"}
