"""Reading back a ``qwen3-tool-agent`` assistant turn (``ports/qwen3_tool_agent.py``).

What the template writes after the generation prompt ``<|im_start|>assistant\\n`` (template
lines "if loop.index0 > ns.last_query_index" to "<|im_end|>"):

- after the last user query: ``<think>\\n`` + reasoning.strip("\\n") + ``\\n</think>\\n\\n`` +
  content.lstrip("\\n"); otherwise content as given, and no think block;
- each tool call ``<tool_call>\\n{"name": "NAME", "arguments": ARGS}\\n</tool_call>``, preceded
  by ``\\n`` unless it is the first and the content is empty (ARGS: ``tojson`` of a mapping, a
  string verbatim);
- ``<|im_end|>\\n``.

So the parser reads a think block only where the turn begins, strips newlines around the
reasoning, the newlines the template puts after ``</think>``, and the one newline it puts
between the content and the first tool call.
"""

from __future__ import annotations

from typing import Any

from . import _json
from ._scan import IGNORE, State

NAME = "qwen3-tool-agent"
ANCHOR = "<|im_start|>assistant\n"
END = "<|im_end|>"


def _reasoning(raw: str, marker: str) -> str:
    return raw.strip("\n")


def _content(raw: str, marker: str) -> str:
    # The "\n" the template writes before the first tool call when there is content.
    return raw[:-1] if marker == "<tool_call>" and raw.endswith("\n") else raw


def _content_after_think(raw: str, marker: str) -> str:
    return _content(raw.lstrip("\n"), marker)


def _call(raw: str, marker: str) -> Any:
    return _json.function_call(NAME, _json.load(NAME, raw), raw)


_AFTER_CONTENT = (("<tool_call>", "call", False), (END, "end", False))

STATES = {
    s.name: s
    for s in (
        State("start", "content", leads=(("<think>", "think", False),), lead_miss="content"),
        State("think", "reasoning_content", markers=(("</think>", "after_think", False),),
              value=_reasoning, eager=True),
        State("after_think", "content", markers=_AFTER_CONTENT, value=_content_after_think),
        State("content", "content", markers=_AFTER_CONTENT, value=_content),
        State("call", "tool_calls", markers=(("</tool_call>", "between", False),), value=_call,
              eager=True),
        State("between", None, markers=_AFTER_CONTENT, what="between tool calls"),
        State("end", None, stray=IGNORE),
    )
}
START = "start"
