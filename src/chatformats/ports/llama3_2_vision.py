"""Port of ``reference_templates/llama3_2_vision.jinja``: the source-document variant of Meta's
September 2024 Llama 3.2 Vision template (format ``llama-3.2-vision-variant``).

The variant is Meta's template (``ports/llama3_2_vision_2024_09.py``, which holds the logic) with
two differences that change the prompt:

- the tool instructions are reworded (this template's lines 57-60 for Meta's 51-53, and 79-83
  for Meta's 72-76);
- its ``{# ... #}`` comments have no whitespace control, so the blank line before each of them
  (lines 23, 31, 41, 46, 69, 90 and 127) stays text: ``trim_blocks`` removes only the newline
  after the comment, and each blank line emits one ``"\\n"`` at its place.  Meta's template
  strips the same blank lines with ``{#-``.

Every other difference renders alike: ``message.role in ['ipython', 'tool']`` (line 93) for
Meta's ``message.role == 'ipython' or message.role == 'tool'``, ``system_message != ""`` (43)
for ``not system_message == ""``, ``tools is not none`` (71) for ``not tools is none``,
``message.tool_calls | length != 1`` (108) for ``not message.tool_calls|length == 1``, one
string literal (113) for two, and ``{{- ... }}`` (79, 112) for Meta's ``{{- ... -}}`` (72,
104), whose trailing ``-`` strips only what the next ``{{-`` strips anyway.  Line map, this template -> Meta's: defaults 1-22 -> 1-17, system message 25-30 ->
20-25, image scan 33-40 -> 28-35, check 43-45 -> 38-40, system block 48-68 -> 43-61, tools in
the first user message 71-89 -> 64-82, loop 92-126 -> 84-119, generation prompt 129-131 ->
120-122.

A caller variable named like a global the template calls (``strftime_now``,
``raise_exception``, ``namespace``) shadows it, as in jinja2: the render core applies that rule
for every format (``chatformats._core.call_port``); this port calls ``namespace`` where the
template does (L33).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._spans import Recorder
from .llama3_2_vision_2024_09 import Wording, render_with

WORDING = Wording(
    blank="\n",  # L23, L31, L41, L46, L69, L90, L127
    system_tools=(
        "You have access to the following functions. "  # L57
        "To call a function, respond with JSON for a function call."  # L58
        'Use the format {"name": function name, "parameters": dictionary of arguments}.'  # L59
        "Do not use variables.\n\n"  # L60
    ),
    user_tools=(
        "<|start_header_id|>user<|end_header_id|>\n\n"  # L79
        "Given these functions, respond with a JSON for a function call "  # L80
        "that best addresses the prompt.\n\n"  # L81
        'Format: {"name": function name, "parameters": dictionary of arguments}.'  # L82
        "Do not use variables.\n\n"  # L83
    ),
)
"""The variant's wording."""


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_with(messages, variables, now, WORDING, spans)
