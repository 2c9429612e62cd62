"""Port of ``reference_templates/deepseek_v3.jinja`` (DeepSeek-V3).

R1-Distill's loop with R1's system scan and no ``</think>`` handling: the default, ``ns`` and
the system-message scan (every system content joined with a blank line, L1-3), ``bos_token`` and
the system prompt (L3), the message loop with its four independent ``if`` blocks in the
template's order (user; assistant with ``content`` None, the tool calls, L3-10; assistant with
``content`` not None, L10; tool, L10-11), the closing ``<｜tool▁outputs▁end｜>`` and the
generation prompt ``<｜Assistant｜>`` (L11).  The newlines inside its string literals are real
newline characters (R1's text writes ``'\\n'`` escapes: the two render alike, the files differ).

What the template does that surprises (each reproduced here):

- the tool-call branch is taken only when ``content`` is ``None`` (``content: ""`` drops the
  calls; at the pipeline layer transformers drops ``content: None``, so no call can be rendered
  through ``apply_chat_template``);
- ``<｜tool▁calls▁end｜><｜end▁of▁sentence｜>`` follows the second and each later call only;
- ``ns.is_first`` and ``ns.is_output_first`` are never reset; later tool outputs are joined
  with a newline;
- an answer is its content as given (no ``</think>`` split); right after a tool result it is
  ``<｜tool▁outputs▁end｜>`` + its content, with no ``<｜Assistant｜>``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, iterate, namespace, need_str_at, to_str
from .._spans import Recorder
from ._deepseek import JOIN, system_prompt
from ._deepseek_r1 import (
    ASSISTANT, ASSISTANT_CALLS_BEGIN, CALL_END, CALLS_END, EOS, JSON_OPEN, NEXT_CALL_BEGIN,
    OUTPUT_END, OUTPUTS_BEGIN, OUTPUTS_END, PLAIN_GENERATION_PROMPT, SEP, USER, call_sources,
    call_values,
)
from ._deepseek_r1_distill import NEXT_OUTPUT_BEGIN


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, an assistant turn's generated range starts after its
    ``<｜Assistant｜>`` (after ``<｜tool▁outputs▁end｜>`` for an answer right after a tool result;
    at its first character for a tool-call turn that continues an earlier one) and ends after
    its ``<｜end▁of▁sentence｜>``, or after its last call (a turn with one call has no end; one
    with no call renders nothing, an empty range)."""
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
    prompt, system_indices = system_prompt(messages)  # L1-3: ns.system_prompt, ns.is_first_sp

    if spans is not None:
        spans.source("bos_token")
    emit(to_str(variables.get("bos_token", MISSING)))  # L3: {{bos_token}}
    if spans is None:
        emit(prompt)  # L3: {{ns.system_prompt}}
    else:  # each system message's content a piece of its own
        for k, index in enumerate(system_indices):
            if k:
                emit(JOIN)
            spans.field(index, ".content")
            emit(messages[index]["content"])

    _missing = MISSING
    for index, message in enumerate(messages):  # L3
        role = message.get("role", _missing) if type(message) is dict else _missing
        if role == "user":  # L3
            is_tool = False
            text = need_str_at(message.get("content", _missing), index)
            if spans is not None:
                spans.fields(index, ".content")
            extend((USER, text))  # '<｜User｜>' + message['content']

        content = message.get("content", _missing) if role == "assistant" else _missing
        # L3: role == 'assistant' and message['content'] is none
        if role == "assistant" and content is None:
            is_tool = False
            calls_path = f"messages[{index}].tool_calls"
            if spans is not None:
                spans.open(after=ASSISTANT if not is_first and message.get("tool_calls") else "")
            for k, tool in enumerate(iterate(message.get("tool_calls", _missing), calls_path)):
                path = f"{calls_path}[{k}]"
                kind, name, arguments = call_values(tool, path)
                if spans is not None:
                    spans.line(*call_sources(path))
                if not is_first:  # L3-6
                    extend((ASSISTANT_CALLS_BEGIN, kind, SEP, name, JSON_OPEN, arguments, CALL_END))
                    is_first = True  # never reset
                else:  # L6-10
                    extend((NEXT_CALL_BEGIN, kind, SEP, name, JSON_OPEN, arguments, CALL_END))
                    emit(CALLS_END)  # L10, after each later call, inside the loop
            if spans is not None:
                spans.close()

        # L10: role == 'assistant' and message['content'] is not none
        if role == "assistant" and content is not None:
            text = need_str_at(content, index)
            if is_tool:
                # '<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'
                if spans is not None:
                    spans.open(after=OUTPUTS_END)
                    spans.fields(index, ".content")
                extend((OUTPUTS_END, text))
                is_tool = False
            else:
                # '<｜Assistant｜>' + message['content'] + '<｜end▁of▁sentence｜>'
                if spans is not None:
                    spans.open(after=ASSISTANT)
                    spans.fields(index, ".content")
                extend((ASSISTANT, text))
            if spans is not None:
                spans.close(after=EOS)
            emit(EOS)

        if role == "tool":  # L10-11
            is_tool = True
            text = need_str_at(message.get("content", _missing), index)
            if spans is not None:
                spans.fields(index, ".content")
            if is_output_first:
                extend((OUTPUTS_BEGIN, text, OUTPUT_END))
                is_output_first = False  # never reset
            else:
                extend((NEXT_OUTPUT_BEGIN, text, OUTPUT_END))

    if is_tool:  # L11: {% if ns.is_tool %}
        emit(OUTPUTS_END)
    if add_generation_prompt and not is_tool:  # L11
        emit(PLAIN_GENERATION_PROMPT)
    return "".join(out)
