"""Port of ``reference_templates/qwen3_instruct_2507_2025_07.jinja`` (the earlier Qwen3
Instruct-2507 text).

The text Qwen first shipped with the Instruct-2507 models, before switching to
``qwen3_instruct_2507.jinja``: ``qwen3_thinking_2507.jinja`` byte for byte but for line 85, the
generation prompt, cut to the Instruct ``<|im_start|>assistant\\n``.  So the reasoning rules of
the Thinking-2507 template hold for a non-thinking model (the last message, after the last real
user query, gets an empty ``<think>\\n\\n</think>\\n\\n`` block), and the whole template is
:func:`._qwen3_2507.render_reasoning` with that prompt (as ``qwen3_tool_agent`` binds it); its
``Lnn`` comments cite this template's lines too.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING
from .._spans import Recorder
from ._qwen3_2507 import INSTRUCT_GENERATION_PROMPT, render_reasoning


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_reasoning(
        messages,
        variables.get("tools", MISSING),
        variables.get("add_generation_prompt", MISSING),  # L84
        preamble="",  # L1-16: nothing between the system message and "# Tools"
        generation_prompt=INSTRUCT_GENERATION_PROMPT,  # L85
        variables=variables,
        spans=spans,
    )
