"""Reading back a ``solar-open`` assistant turn (``ports/solar_open.py``).

What the template writes for an assistant message (template "Assistant Thinking" and
"Assistant Messages"); the generation prompt ends with ``<|begin|>assistant``:

- its reasoning, when non-empty and after the last user message (``lastthink``), as a block
  of its own: ``<|begin|>assistant<|think|>`` + reasoning + ``<|end|>``;
- with ``tool_calls`` (content dropped): ``<|begin|>assistant<|tool_calls|>`` + per call
  ``<|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>ARGS<|tool_call:end|>`` +
  ``<|calls|>`` (ARGS ``tojson`` of a mapping, else the value verbatim);
- else ``<|begin|>assistant<|content|>`` + content + ``<|end|>``.

Reasoning and content are verbatim; the arguments are JSON; ids are kept.

The recovering reading (``RECOVER``), after llama.cpp's Solar Open parser (``common/chat.cpp``,
PR #18511: reasoning and answer as two blocks, tool calls by their tokens): text outside the
blocks is content instead of an error; a call whose arguments do not decode to an object is
content (its tokens included), the other calls are kept; a block or call cut off by the end of
the completion gives what it holds.
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from . import _json, _recover
from ._scan import IGNORE, Outcome, State, excerpt

NAME = "solar-open"
ANCHOR = "<|begin|>assistant"
_NAME = "<|tool_call:name|>"
_ARGS = "<|tool_call:args|>"
# A call's tags inside its block and the arguments' JSON (parsing.syntax).
SYNTAX = (_NAME, _ARGS) + _json.SYNTAX


def _verbatim(raw: str, marker: str) -> str:
    return raw


def _call(raw: str, marker: str) -> Any:
    """``ID<|tool_call:name|>NAME<|tool_call:args|>ARGS``."""
    name_at = raw.find(_NAME)
    args_at = raw.find(_ARGS, name_at + len(_NAME)) if name_at >= 0 else -1
    if args_at < 0:
        raise ParseError(f"{NAME}: malformed tool call, expected "
                         f"ID{_NAME}NAME{_ARGS}ARGS; got {excerpt(raw)}")
    args = raw[args_at + len(_ARGS):]
    arguments = _json.load(NAME, args)
    if not isinstance(arguments, dict):
        raise ParseError(f"{NAME}: a tool call's arguments must be a JSON object; got {excerpt(args)}")
    return {"id": raw[:name_at], "type": "function",
            "function": {"name": raw[name_at + len(_NAME):args_at], "arguments": arguments}}


def _recover_call(raw: str, marker: str) -> Outcome:
    end = marker if marker == "<|tool_call:end|>" else ""
    return Outcome([("content", "<|tool_call:begin|>" + raw + end)],
                   [("bad-call", 0, "a tool call whose arguments are no JSON object kept as content")])


_OPENS = (("<|content|>", "content", False), ("<|tool_calls|>", "calls", False))

STATES = {
    s.name: s
    for s in (
        State("start", None, markers=(("<|think|>", "think", False),) + _OPENS,
              what="where a block of the assistant turn begins"),
        State("think", "reasoning_content", markers=(("<|end|>", "between", False),),
              value=_verbatim, eager=True),
        State("between", None, markers=(("<|begin|>assistant", "start2", False),),
              what="after the reasoning block"),
        State("start2", None, markers=_OPENS, what="where the answer block begins"),
        State("content", "content", markers=(("<|end|>", "end", False),), value=_verbatim,
              eager=True),
        State("calls", None, markers=(("<|tool_call:begin|>", "call", False),
                                      ("<|calls|>", "end", False)), what="between tool calls"),
        State("call", "tool_calls", markers=(("<|tool_call:end|>", "calls", False),),
              value=_call, eager=True),
        State("end", None, stray=IGNORE),
    )
}


def _stray(what: str) -> Any:
    return _recover.stray(what)


RECOVER = {
    s.name: s
    for s in (
        State("start", "content", markers=(("<|think|>", "think", False),) + _OPENS,
              value=_stray("before the first block")),
        State("think", "reasoning_content", markers=(("<|end|>", "between", False),),
              value=_verbatim, eager=True),
        State("between", "content", markers=(("<|begin|>assistant", "start2", False),) + _OPENS,
              value=_stray("after the reasoning block"),
              notes={o: ("missing-header", f"{o!r} without <|begin|>assistant before it")
                     for o, _, _ in _OPENS}),
        State("start2", "content", markers=_OPENS, value=_stray("where the answer block begins")),
        State("content", "content", markers=(("<|end|>", "end", False),), value=_verbatim,
              eager=True),
        State("calls", "content", markers=(("<|tool_call:begin|>", "call", False),
                                           ("<|calls|>", "end", False)),
              value=_stray("between tool calls")),
        State("call", "tool_calls", markers=(("<|tool_call:end|>", "calls", False),),
              value=_recover.exact_or(_call, _recover_call), eager=True),
        State("end", None, stray=IGNORE),
    )
}
START = "start"

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<|begin|>", "<|tool_call:name|>", "<|tool_call:args|>")
PREFIXES = ("", "<|begin|>assistant<|think|><|end|><|begin|>assistant")
STRING_ARGUMENTS = False
SINGLE_CALL = False
RECOVER_OPENERS = ()
CANONICAL = {"reasoning": "as-given", "with_calls": "empty", "ids": "kept",
             "reasoning_if": ("think_render_option", "lastthink", ("all", "lastthink"))}
