"""The DeepSeek-R1 template, shared by its two revisions byte for byte but the generation prompt.

``deepseek_r1.jinja`` (February 2025: the generation prompt ``<｜Assistant｜><think>\\n``) and
``deepseek_r1_2025_01.jinja`` (January 2025: ``<｜Assistant｜>``) are the same text otherwise;
:func:`render_r1` is that text with the generation prompt a parameter.  The template is one line
(its newlines are ``'\\n'`` escapes inside string literals), so every ``Lnn`` is L1; the
comments quote the template's tags instead.  Laid out like it: the default, ``ns`` and the
system-message scan, ``bos_token`` and the system prompt, the message loop with its four
independent ``if`` blocks in the template's order (user, assistant with ``'tool_calls' in
message``, assistant without, tool), the closing ``<｜tool▁outputs▁end｜>`` and the generation
prompt.

What the template does that surprises (each reproduced here):

- ``ns.is_first`` and ``ns.is_output_first`` are never reset: a second tool-calling turn
  continues the first (``'\\n<｜tool▁call▁begin｜>...'``, no ``<｜Assistant｜>``), and its outputs
  get no ``<｜tool▁outputs▁begin｜>``;
- ``'tool_calls' in message`` picks the tool-call branch: the key present, even ``None`` (which
  then fails to iterate);
- the arguments (and ``type`` and ``name``) are concatenated: a mapping fails;
- an answer right after a tool result is ``<｜tool▁outputs▁end｜>`` + its content as is (no
  ``<｜Assistant｜>``, no ``</think>`` split); a tool-call turn or a user turn right after one
  leaves ``<｜tool▁outputs▁end｜>`` unwritten;
- everything up to the last ``</think>`` of an answer is dropped; ``reasoning_content`` and
  ``tools`` are never read.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .._jinja import MISSING, concat_error, item, iterate, namespace, need_str, need_str_at, to_str
from .._spans import Recorder
from ._deepseek import JOIN, split_think, system_prompt

USER = "<｜User｜>"
ASSISTANT = "<｜Assistant｜>"
CALLS_BEGIN = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"
ASSISTANT_CALLS_BEGIN = "<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"
NEXT_CALL_BEGIN = "\n<｜tool▁call▁begin｜>"  # '\n' + '<｜tool▁call▁begin｜>'
SEP = "<｜tool▁sep｜>"
JSON_OPEN = "\n```json\n"  # '\n' + '```json' + '\n'
CALL_END = "\n```<｜tool▁call▁end｜>"  # '\n' + '```' + '<｜tool▁call▁end｜>'
CALLS_END = "<｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
EOS = "<｜end▁of▁sentence｜>"
OUTPUTS_BEGIN = "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>"
OUTPUT_BEGIN = "<｜tool▁output▁begin｜>"
OUTPUT_END = "<｜tool▁output▁end｜>"
OUTPUTS_END = "<｜tool▁outputs▁end｜>"
#: The February 2025 generation prompt (``deepseek_r1.jinja``): the reasoning opened.
THINKING_GENERATION_PROMPT = "<｜Assistant｜><think>\n"
#: The January 2025 generation prompt (``deepseek_r1_2025_01.jinja``).
PLAIN_GENERATION_PROMPT = "<｜Assistant｜>"


def call_values(tool: Any, path: str) -> tuple[str, str, str]:
    """``tool['type']``, ``tool['function']['name']`` and ``tool['function']['arguments']``,
    each concatenated to a string in that order (so each must be a string)."""
    kind = item(tool, "type", path)
    if type(kind) is not str:
        raise concat_error(kind, path + ".type")
    function = item(tool, "function", path)
    name = item(function, "name", path + ".function")
    if type(name) is not str:
        raise concat_error(name, path + ".function.name")
    arguments = item(function, "arguments", path + ".function")
    if type(arguments) is not str:
        raise concat_error(arguments, path + ".function.arguments")
    return kind, name, arguments


def call_sources(path: str) -> tuple[str, str, str]:
    """The paths of a call's three values (:func:`call_values`)."""
    return path + ".type", path + ".function.name", path + ".function.arguments"


