"""Port of ``reference_templates/llama3_2_vision_2024_12.jinja``.

Meta Llama 3.2 11B Vision Instruct, the template the model's ``chat_template.json`` carries since
December 2024: the September 2024 template (``ports/llama3_2_vision_2024_09.py``) with one rule
changed.  The September text leaves the system block out whenever a message carries an image and
raises "Prompting with images is incompatible with system messages." when a system message comes
with images; this revision records whether the caller supplied a system message
(``user_supplied_system_message``, L23 and L26) and writes the system block when the caller
supplied one or no message carries an image (L40), so a system message renders alongside images
and nothing raises.  Everything else is the September text line for line: this template's
lines 1-22 are its 1-22, 24-25 its 23-24, 27-38 its 25-36, and 41-119 its 44-122 (its 37-43,
the raise and the old condition, became 39-40).

So the port is the September port's ``render_with`` with Meta's wording and that one rule
(``Wording.system_with_images``); its ``Lnn`` comments cite the September lines.

Spans: each assistant turn's generated range starts after its
``<|start_header_id|>assistant<|end_header_id|>\\n\\n`` and ends after its ``<|eot_id|>``: the
turns of role ``assistant`` (L82-95) and every tool-call turn (L96-106, which the template writes
under the assistant header whatever the message's role).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._spans import Recorder
from .llama3_2_vision_2024_09 import WORDING as SEPTEMBER, Wording, render_with

WORDING = Wording(SEPTEMBER.blank, SEPTEMBER.system_tools, SEPTEMBER.user_tools,
                  system_with_images=True)
"""Meta's wording, with the system message allowed alongside images (L23, L26, L39-40)."""


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return render_with(messages, variables, now, WORDING, spans)
