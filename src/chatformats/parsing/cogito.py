"""Reading back a ``cogito`` assistant turn (``ports/cogito.py``).

What the template writes after the generation prompt
``<|start_header_id|>assistant<|end_header_id|>\\n\\n`` (plus ``<think>\\n`` under
``enable_thinking``, which the prefix gives the parser):

- a message without ``tool_calls``: content|trim, then ``<|eot_id|>`` (Case 1);
- with ``tool_calls``: content|trim, then ``[`` + each call's ``function|tojson`` with
  ``, "id": "ID"`` spliced before its closing brace when the call has an id, joined by
  ``, `` + ``]<|eot_id|>`` (Case 2).

The template never writes reasoning: a think block is what the model writes after the
``<think>\\n`` prefill, up to ``</think>``.  The tool-call list begins at the first
``[{"name": "`` and is JSON up to the end of the turn.

The recovering reading (``RECOVER``): a newline before ``<think>``, or a second ``<think>`` after
the prefill opened one, is dropped (vLLM's Qwen3/DeepSeek-R1 reasoning parsers strip the
opener wherever it is); the list also opens at the compact ``[{"name":"``; a list that does
not decode keeps the calls that do, item by item, and the rest is content; a call without
``"arguments"`` takes ``"parameters"``, else ``{}`` (SGLang's ``parse_base_json``).
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from . import _json, _recover
from ._scan import IGNORE, Outcome, State, excerpt

NAME = "cogito"
ANCHOR = "<|start_header_id|>assistant<|end_header_id|>\n\n"
CALLS = '[{"name": "'
SYNTAX = _json.SYNTAX + ("[", "]", '"id"')  # the calls' JSON list (parsing.syntax)
_END = ("<|eot_id|>", "end", False)


def _trim(raw: str, marker: str) -> str:
    return raw.strip()


def _split_id(call: dict[str, Any]) -> dict[str, Any]:
    obj = call["function"]
    if "id" in obj:
        call["function"] = {k: v for k, v in obj.items() if k != "id"}
        call["id"] = obj["id"]
    return call


def _calls(raw: str, marker: str) -> Any:
    items = _json.load(NAME, raw)
    if not isinstance(items, list):
        raise ParseError(f"{NAME}: the tool-call list must be a JSON array; got {excerpt(raw)}")
    # The template writes function|tojson: the arguments as given, a string stays a string.
    return [_split_id(_json.function_call(NAME, obj, raw, strings=True)) for obj in items]


def _recover_calls(raw: str, marker: str) -> Outcome:
    """``[`` then call objects separated by ``,`` read one by one, then ``]``: the good calls
    before the first item that is no call; the rest is content."""
    i = 1  # past "["
    calls: list[Any] = []
    notes: list[tuple[str, int, str]] = []
    n = len(raw)
    while True:
        while i < n and raw[i] in " \t\r\n,":
            i += 1
        if i >= n or raw[i] == "]":
            break
        decoded = _json.decode(raw, i)
        if decoded is None:
            notes.append(("bad-json", i, "a tool call that is not JSON kept as content"))
            break
        call, why = _json.recover_call(decoded[0], True)
        if call is None:
            notes.append(("not-a-call", i, f"JSON that is no tool call ({why[0]}) kept as content"))
            break
        notes += [("recovered-call", i, w) for w in why]
        calls.append(_split_id(call))
        i = decoded[1]
    if not calls:
        return Outcome([("content", raw)], notes)
    rest = raw[i:]
    if rest.startswith("]"):
        rest = rest[1:]
    else:
        notes.append(("unclosed-call", i, "a tool-call list without its ']'"))
    parts: list[tuple[str, Any]] = [("tool_calls", calls)]
    if rest.strip():
        notes.append(("stray-text", i, "text after the tool-call list kept as content"))
        parts.append(("content", rest))
    return Outcome(parts, notes)


STATES = {
    s.name: s
    for s in (
        State("start", "content", leads=(("<think>", "think", False),), lead_miss="content"),
        State("think", "reasoning_content", markers=(("</think>", "content", False),),
              value=_trim, eager=True),
        State("content", "content", markers=((CALLS, "calls", True), _END), value=_trim),
        State("calls", "tool_calls", markers=(_END,), value=_calls, eager=True),
        State("end", None, stray=IGNORE),
    )
}
_COMPACT = '[{"name":"'
RECOVER = {
    s.name: s
    for s in (
        State("start", "content", leads=(("<think>", "think", False),), lead_miss="content",
              lead_space=True),
        State("think", "reasoning_content", markers=(("</think>", "content", False),),
              leads=(("<think>", "think", False),), lead_miss="think", lead_space=True,
              value=_trim, eager=True),
        State("content", "content", markers=((CALLS, "calls", True), (_COMPACT, "calls", True), _END),
              value=_trim, notes={_COMPACT: ("compact-json", "a compact tool-call list")}),
        State("calls", "tool_calls", markers=(_END,), value=_recover.exact_or(_calls, _recover_calls),
              eager=True),
        State("end", None, stray=IGNORE),
    )
}
START = "start"

# The grammar's facts beside its tables (``parsing/grammars.py`` says what each means).
RESERVED = ("<think>", "<|start_header_id|>")
PREFIXES = ("", "<|start_header_id|>assistant<|end_header_id|>\n\n<think>\n")
STRING_ARGUMENTS = True
SINGLE_CALL = False
RECOVER_OPENERS = (_COMPACT,)
CANONICAL = {"reasoning": "dropped", "content": "strip", "ids": "kept"}
