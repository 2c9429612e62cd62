"""Port of ``reference_templates/qwen2_5_instruct_2024_09.jinja`` (Qwen2.5 Instruct, September 2024).

The text the Qwen2.5 Instruct models shipped with in September 2024, before Qwen's fix of line
13: the example call's braces are doubled, which a Jinja string literal keeps as written, so the
prompt shows the model ``{{"name": ...}}``.  The template is :func:`._qwen2_5.render` with line
13's text ``TOOLS_TAIL_2024_09``; the two Qwen2.5 texts differ in nothing else.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._spans import Recorder
from ._qwen2_5 import TOOLS_TAIL_2024_09, render as render_qwen2_5


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_qwen2_5(messages, variables, TOOLS_TAIL_2024_09, spans)  # L13: TOOLS_TAIL_2024_09
