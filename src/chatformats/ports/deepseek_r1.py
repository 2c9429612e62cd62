"""Port of ``reference_templates/deepseek_r1.jinja`` (DeepSeek-R1, the February 2025 text).

The R1 template with the generation prompt ``<｜Assistant｜><think>\\n`` (the reasoning
prefilled); :func:`._deepseek_r1.render_r1` is the template, shared with the January revision
(``deepseek_r1_2025_01.jinja``), which differs only there.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._spans import Recorder
from ._deepseek_r1 import THINKING_GENERATION_PROMPT, render_r1


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_r1(messages, variables, THINKING_GENERATION_PROMPT, spans)
