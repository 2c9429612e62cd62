"""Reading back a ``llama-3.2-vision`` assistant turn (``ports/llama3_2_vision.py``).

What the template writes after the generation prompt
``<|start_header_id|>assistant<|end_header_id|>\\n\\n`` (template "Iterate over remaining
messages"):

- a message without ``tool_calls``: its content verbatim, then ``<|eot_id|>``;
- a message with ``tool_calls`` (exactly one; its content is dropped):
  ``{"name": "NAME", "parameters": ARGS}`` (ARGS ``tojson``), then ``<|eot_id|>``.

So a turn that begins with ``{"name": "`` is a tool call whose JSON runs to the end of the turn;
any other turn is content.  ``<|eom_id|>``, which Llama 3.x writes after a tool call in its
ipython environment, also ends the turn.

The recovering reading (``RECOVER``) follows vLLM's Llama3JsonToolParser
(``llama_tool_parser.py`` at 500932b: JSON calls found anywhere, ``;``-separated, ``"arguments"``
or ``"parameters"``) and Llama 3.1's ``<|python_tag|>`` opener, but keeps the text around the
calls as content where vLLM drops it: a call opens at ``<|python_tag|>`` or at ``{"name"``
(compact or spaced) anywhere in the content; the calls are JSON objects separated by
whitespace, ``;`` or ``,``, and after text at the next ``{"name"``; the text between and
after them, and any call that does not decode (with what follows it), is content.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ParseError
from . import _json, _recover
from ._scan import IGNORE, Outcome, State, excerpt

NAME = "llama-3.2-vision"
ANCHOR = "<|start_header_id|>assistant<|end_header_id|>\n\n"
SYNTAX = _json.SYNTAX  # the call's JSON envelope (parsing.syntax)
_ENDS = (("<|eot_id|>", "end", False), ("<|eom_id|>", "end", False))


def _content(raw: str, marker: str) -> str:
    return raw


def json_call(fmt: str) -> Any:
    """The exact value of a JSON call region, its errors prefixed by format ``fmt`` (Llama 3.1
    writes the same body: ``ports/_llama3.json_call``)."""

    def value(raw: str, marker: str) -> Any:
        obj = _json.load(fmt, raw)
        # The template's convention: "parameters" is tojson of the arguments, a string stays one.
        call = _json.function_call(fmt, obj, raw, key="parameters", strings=True)
        if set(obj) != {"name", "parameters"}:
            raise ParseError(f"{fmt}: a tool call has exactly \"name\" and \"parameters\"; "
                             f"got {excerpt(raw)}")
        call["function"] = {"name": obj["name"], "arguments": obj["parameters"]}
        return call

    return value


_call = json_call(NAME)


def _recover_calls(raw: str, marker: str) -> Outcome:
    opener = "<|python_tag|>" if raw.startswith("<|python_tag|>") else ""
    out = _recover.json_calls(raw[len(opener):], True, (opener, ""), openers=CALL_OPENER)
    # vLLM's rule: "arguments" when present, else "parameters" (read as the arguments).
    if opener:  # the notes' offsets are in the region, which begins with the tag
        out.notes = [(kind, at + len(opener), detail) for kind, at, detail in out.notes]
    return out


def _content_before_call(raw: str, marker: str) -> Any:
    """Content before a call the recovering reading found: verbatim; only whitespace is the
    gap before the call, handed to the call (which drops it if it reads, and keeps it as content
    with the call's text if it does not)."""
    if marker in _OPENERS and not raw.strip():
        return Outcome([], [], carry=raw)
    if marker in _OPENERS:
        return Outcome([("content", raw)], [("text-before-call", 0, "text before a tool call kept as content")])
    return raw


# Where the recovering reading opens a call: Llama 3.1's <|python_tag|>, and the opening of a
# JSON call object, compact or spaced (kept: it is the call's first text).
_OPENERS = ('{"name"', '{ "name"', '{\n"name"', '{\n  "name"', "<|python_tag|>")
#: Where the calls go on after text that follows a call (vLLM reads a call at any ``{``; here at
#: the openers of a JSON call object, as in the content).
CALL_OPENER = re.compile("|".join(re.escape(o) for o in _OPENERS if o.startswith("{")))


STATES = {
    s.name: s
    for s in (
        State("start", "content", leads=(('{"name": "', "call", True),), lead_miss="content"),
        State("content", "content", markers=_ENDS, value=_content),
        State("call", "tool_calls", markers=_ENDS, value=_call, eager=True),
        State("end", None, stray=IGNORE),
    )
}
RECOVER = {
    s.name: s
    for s in (
        State("start", "content", leads=(('{"name": "', "call", True),), lead_miss="content"),
        State("content", "content",
              markers=_ENDS + tuple((o, "call", True) for o in _OPENERS),
              value=_content_before_call,
              notes={o: ("call-in-text", "a tool call inside the text read as a call")
                     for o in _OPENERS[:-1]}),
        State("call", "tool_calls", markers=_ENDS,
              value=_recover.exact_or(_call, _recover_calls), eager=True),
        State("end", None, stray=IGNORE),
    )
}
START = "start"

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<|start_header_id|>",)
PREFIXES = ("", "<|start_header_id|>assistant<|end_header_id|>\n\n")
STRING_ARGUMENTS = True
SINGLE_CALL = True
RECOVER_OPENERS = _OPENERS
CANONICAL = {"reasoning": "dropped", "with_calls": "empty"}
