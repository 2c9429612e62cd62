"""Port of ``reference_templates/deepseek_r1_0528_qwen3.jinja`` (DeepSeek-R1-0528-Qwen3-8B).

V3.1's state (``ns.is_last_user``) on R1's tool-call text, with ``<｜Assistant｜>`` moved into the
user turn.  Laid out like the template: the default, ``ns`` and the system-message scan (every
system content joined with a blank line, L1-3), ``bos_token`` and the system prompt (L3), the
message loop (L3-14: ``content`` read first for every message, then the user block, the
``</think>`` split of every assistant content, the tool-call block, the answer block, the tool
block, in the template's order), the closing ``<｜tool▁outputs▁end｜>`` and the generation prompt
(L14).  The newlines inside its string literals are real newline characters.

What the template does that surprises (each reproduced here):

- ``<｜Assistant｜>`` is written right after each user message, so the generation prompt writes
  ``<｜Assistant｜>`` only when the last message is neither a user nor a tool message;
- every assistant content is tested with ``'</think>' in content`` first: ``content: None``
  fails (TypeError), so the template's own ``content is none`` branch (L3-6) is never taken;
- a tool-call turn resets ``ns.is_first`` and ``ns.is_output_first`` (unlike R1's) and closes
  the tool outputs before it with ``<｜tool▁outputs▁end｜>``;
- the reasoning is dropped everywhere, also right after a tool result (the split comes first);
- ``tools`` is never read; arguments are concatenated (a mapping fails).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, item, iterate, namespace, need_str_at, to_str
from .._spans import Recorder
from ._deepseek import JOIN, split_think, system_prompt
from ._deepseek_r1 import (
    CALL_END, CALLS_BEGIN, CALLS_END, EOS, JSON_OPEN, NEXT_CALL_BEGIN, OUTPUT_END, OUTPUTS_BEGIN,
    OUTPUTS_END, PLAIN_GENERATION_PROMPT, SEP, USER, call_sources, call_values,
)
from ._deepseek_r1_distill import NEXT_OUTPUT_BEGIN

_ASSISTANT = "<｜Assistant｜>"  # L3: the end of the user line, and the generation prompt (L14)


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, an assistant turn's generated range starts at its first
    character (the user line wrote its ``<｜Assistant｜>``), or after ``<｜tool▁outputs▁end｜>``
    when it follows a tool result, and ends after its ``<｜end▁of▁sentence｜>``."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    add_generation_prompt = variables.get("add_generation_prompt", MISSING)
    if add_generation_prompt is MISSING:  # L1: not add_generation_prompt is defined
        add_generation_prompt = False
    namespace(variables)  # L1: ns = namespace(...)
    is_first = False  # ns.is_first
    is_tool = False  # ns.is_tool
    is_output_first = True  # ns.is_output_first
    is_last_user = False  # ns.is_last_user
    prompt, system_indices = system_prompt(messages)  # L1-3: ns.system_prompt, ns.is_first_sp

    if spans is not None:
        spans.source("bos_token")
    emit(to_str(variables.get("bos_token", MISSING)))  # L3: {{ bos_token }}
    if spans is None:
        emit(prompt)  # L3: {{ ns.system_prompt }}
    else:  # each system message's content a piece of its own
        for k, index in enumerate(system_indices):
            if k:
                emit(JOIN)
            spans.field(index, ".content")
            emit(messages[index]["content"])

    _missing = MISSING
    for index, message in enumerate(messages):  # L3
        content = item(message, "content")  # L3: set content = message['content']
        role = message.get("role", _missing) if type(message) is dict else _missing
        if role == "user":  # L3
            is_tool = False
            is_first = False
            is_last_user = True
            text = need_str_at(content, index)
            if spans is not None:
                spans.fields(index, ".content")
            extend((USER, text, _ASSISTANT))  # '<｜User｜>' + content + '<｜Assistant｜>'

        if role == "assistant":  # L3: the split, for every assistant message
            content = split_think(content, index, last=True)

        tool_calls = message.get("tool_calls", _missing) if role == "assistant" else _missing
        # L3: role == 'assistant' and tool_calls is defined and tool_calls is not none
        if role == "assistant" and tool_calls is not _missing and tool_calls is not None:
            is_last_user = False
            if is_tool:
                if spans is not None:
                    spans.open(after=OUTPUTS_END)
                emit(OUTPUTS_END)
            elif spans is not None:
                spans.open()
            is_first = False
            is_tool = False
            is_output_first = True
            calls_path = f"messages[{index}].tool_calls"
            for k, tool in enumerate(iterate(tool_calls, calls_path)):
                call_path = f"{calls_path}[{k}]"
                if not is_first:
                    if content is None:  # L3-6: never taken (the split failed on None)
                        kind, name, arguments = call_values(tool, call_path)
                        if spans is not None:
                            spans.line(*call_sources(call_path))
                        extend((CALLS_BEGIN, kind, SEP, name, JSON_OPEN, arguments, CALL_END))
                    else:  # L6-9: content + '...': the content first
                        text = need_str_at(content, index)
                        kind, name, arguments = call_values(tool, call_path)
                        if spans is not None:
                            spans.values(index, *call_sources(call_path))
                        extend((text, CALLS_BEGIN, kind, SEP, name, JSON_OPEN, arguments, CALL_END))
                    is_first = True
                else:  # L9-13
                    kind, name, arguments = call_values(tool, call_path)
                    if spans is not None:
                        spans.line(*call_sources(call_path))
                    extend((NEXT_CALL_BEGIN, kind, SEP, name, JSON_OPEN, arguments, CALL_END))
            if spans is not None:
                spans.close(after=CALLS_END)
            emit(CALLS_END)  # L13

        # L13: role == 'assistant' and (tool_calls is not defined or tool_calls is none)
        if role == "assistant" and (tool_calls is _missing or tool_calls is None):
            is_last_user = False
            text = need_str_at(content, index)
            if is_tool:
                # '<｜tool▁outputs▁end｜>' + content + '<｜end▁of▁sentence｜>'
                if spans is not None:
                    spans.open(after=OUTPUTS_END)
                    spans.fields(index, ".content")
                extend((OUTPUTS_END, text))
                is_tool = False
            else:  # content + '<｜end▁of▁sentence｜>'
                if spans is not None:
                    spans.open()
                    spans.values(index)
                emit(text)
            if spans is not None:
                spans.close(after=EOS)
            emit(EOS)

        if role == "tool":  # L13-14
            is_last_user = False
            is_tool = True
            text = need_str_at(content, index)
            if spans is not None:
                spans.fields(index, ".content")
            if is_output_first:
                extend((OUTPUTS_BEGIN, text, OUTPUT_END))
                is_output_first = False
            else:
                extend((NEXT_OUTPUT_BEGIN, text, OUTPUT_END))

    if is_tool:  # L14: {% if ns.is_tool %}
        emit(OUTPUTS_END)
    if add_generation_prompt and not is_last_user and not is_tool:  # L14
        emit(PLAIN_GENERATION_PROMPT)
    return "".join(out)
