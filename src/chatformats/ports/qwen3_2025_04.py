"""Port of ``reference_templates/qwen3_2025_04.jinja`` (Qwen3 hybrid thinking, April 2025).

The text the Qwen3 hybrid models shipped with at their release, before Qwen's update to
``qwen3.jinja``.  Lines 1-16 (the system block), 48-66 (the tool calls) and 68-77 (the tool
responses) are byte-identical to the later text's and come from :mod:`._qwen3_2507`; the reversed
scan (17-24) and the message loop (25-79) differ and are this module's own: the content is never
tested with ``is string``, so

- the scan calls ``message.content.startswith(...)`` on every user message it reaches (from the
  last one back to the last real query): a content that is not a string fails there;
- user and system turns concatenate ``message.content`` (a non-string fails), and so does an
  assistant turn (so ``content: None`` with tool calls fails);
- ``reasoning_content`` is used whenever it is defined and not ``None`` (any value: its
  ``.strip('\\n')`` fails when it is not a string and the turn renders its think block), else
  ``'</think>' in message.content`` splits the content (Python's ``in``: a list or a mapping
  holding ``'</think>'`` passes the test, then fails at ``.split``);
- a tool response is ``{{ message.content }}``: ``str()`` of any value.

The generation prompt (80-85) is ``<|im_start|>assistant\\n``, then ``<think>\\n\\n</think>\\n\\n``
when ``enable_thinking`` is ``false``.  ``Lnn`` comments cite this template.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Mapping, Sequence

from .._jinja import MISSING, contains, length, namespace, need_str, think_split, to_str, type_name
from .._spans import Recorder
from ..errors import TemplateTypeError, UndefinedValueError
from ._qwen3_2507 import (
    HEADER, INSTRUCT_GENERATION_PROMPT, Namespace, system_block, tool_calls_block, tool_response,
)

#: L83: the empty think block that turns the reasoning off.
NO_THINKING = "<think>\n\n</think>\n\n"


def method(value: Any, name: str, path: str) -> Callable[..., str]:
    """``value.name``, to be called (``name`` a ``str`` method): jinja2's sandboxed ``getattr``
    (the attribute, else the item ``value[name]``, else undefined) followed by the call.  A
    string's method; an undefined value, or one without the attribute (a list, a number,
    ``None``, a mapping without the key), fails as jinja2's undefined does; a mapping that holds
    the key gives a JSON value, which is not callable (a ``TypeError``)::

        {{ 'ab'.startswith('a') }} -> True    {{ [1].startswith('a') }} -> UndefinedError
        {{ {'startswith': 1}.startswith('a') }} -> TypeError ('int' object is not callable)
    """
    if type(value) is str:
        return getattr(value, name)  # type: ignore[no-any-return]
    if value is MISSING:
        raise UndefinedValueError(f"{path} is undefined (reading .{name})")
    if type(value) is dict and name in value:
        kind = type_name(value[name])
        raise TemplateTypeError(f"{path}.{name} is {kind}: '{kind}' object is not callable")
    raise UndefinedValueError(f"{path} is {type_name(value)}: it has no attribute '{name}' (calling it)")


def scan(messages: Sequence[Any]) -> Namespace:
    """L17-24, the reversed scan: the last user message whose content does not both start with
    ``<tool_response>`` and end with ``</tool_response>``; the content's methods are called
    whatever it is."""
    n = length(messages, "messages")
    for index in range(n - 1, -1, -1):
        message = messages[index]
        # L20: ns.multi_step_tool (true until the query is found) and role == "user" and not (...)
        if type(message) is dict and message.get("role", MISSING) == "user":
            content = message.get("content", MISSING)
            path = f"messages[{index}].content"
            if not (method(content, "startswith", path)("<tool_response>")
                    and method(content, "endswith", path)("</tool_response>")):
                return Namespace(multi_step_tool=False, last_query_index=index)  # L21-22
    return Namespace(multi_step_tool=True, last_query_index=n - 1)


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template; with ``spans``, an assistant turn's generated range starts where the
    generation prompt leaves the model when the turn begins with it (after
    ``<think>\\n\\n</think>\\n\\n`` under ``enable_thinking`` false, for a turn whose think block is
    empty), else after its ``<|im_start|>assistant\\n``, and ends after its ``<|im_end|>``."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    enable_thinking = variables.get("enable_thinking", MISSING)
    generation_prompt = INSTRUCT_GENERATION_PROMPT  # L81
    if enable_thinking is not MISSING and enable_thinking is False:  # L82-84
        generation_prompt += NO_THINKING

    system_block(emit, messages, variables.get("tools", MISSING), "", spans)  # L1-16
    namespace(variables)  # L17: the call itself (a caller's `namespace` variable shadows it)
    ns = scan(messages)  # L17-24
    last_index = length(messages) - 1

    for index, message in enumerate(messages):  # L25
        if type(message) is dict:  # attr(message, ...), inlined for the common case
            role = message.get("role", MISSING)
            content = message.get("content", MISSING)
        else:  # any field of a message that is not a mapping is undefined
            role = content = MISSING
        path = f"messages[{index}].content"
        if role == "user" or (role == "system" and index != 0):  # L26-27
            text = need_str(content, path)
            if spans is not None:
                spans.message(index)
            extend(("<|im_start|>", role, "\n", text, "<|im_end|>\n"))
        elif role == "assistant":  # L28 (so message is a dict)
            reasoning_content: Any = ""  # L29-30: content = message.content
            message_reasoning = message.get("reasoning_content", MISSING)
            from_field = message_reasoning is not MISSING and message_reasoning is not None
            if from_field:  # L31-32
                reasoning_content = message_reasoning
            elif contains(content, "</think>", path):  # L34-37
                method(content, "split", path)  # L35: message.content.split('</think>')
                reasoning_content, content = think_split(content)
            if index > ns.last_query_index and (index == last_index or reasoning_content):  # L39-40
                # L41: the strip of the reasoning, then the lstrip of the content
                reasoning = method(reasoning_content, "strip", f"messages[{index}].reasoning_content"
                                   if from_field else path)("\n")
                answer = method(content, "lstrip", path)("\n")
                if spans is not None:  # generated: what follows the generation prompt, where
                    # the turn begins with it (else what follows the header)
                    opens = generation_prompt if (
                        "<|im_start|>assistant\n<think>\n" + reasoning + "\n</think>\n\n" + answer
                    ).startswith(generation_prompt) else HEADER
                    spans.message(index, ".reasoning_content" if from_field else ".content",
                                  opens=opens)  # (else split from it)
                extend(("<|im_start|>", role, "\n<think>\n", reasoning, "\n</think>\n\n", answer))  # L41
            else:  # L42-43, L45-46
                content = need_str(content, path)
                if spans is not None:  # generated: what follows the header
                    spans.message(index, opens=HEADER)
                extend(("<|im_start|>", role, "\n", content))
            tool_calls_block(emit, message, content, index, spans)  # L48-66
            if spans is not None:
                spans.close(after="<|im_end|>")
            emit("<|im_end|>\n")  # L67
        elif role == "tool":  # L68
            tool_response(emit, messages, index, last_index, to_str(content), spans)  # L69-77

    if variables.get("add_generation_prompt", MISSING):  # L80-85
        emit(generation_prompt)
    return "".join(out)
