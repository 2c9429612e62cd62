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
"""

from __future__ import annotations

from typing import Any

from ..errors import ParseError
from . import _json
from ._scan import IGNORE, State

NAME = "llama-3.2-vision"
ANCHOR = "<|start_header_id|>assistant<|end_header_id|>\n\n"
_ENDS = (("<|eot_id|>", "end", False), ("<|eom_id|>", "end", False))


def _content(raw: str, marker: str) -> str:
    return raw


def _call(raw: str, marker: str) -> Any:
    obj = _json.load(NAME, raw)
    call = _json.function_call(NAME, obj, raw)
    if "parameters" not in obj:
        raise ParseError(f"{NAME}: a tool call must have \"parameters\"; got {raw[:200]!r}")
    call["function"] = {"name": obj["name"], "arguments": obj["parameters"]}
    return call


STATES = {
    s.name: s
    for s in (
        State("start", "content", leads=(('{"name": "', "call", True),), lead_miss="content"),
        State("content", "content", markers=_ENDS, value=_content),
        State("call", "tool_calls", markers=_ENDS, value=_call, eager=True),
        State("end", None, stray=IGNORE),
    )
}
START = "start"
