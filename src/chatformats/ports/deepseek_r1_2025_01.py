"""Port of ``reference_templates/deepseek_r1_2025_01.jinja`` (DeepSeek-R1 as released in
January 2025).

The R1 template with the generation prompt ``<｜Assistant｜>`` alone (the model may skip
``<think>``); :func:`._deepseek_r1.render_r1` is the template, shared with the February text
(``deepseek_r1.jinja``), which differs only there.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._spans import Recorder
from ._deepseek_r1 import PLAIN_GENERATION_PROMPT, render_r1


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_r1(messages, variables, PLAIN_GENERATION_PROMPT, spans)
