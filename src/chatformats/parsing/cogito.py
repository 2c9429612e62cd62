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
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from . import _json
from ._scan import IGNORE, State

NAME = "cogito"
ANCHOR = "<|start_header_id|>assistant<|end_header_id|>\n\n"
CALLS = '[{"name": "'
_END = ("<|eot_id|>", "end", False)


def _trim(raw: str, marker: str) -> str:
    return raw.strip()


def _calls(raw: str, marker: str) -> Any:
    items = _json.load(NAME, raw)
    if not isinstance(items, list):
        raise ParseError(f"{NAME}: the tool-call list must be a JSON array; got {raw[:200]!r}")
    calls = []
    for obj in items:
        call = _json.function_call(NAME, obj, raw)
        if "id" in obj:
            call["function"] = {k: v for k, v in obj.items() if k != "id"}
            call["id"] = obj["id"]
        calls.append(call)
    return calls


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
START = "start"