def render_r1(messages: Sequence[Any], variables: Mapping[str, Any], generation_prompt: str,
              spans: Recorder | None = None) -> str:
    """``deepseek_r1.jinja`` with ``generation_prompt`` as its generation prompt.  With
    ``spans``, an assistant turn's generated range starts after its ``<｜Assistant｜>`` (after
    ``<｜tool▁outputs▁end｜>`` for an answer right after a tool result; at its first character
    for a tool-call turn that continues an earlier one, or has no call) and ends after its
    ``<｜end▁of▁sentence｜>`` (the prefill ``<think>\\n`` is never written in a turn)."""
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
    prompt, system_indices = system_prompt(messages)  # ns.system_prompt, ns.is_first_sp

    if spans is not None:
        spans.source("bos_token")
    emit(to_str(variables.get("bos_token", MISSING)))  # {{ bos_token }}
    if spans is None:
        emit(prompt)  # {{ ns.system_prompt }}
    else:  # each system message's content a piece of its own
        for k, index in enumerate(system_indices):
            if k:
                emit(JOIN)
            spans.field(index, ".content")
            emit(messages[index]["content"])

    _missing = MISSING
    for index, message in enumerate(messages):
        role = message.get("role", _missing) if type(message) is dict else _missing
        if role == "user":
            is_tool = False
            content = need_str_at(message.get("content", _missing), index)
            if spans is not None:
                spans.fields(index, ".content")
            extend((USER, content))  # '<｜User｜>' + message['content']

        # role == 'assistant' and 'tool_calls' in message (a dict: its role is 'assistant')
        if role == "assistant" and "tool_calls" in message:
            is_tool = False
            content = message.get("content", _missing)
            calls_path = f"messages[{index}].tool_calls"
            opened = False
            for k, tool in enumerate(iterate(message["tool_calls"], calls_path)):
                path = f"{calls_path}[{k}]"
                if not is_first:
                    if content is None:
                        kind, name, arguments = call_values(tool, path)
                        if spans is not None:
                            spans.open(after=ASSISTANT)
                            spans.line(*call_sources(path))
                        extend((ASSISTANT_CALLS_BEGIN, kind, SEP, name, JSON_OPEN, arguments,
                                CALL_END))
                    else:
                        # '<｜Assistant｜>' + message['content'] + ...: the content first
                        text = need_str_at(content, index)
                        kind, name, arguments = call_values(tool, path)
                        if spans is not None:
                            spans.open(after=ASSISTANT)
                            spans.line(index, *call_sources(path))
                        extend((ASSISTANT, text, CALLS_BEGIN, kind, SEP, name, JSON_OPEN,
                                arguments, CALL_END))
                    is_first = True  # never reset
                else:
                    kind, name, arguments = call_values(tool, path)
                    if spans is not None:
                        if not opened:
                            spans.open()
                        spans.line(*call_sources(path))
                    extend((NEXT_CALL_BEGIN, kind, SEP, name, JSON_OPEN, arguments, CALL_END))
                opened = True
            if spans is not None:
                if not opened:  # no call: the turn is its end alone
                    spans.open()
                spans.close(after=CALLS_END)
            emit(CALLS_END)

        # role == 'assistant' and 'tool_calls' not in message
        if role == "assistant" and "tool_calls" not in message:
            if is_tool:
                # '<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'
                content = need_str_at(message.get("content", _missing), index)
                if spans is not None:
                    spans.open(after=OUTPUTS_END)
                    spans.fields(index, ".content")
                extend((OUTPUTS_END, content))
                is_tool = False
            else:
                content = need_str_at(
                    split_think(message.get("content", _missing), index, last=True), index)
                if spans is not None:
                    spans.open(after=ASSISTANT)
                    spans.fields(index, ".content")
                extend((ASSISTANT, content))  # '<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'
            if spans is not None:
                spans.close(after=EOS)
            emit(EOS)

        if role == "tool":
            is_tool = True
            content = need_str_at(message.get("content", _missing), index)
            if spans is not None:
                spans.fields(index, ".content")
            if is_output_first:
                extend((OUTPUTS_BEGIN, content, OUTPUT_END))
                is_output_first = False  # never reset
            else:
                extend((OUTPUT_BEGIN, content, OUTPUT_END))

    if is_tool:  # {% if ns.is_tool %}
        emit(OUTPUTS_END)
    if add_generation_prompt and not is_tool:
        emit(generation_prompt)
    return "".join(out)
