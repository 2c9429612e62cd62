"""Port of ``reference_templates/qwen3_instruct_2507.jinja`` (Qwen3 Instruct-2507).

The template Qwen ships with the Qwen3 Instruct-2507 models (non-thinking only): the system
block (lines 1-16), the message loop (17-58) and the generation prompt
``<|im_start|>assistant\\n`` (59-61).  Unlike the Thinking-2507 template there is no pre-pass:
an assistant turn is its content as given (a ``<think>`` block in it stays, ``reasoning_content``
is ignored).  The system block, the tool calls and the tool responses are byte-identical to the
Thinking-2507 template's and come from :mod:`._qwen3_2507`.  ``Lnn`` comments cite this template.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, length
from .._spans import Recorder
from ._qwen3_2507 import HEADER, INSTRUCT_GENERATION_PROMPT, system_block, tool_calls_block, tool_response


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template; with ``spans``, an assistant turn's generated range is everything after its
    ``<|im_start|>assistant\\n`` through its ``<|im_end|>``."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    system_block(emit, messages, variables.get("tools", MISSING), "", spans)  # L1-16
    last_index = length(messages) - 1

    for index, message in enumerate(messages):  # L17
        if type(message) is dict:  # attr(message, ...), inlined for the common case
            role = message.get("role", MISSING)
            content = message.get("content", MISSING)
        else:  # any field of a message that is not a mapping is undefined
            role = content = MISSING
        if type(content) is not str:  # L18-22
            content = ""
        if role == "user" or (role == "system" and index != 0):  # L23-24
            if spans is not None:
                spans.message(index)
            extend(("<|im_start|>", role, "\n", content, "<|im_end|>\n"))
        elif role == "assistant":  # L25 (so message is a dict)
            if spans is not None:  # generated: what follows the header
                spans.message(index, opens=HEADER)
            extend(("<|im_start|>", role, "\n", content))  # L26
            tool_calls_block(emit, message, content, index, spans)  # L27-45
            if spans is not None:
                spans.close(after="<|im_end|>")
            emit("<|im_end|>\n")  # L46
        elif role == "tool":  # L47
            tool_response(emit, messages, index, last_index, content, spans)  # L48-56

    if variables.get("add_generation_prompt", MISSING):  # L59-61
        emit(INSTRUCT_GENERATION_PROMPT)
    return "".join(out)
