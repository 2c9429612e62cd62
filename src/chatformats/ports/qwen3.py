"""Port of ``reference_templates/qwen3.jinja`` (Qwen3 hybrid thinking, the later revision).

The template the Qwen3 hybrid models (Qwen/Qwen3-0.6B, 8B, 30B-A3B, ...) carry since Qwen's
update of the April 2025 text (``qwen3_2025_04.jinja``): byte for byte
``qwen3_thinking_2507.jinja`` but for its generation prompt (lines 84-89), so the system block,
the reversed scan, the message loop and the tool turns are
:func:`._qwen3_2507.render_reasoning`, whose ``Lnn`` comments cite lines 1-83 of this template
too.  The generation prompt is ``<|im_start|>assistant\\n`` (L85), followed by an empty think
block ``<think>\\n\\n</think>\\n\\n`` only when ``enable_thinking`` is defined and is ``false``
(L86-88: jinja2's ``is false`` is identity with ``False``, so ``0``, ``None`` or ``"false"``
write nothing).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING
from .._spans import Recorder
from ._qwen3_2507 import INSTRUCT_GENERATION_PROMPT, render_reasoning

#: L87: the empty think block that turns the reasoning off.
NO_THINKING = "<think>\n\n</think>\n\n"


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    enable_thinking = variables.get("enable_thinking", MISSING)
    prompt = INSTRUCT_GENERATION_PROMPT  # L85
    if enable_thinking is not MISSING and enable_thinking is False:  # L86-88
        prompt += NO_THINKING
    return render_reasoning(
        messages,
        variables.get("tools", MISSING),
        variables.get("add_generation_prompt", MISSING),  # L84
        preamble="",  # L1-16: nothing between the system message and "# Tools"
        generation_prompt=prompt,
        variables=variables,
        spans=spans,
    )
