"""Port of ``reference_templates/deepseek_v3_1.jinja`` (DeepSeek-V3.1).

The template is one line of tags (the only newlines in the file, L1-3, are the ``'\\n\\n'``
between joined system messages, written inside a string literal).  Laid out like it: the
variable defaults and the system-message scan (``ns.system_prompt``), ``bos_token`` and the
system prompt, the message loop with its four independent ``if`` blocks in the template's order
(user, assistant with tool calls, assistant without, tool) and the generation prompt.  ``Lnn``
comments cite the template's lines: L1 holds everything but the join's newlines, L3 everything
after them.

What the template does that surprises (each reproduced here):

- the switch is ``thinking`` (default false): the generation prompt is ``<｜Assistant｜></think>``
  or ``<｜Assistant｜><think>``; a history turn after a user turn gets ``</think>`` (``<think>``
  only with ``message.prefix`` and ``thinking``);
- ``tools`` is never read; tool-call arguments are concatenated, so only a string works (a
  mapping fails: ``can only concatenate str``);
- ``ns.is_first`` is reset by each user turn and each tool-call turn (unlike R1's);
- an assistant turn right after a tool result is its content as is: no ``<｜Assistant｜>``, no
  think tag and no ``</think>`` split;
- the generation prompt is written only after a user turn.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, concat_error, item, iterate, namespace, need_str_at, to_str
from .._record import Record, setters
from .._spans import Recorder
from ._deepseek import JOIN as _JOIN, split_think, system_prompt

_USER = "<｜User｜>"
_ASSISTANT = "<｜Assistant｜>"
_THINK_OPEN = "<think>"
_THINK_CLOSE = "</think>"
_ASSISTANT_CLOSED = "<｜Assistant｜></think>"  # L3, the tool-call turn's header
_CALLS_BEGIN = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"
_CALL_BEGIN = "<｜tool▁call▁begin｜>"
_SEP = "<｜tool▁sep｜>"
_CALL_END = "<｜tool▁call▁end｜>"
_CALLS_END = "<｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
_EOS = "<｜end▁of▁sentence｜>"
_OUTPUT_BEGIN = "<｜tool▁output▁begin｜>"
_OUTPUT_END = "<｜tool▁output▁end｜>"


class Namespace(Record):
    """L1-3: the defaults and ``ns`` after the system scan.

    ``add_generation_prompt`` and ``thinking`` are ``False`` when not passed; ``system_prompt``
    is every system message's content joined with ``'\\n\\n'`` (each a string: the scan's ``+``
    fails on anything else), ``system_indices`` the messages it came from."""

    __slots__ = ("add_generation_prompt", "thinking", "system_prompt", "system_indices")

    add_generation_prompt: Any
    thinking: Any
    system_prompt: str
    system_indices: tuple[int, ...]

    def __init__(self, add_generation_prompt: Any, thinking: Any, system_prompt: str,
                 system_indices: tuple[int, ...]) -> None:
        _set_add_generation_prompt(self, add_generation_prompt)
        _set_thinking(self, thinking)
        _set_system_prompt(self, system_prompt)
        _set_system_indices(self, system_indices)


_set_add_generation_prompt, _set_thinking, _set_system_prompt, _set_system_indices = (
    setters(Namespace).values())


def scan(messages: Sequence[Any], variables: Mapping[str, Any]) -> Namespace:
    """L1-3: the defaults, then ``ns.system_prompt`` from every system message."""
    add_generation_prompt = variables.get("add_generation_prompt", MISSING)
    if add_generation_prompt is MISSING:  # L1: not add_generation_prompt is defined
        add_generation_prompt = False
    thinking = variables.get("thinking", MISSING)
    if thinking is MISSING:  # L1: not thinking is defined
        thinking = False
    namespace(variables)  # L1: ns = namespace(...)
    prompt, indices = system_prompt(messages)  # L1-3
    return Namespace(add_generation_prompt, thinking, prompt, indices)


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, an assistant turn's generated range starts after
    ``<｜Assistant｜></think>`` (``thinking`` false), after ``<｜Assistant｜><think>`` (the
    prefix turn under ``thinking``), after ``<｜Assistant｜>`` (``thinking`` true, a turn written
    with ``</think>``: the model wrote it after its reasoning), or at the turn's first character
    (no header: after a tool result or another assistant turn); it ends after
    ``<｜end▁of▁sentence｜>``."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    ns = scan(messages, variables)  # L1-3
    thinking = ns.thinking
    if spans is not None:
        spans.source("bos_token")
    emit(to_str(variables.get("bos_token", MISSING)))  # L3: {{ bos_token }}
    if spans is None:
        emit(ns.system_prompt)  # L3: {{ ns.system_prompt }}
    else:  # each system message's content a piece of its own
        for k, index in enumerate(ns.system_indices):
            if k:
                emit(_JOIN)
            spans.field(index, ".content")
            emit(messages[index]["content"])

    is_tool = False  # ns.is_tool
    is_first = False  # ns.is_first
    is_last_user = False  # ns.is_last_user
    _missing = MISSING
    for index, message in enumerate(messages):  # L3
        role = message.get("role", _missing) if type(message) is dict else _missing
        if role == "user":  # L3: the user block
            is_tool = False
            is_first = False
            is_last_user = True
            content = need_str_at(message.get("content", _missing), index)
            if spans is not None:
                spans.fields(index, ".content")
            extend((_USER, content))  # '<｜User｜>' + message['content']

        tool_calls = message.get("tool_calls", _missing) if role == "assistant" else _missing
        # L3: role == 'assistant' and tool_calls is defined and tool_calls is not none
        if role == "assistant" and tool_calls is not _missing and tool_calls is not None:
            if is_last_user:
                if spans is not None:  # under thinking, the model wrote '</think>' itself
                    spans.open(after=_ASSISTANT if thinking else _ASSISTANT_CLOSED)
                emit(_ASSISTANT_CLOSED)
            elif spans is not None:
                spans.open()
            is_last_user = False
            is_first = False
            is_tool = False
            content = message.get("content", _missing)
            calls_path = f"messages[{index}].tool_calls"
            for k, tool in enumerate(iterate(tool_calls, calls_path)):
                if not is_first:
                    if content is None:
                        name, arguments = _call(tool, f"{calls_path}[{k}]")
                        if spans is not None:
                            spans.line(f"{calls_path}[{k}].function.name",
                                       f"{calls_path}[{k}].function.arguments")
                        extend((_CALLS_BEGIN, name, _SEP, arguments, _CALL_END))
                    else:
                        # message['content'] + '...': the content is added first
                        text = need_str_at(content, index)
                        name, arguments = _call(tool, f"{calls_path}[{k}]")
                        if spans is not None:
                            spans.values(index, f"{calls_path}[{k}].function.name",
                                         f"{calls_path}[{k}].function.arguments")
                        extend((text, _CALLS_BEGIN, name, _SEP, arguments, _CALL_END))
                    is_first = True
                else:
                    name, arguments = _call(tool, f"{calls_path}[{k}]")
                    if spans is not None:
                        spans.line(f"{calls_path}[{k}].function.name",
                                   f"{calls_path}[{k}].function.arguments")
                    extend((_CALL_BEGIN, name, _SEP, arguments, _CALL_END))
            if spans is not None:
                spans.close(after=_CALLS_END)
            emit(_CALLS_END)

        # L3: role == 'assistant' and (tool_calls is not defined or tool_calls is none)
        if role == "assistant" and (tool_calls is _missing or tool_calls is None):
            if is_last_user:
                prefix = message.get("prefix", _missing)
                # message['prefix'] is defined and message['prefix'] and thinking
                tag = _THINK_OPEN if prefix is not _missing and prefix and thinking else _THINK_CLOSE
                emit(_ASSISTANT)
                if spans is not None and thinking and tag == _THINK_CLOSE:
                    spans.open()  # the model wrote '</think>' after its reasoning
                emit(tag)
                if spans is not None and not (thinking and tag == _THINK_CLOSE):
                    spans.open()
            elif spans is not None:
                spans.open()
            is_last_user = False
            if is_tool:
                content = need_str_at(message.get("content", _missing), index)  # content as is
                is_tool = False
            else:
                content = need_str_at(
                    split_think(message.get("content", _missing), index, last=False), index)
            if spans is not None:
                spans.values(index)
            emit(content)  # content + '<｜end▁of▁sentence｜>'
            if spans is not None:
                spans.close(after=_EOS)
            emit(_EOS)

        if role == "tool":  # L3: the tool block
            is_last_user = False
            is_tool = True
            content = need_str_at(message.get("content", _missing), index)
            if spans is not None:
                spans.fields(index, ".content")
            extend((_OUTPUT_BEGIN, content, _OUTPUT_END))

    # L3: add_generation_prompt and ns.is_last_user and not ns.is_tool (the last is implied by
    # the second, kept literally)
    if ns.add_generation_prompt and is_last_user and not is_tool:
        emit(_ASSISTANT)
        emit(_THINK_CLOSE if not thinking else _THINK_OPEN)
    return "".join(out)


def _call(tool: Any, path: str) -> tuple[str, str]:
    """``tool['function']['name']`` and ``tool['function']['arguments']``, each concatenated to
    a string in that order (so each must be a string)."""
    function = item(tool, "function", path)
    name = item(function, "name", path + ".function")
    if type(name) is not str:
        raise concat_error(name, path + ".function.name")
    arguments = item(function, "arguments", path + ".function")
    if type(arguments) is not str:
        raise concat_error(arguments, path + ".function.arguments")
    return name, arguments
