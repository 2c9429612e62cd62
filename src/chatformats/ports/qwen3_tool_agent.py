"""Port of ``reference_templates/qwen3_tool_agent.jinja``.

A variant of the Qwen3 2507-series template: ``qwen3_thinking_2507.jinja``'s logic (the
reversed scan for the last real user query and the ``</think>`` split), unindented, with

- a fixed tool-use preamble injected into the system turn's tools branch (line 6, between the
  system message and ``# Tools``), and
- the generation prompt ``<|im_start|>assistant\\n`` (lines 85-87) of the Instruct-2507 models,
  not the Thinking-2507 ``<|im_start|>assistant\\n<think>\\n``.

Everything else is :func:`._qwen3_2507.render_reasoning`, shared with ``qwen3-thinking-2507``.
This template's line N is that template's line N-1 from line 7 on (line 6, the preamble, is
this template's own).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING
from .._spans import Recorder
from ._qwen3_2507 import INSTRUCT_GENERATION_PROMPT, render_reasoning

# L6: the fixed preamble, verbatim.
PREAMBLE = (
    "In this environment you have access to a set of tools you can use to answer the user's question. "
    "You can use one tool per message, and will receive the result of that tool use in the user's response. "
    "You use tools step-by-step to accomplish a given task, with each tool use informed by the result of "
    "the previous tool use.\n\nTool Use Rules\nHere are the rules you should always follow to solve your "
    "task:\n1. Always use the right arguments for the tools. Never use variable names as the action "
    "arguments, use the value instead.\n2. Call a tool only when needed: do not call the search agent if "
    "you do not need information, try to solve the task yourself.\n3. If no tool call is needed, just "
    "answer the question directly.\n4. Never re-do a tool call that you previously did with the exact "
    "same parameters.\n5. For tool use, MARK SURE use XML tag format as shown in the examples above. Do "
    "not use any other format.\nNow Begin! If you solve the task correctly, you will receive a reward of "
    "$1,000,000.\n\n"
)


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_reasoning(
        messages,
        variables.get("tools", MISSING),
        variables.get("add_generation_prompt", MISSING),
        preamble=PREAMBLE,  # L6
        generation_prompt=INSTRUCT_GENERATION_PROMPT,  # L86
        variables=variables,
        spans=spans,
    )
