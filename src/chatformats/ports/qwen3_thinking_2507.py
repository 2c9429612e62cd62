"""Port of ``reference_templates/qwen3_thinking_2507.jinja`` (Qwen3 Thinking-2507).

The template Qwen ships with the Qwen3 Thinking-2507 models: the system block (lines 1-16), the
reversed scan for the last real user query (17-24), the message loop with the ``</think>``
split (25-83) and the generation prompt ``<|im_start|>assistant\\n<think>\\n`` (84-86), which
opens the model's reasoning.  The template is :func:`._qwen3_2507.render_reasoning`, shared with
``qwen3-tool-agent`` (this template plus a tool-use preamble, with the Instruct generation
prompt); its ``Lnn`` comments cite this template.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING
from .._spans import Recorder
from ._qwen3_2507 import THINKING_GENERATION_PROMPT, render_reasoning


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_reasoning(
        messages,
        variables.get("tools", MISSING),
        variables.get("add_generation_prompt", MISSING),
        preamble="",  # L1-16: nothing between the system message and "# Tools"
        generation_prompt=THINKING_GENERATION_PROMPT,  # L85
        variables=variables,
        spans=spans,
    )
