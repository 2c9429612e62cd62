"""Port of ``reference_templates/qwen2_5_instruct.jinja`` (Qwen2.5 Instruct).

The text the Qwen2.5 Instruct models carry.  The template is :func:`._qwen2_5.render` with
line 13's text ``TOOLS_TAIL``; the two Qwen2.5 texts differ in nothing else.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._spans import Recorder
from ._qwen2_5 import TOOLS_TAIL, render as render_qwen2_5


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_qwen2_5(messages, variables, TOOLS_TAIL, spans)  # L13: TOOLS_TAIL
