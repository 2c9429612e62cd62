"""Port of ``reference_templates/qwen3_coder_6211.jinja`` (Qwen3-Coder, the 6,211-byte text).

The August text (:mod:`.qwen3_coder_2025_08`) with three changes: a ``# Tools`` heading before the
function list (L32), and a list (any non-string sequence) written with ``tojson`` where the
August text writes Python's repr, both in ``render_extra_keys`` (L4) and in call arguments (L89).
The template is :func:`._qwen3_coder.render` with those three pieces.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import to_str, tojson
from .._spans import Recorder
from . import _qwen3_coder
from ._qwen3_coder import FUNCTIONS_HEAD_6211, is_mapping_or_list


def _tool_body(emit: Any, tool: Any, path: str, spans: Recorder | None = None) -> None:
    _qwen3_coder.tool_body(emit, tool, path, as_json=is_mapping_or_list, spans=spans)  # L4: mappings and lists


def argument_text(value: Any) -> str:
    """L89: ``args_value | tojson | safe if args_value is mapping or (args_value is sequence and
    args_value is not string) else args_value | string``."""
    return tojson(value) if is_mapping_or_list(value) else to_str(value)


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return _qwen3_coder.render(messages, variables, FUNCTIONS_HEAD_6211, _tool_body, argument_text,
                               spans)
