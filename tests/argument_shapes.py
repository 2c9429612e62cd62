"""The tool-call argument shape each format's template takes.

Most templates take a call's ``arguments`` as a mapping (or either shape); the DeepSeek templates
concatenate it to a string (``'...' + tool['function']['arguments'] + '...'``), so a mapping
there is a TypeError by the template's own design (``reference_templates/deepseek_*.jinja``);
the R1 templates also concatenate the call's ``type`` (OpenAI's ``"function"``), so a call
without one is undefined there.
Cross-format tests that share one conversation give it the shape the format takes.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import chatformats

# Every template that concatenates a tool call's arguments to a string (its spec says so).
STRING_ARGUMENTS = frozenset(name for name in chatformats.formats()
                             if chatformats.get_format(name).call_arguments == "string")


def shaped(name: str, messages: Any) -> Any:
    """``messages`` as given, or (for a format in STRING_ARGUMENTS) a deep copy whose mapping
    arguments are their JSON text and whose calls have OpenAI's ``type``."""
    if name not in STRING_ARGUMENTS:
        return messages
    messages = copy.deepcopy(messages)
    for message in messages:
        for call in (message.get("tool_calls") or []) if isinstance(message, dict) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                call.setdefault("type", "function")
            if isinstance(function, dict) and isinstance(function.get("arguments"), dict):
                function["arguments"] = json.dumps(function["arguments"], ensure_ascii=False)
    return messages
