"""Port of ``reference_templates/qwen3_coder_2025_08.jinja`` (Qwen3-Coder, the August 2025 text).

The template is :func:`._qwen3_coder.render` with the August text's tools
(:func:`._qwen3_coder.tool_body`: a missing description or parameters tolerated, every other key
of a parameter, of ``parameters`` and of the tool written as ``<key>value</key>`` by
``render_extra_keys``, a mapping value as JSON, anything else with ``|string``) and its call
arguments (L89: a mapping as JSON, anything else with ``|string``, Python's repr).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import to_str, tojson
from .._spans import Recorder
from . import _qwen3_coder
from ._qwen3_coder import FUNCTIONS_HEAD, is_mapping_value


def _tool_body(emit: Any, tool: Any, path: str, spans: Recorder | None = None) -> None:
    _qwen3_coder.tool_body(emit, tool, path, as_json=is_mapping_value, spans=spans)  # L4: a mapping as JSON


def argument_text(value: Any) -> str:
    """L89: ``args_value | tojson | safe if args_value is mapping else args_value | string``."""
    return tojson(value) if type(value) is dict else to_str(value)


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return _qwen3_coder.render(messages, variables, FUNCTIONS_HEAD, _tool_body, argument_text, spans)
