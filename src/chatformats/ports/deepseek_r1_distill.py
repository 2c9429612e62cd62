"""Port of ``reference_templates/deepseek_r1_distill.jinja`` (DeepSeek-R1-Distill,
the February 2025 text).

The distill template with the generation prompt ``<｜Assistant｜><think>\\n`` (the reasoning
prefilled);
:func:`._deepseek_r1_distill.render_distill` is the template, shared with
``deepseek_r1_distill_2025_01.jinja``, which differs only there.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._spans import Recorder
from ._deepseek_r1 import THINKING_GENERATION_PROMPT
from ._deepseek_r1_distill import render_distill


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_distill(messages, variables, THINKING_GENERATION_PROMPT, spans)
