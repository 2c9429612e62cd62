"""The DeepSeek-R1-Distill template, shared by its two revisions byte for byte but the
generation prompt.

``deepseek_r1_distill.jinja`` (February 2025: ``<｜Assistant｜><think>\\n``) and
``deepseek_r1_distill_2025_01.jinja`` (January 2025: ``<｜Assistant｜>``) are the same text
otherwise; :func:`render_distill` is that text with the generation prompt a parameter.  It is
R1's template reworked, not R1's (so a port of its own): one line of tags (its newlines are
``'\\n'`` escapes), so every ``Lnn`` is L1 and the comments quote the tags.  Laid out like it:
the default, ``ns`` and the system-message scan, ``bos_token`` and the system prompt, the message
loop with its four independent ``if`` blocks in the template's order (user, assistant with
``content`` None, assistant with ``content`` not None, tool), the closing
``<｜tool▁outputs▁end｜>`` and the generation prompt.

What the template does that surprises (each reproduced here):

- only the last system message is kept (``ns.system_prompt`` is overwritten), rendered with
  ``str()`` (``None`` renders ``None``, a missing content ``""``);
- the tool-call branch is taken only when ``content`` is ``None``: a turn with ``content: ""``
  and tool calls drops its calls; ``tool_calls`` missing iterates nothing;
- ``<｜tool▁calls▁end｜><｜end▁of▁sentence｜>`` follows the second and every later call only, so
  a turn with one call is never closed;
- ``ns.is_first`` and ``ns.is_output_first`` are never reset, as in R1; later tool outputs are
  joined with ``'\\n'``;
- an answer right after a tool result is ``<｜tool▁outputs▁end｜>`` + its content as is.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .._jinja import MISSING, iterate, namespace, need_str_at, to_str
from .._spans import Recorder
from ._deepseek import split_think
from ._deepseek_r1 import (
    ASSISTANT, ASSISTANT_CALLS_BEGIN, CALL_END, CALLS_END, EOS, JSON_OPEN, NEXT_CALL_BEGIN,
    OUTPUT_END, OUTPUTS_BEGIN, OUTPUTS_END, SEP, USER, call_sources, call_values,
)

#: '\n<｜tool▁output▁begin｜>': a later tool output (R1 writes no newline).
NEXT_OUTPUT_BEGIN = "\n<｜tool▁output▁begin｜>"


def render_distill(messages: Sequence[Any], variables: Mapping[str, Any], generation_prompt: str,
                   spans: Recorder | None = None) -> str:
    """``deepseek_r1_distill.jinja`` with ``generation_prompt`` as its generation prompt.  With
    ``spans``, an assistant turn's generated range starts after its ``<｜Assistant｜>`` (after
    ``<｜tool▁outputs▁end｜>`` for an answer right after a tool result; at its first character
    for a tool-call turn that continues an earlier one) and ends after its
    ``<｜end▁of▁sentence｜>``, or after its last call (a turn with one call has no end; one with
    no call renders nothing, an empty range)."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    add_generation_prompt = variables.get("add_generation_prompt", MISSING)
    if add_generation_prompt is MISSING:  # not add_generation_prompt is defined
        add_generation_prompt = False
    namespace(variables)  # ns = namespace(...)
    is_first = False  # ns.is_first
    is_tool = False  # ns.is_tool
    is_output_first = True  # ns.is_output_first
    system_prompt: Any = ""  # ns.system_prompt
    system_index = -1
    for index, message in enumerate(messages):
        if type(message) is dict and message.get("role", MISSING) == "system":
            system_prompt = message.get("content", MISSING)  # set ns.system_prompt = ...: the last
            system_index = index

    if spans is not None:
        spans.source("bos_token")
    emit(to_str(variables.get("bos_token", MISSING)))  # {{bos_token}}
    if spans is not None and system_index >= 0:
        spans.field(system_index, ".content")
    emit(to_str(system_prompt))  # {{ns.system_prompt}}

    _missing = MISSING
    for index, message in enumerate(messages):
        role = message.get("role", _missing) if type(message) is dict else _missing
        if role == "user":
            is_tool = False
            text = need_str_at(message.get("content", _missing), index)
            if spans is not None:
                spans.fields(index, ".content")
            extend((USER, text))  # '<｜User｜>' + message['content']

        content = message.get("content", _missing) if role == "assistant" else _missing
        # role == 'assistant' and message['content'] is none
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
                if not is_first:
                    extend((ASSISTANT_CALLS_BEGIN, kind, SEP, name, JSON_OPEN, arguments, CALL_END))
                    is_first = True  # never reset
                else:
                    extend((NEXT_CALL_BEGIN, kind, SEP, name, JSON_OPEN, arguments, CALL_END))
                    emit(CALLS_END)  # after each later call, inside the loop
            if spans is not None:
                spans.close()

        # role == 'assistant' and message['content'] is not none
        if role == "assistant" and content is not None:
            if is_tool:
                # '<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'
                text = need_str_at(content, index)
                if spans is not None:
                    spans.open(after=OUTPUTS_END)
                    spans.fields(index, ".content")
                extend((OUTPUTS_END, text))
                is_tool = False
            else:
                text = need_str_at(split_think(content, index, last=True), index)
                if spans is not None:
                    spans.open(after=ASSISTANT)
                    spans.fields(index, ".content")
                extend((ASSISTANT, text))  # '<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'
            if spans is not None:
                spans.close(after=EOS)
            emit(EOS)

        if role == "tool":
            is_tool = True
            text = need_str_at(message.get("content", _missing), index)
            if spans is not None:
                spans.fields(index, ".content")
            if is_output_first:
                extend((OUTPUTS_BEGIN, text, OUTPUT_END))
                is_output_first = False  # never reset
            else:
                extend((NEXT_OUTPUT_BEGIN, text, OUTPUT_END))

    if is_tool:  # {% if ns.is_tool %}
        emit(OUTPUTS_END)
    if add_generation_prompt and not is_tool:
        emit(generation_prompt)
    return "".join(out)
