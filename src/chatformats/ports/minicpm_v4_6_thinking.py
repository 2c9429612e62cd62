"""Port of ``reference_templates/minicpm_v4_6_thinking.jinja`` (OpenBMB MiniCPM-V 4.6 Thinking).

Laid out like the template: the ``enable_thinking`` default (lines 1-3), the ``render_content``
macro (4-32) as :func:`_render_content`, the empty-conversation check (33-35), the system block
(36-57), the reversed scan for the last real user query (58-71, as :class:`Namespace`), the
message loop (72-137) and the generation prompt (138-145).  ``Lnn`` comments cite template lines.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import (
    MISSING,
    attr,
    contains,
    is_iterable,
    is_mapping,
    items,
    iterate,
    namespace,
    need_str,
    to_str,
    tojson,
)
from ..errors import TemplateError

_IMAGE_PAD = "<|image_pad|>"
_VIDEO_PAD = "<|video_pad|>"
# L38
_TOOLS_HEAD = "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>"
# L43-44
_TOOLS_TAIL = (
    "\n</tools>"
    "\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n"
    "</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second parameter\n"
    "that can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\n"
    "Reminder:\n- Function calls MUST follow the specified format: an inner <function=...></function> "
    "block must be nested within <tool_call></tool_call> XML tags\n- Required parameters MUST be "
    "specified\n- You may provide optional reasoning for your function call in natural language "
    "BEFORE the function call, but NOT after\n- If there is no function call available, answer the "
    "question like normal with your current knowledge and do not tell the user about function "
    "calls\n</IMPORTANT>"
)


class Namespace:
    """L58-68: ``ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1)``
    after the reversed scan.  ``multi_step_tool`` stays true when no user message's rendered,
    trimmed content is a real query (one not wrapped in ``<tool_response>...</tool_response>``)."""

    __slots__ = ("multi_step_tool", "last_query_index")

    multi_step_tool: bool
    last_query_index: int

    def __init__(self, multi_step_tool: bool, last_query_index: int) -> None:
        self.multi_step_tool = multi_step_tool
        self.last_query_index = last_query_index


def _content_path(index: int) -> str:
    return f"messages[{index}].content"


def _render_content(content: Any, is_system_content: bool, index: int, variables: Mapping[str, Any]) -> str:
    """L4-32, the ``render_content`` macro: a message content as text."""
    if type(content) is str:  # L5-6
        return content
    # L7: `content is iterable and content is not mapping` (a list, a tuple, or undefined —
    # which iterates nothing and so renders "" here rather than at L27-28)
    if is_iterable(content) and type(content) is not dict:
        namespace(variables)  # L8: the call itself (a caller's `namespace` variable shadows it)
        parts: list[str] = []  # L8: ns.parts
        for part_index, part in enumerate(content):  # L9
            tp = type(part)
            if tp is dict:
                # L10: `'image' in item` is a key test; `item.type` the item's "type"
                if "image" in part or "image_url" in part or part.get("type", MISSING) == "image":
                    if is_system_content:  # L11-13
                        raise TemplateError("System message cannot contain images.")
                    parts.append(_IMAGE_PAD)  # L14
                elif "video" in part or part.get("type", MISSING) == "video":  # L15
                    if is_system_content:  # L16-18
                        raise TemplateError("System message cannot contain videos.")
                    parts.append(_VIDEO_PAD)  # L19
                elif "text" in part:  # L20
                    parts.append(to_str(part["text"]))  # L21: item.text, then |join's str()
                else:  # L22-23
                    raise TemplateError("Unexpected item type in content.")
            else:
                # L10, L15, L20 on a non-dict: `in` is a substring test on a string, an equality
                # test on a list or tuple, and fails on a number, bool or None; `item.type` and
                # `item.text` are undefined (so == is false and the text renders "").
                path = ""
                if not (tp is str or tp is list or tp is tuple):
                    path = f"{_content_path(index)}[{part_index}]"
                if contains(part, "image", path) or contains(part, "image_url", path):
                    if is_system_content:  # L11-13
                        raise TemplateError("System message cannot contain images.")
                    parts.append(_IMAGE_PAD)  # L14
                elif contains(part, "video", path):  # L15
                    if is_system_content:  # L16-18
                        raise TemplateError("System message cannot contain videos.")
                    parts.append(_VIDEO_PAD)  # L19
                elif contains(part, "text", path):  # L20
                    parts.append("")  # L21: item.text is undefined, str() of it is ""
                else:  # L22-23
                    raise TemplateError("Unexpected item type in content.")
        return "\n".join(parts)  # L26
    if content is None or content is MISSING:  # L27-28
        return ""
    raise TemplateError("Unexpected content type.")  # L29-30


def _scan_last_query(messages: Sequence[Any], variables: Mapping[str, Any]) -> Namespace:
    """L58-68, the reversed scan.  Each user message's content is rendered (so its errors fire
    here, last message first) until the first real query is found."""
    n = len(messages)
    for index in range(n - 1, -1, -1):  # L59-60
        message = messages[index]
        if type(message) is dict and message.get("role", MISSING) == "user":  # L61
            content = _render_content(message.get("content", MISSING), False, index, variables).strip()  # L62
            if not (content.startswith("<tool_response>") and content.endswith("</tool_response>")):  # L63
                return Namespace(multi_step_tool=False, last_query_index=index)  # L64-65
    return Namespace(multi_step_tool=True, last_query_index=n - 1)


def _tool_call_name(tool_call: Any, unwrapped: bool, index: int, call_index: int) -> str:
    """L103/105/108: ``'...<function=' + tool_call.name + '>\n'`` needs a string name."""
    name = attr(tool_call, "name")
    if type(name) is str:
        return name
    where = ".function" if unwrapped else ""
    return need_str(name, f"messages[{index}].tool_calls[{call_index}]{where}.name")


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime) -> str:
    enable_thinking = variables.get("enable_thinking", MISSING)
    if enable_thinking is MISSING:  # L1-3
        enable_thinking = True
    tools = variables.get("tools", MISSING)
    out: list[str] = []
    emit = out.append
    # one `{{- a + content + b }}` is emitted as its pieces: the same text without copying a
    # long content through each `+`
    emit_pieces = out.extend

    if not messages:  # L33-35
        raise TemplateError("No messages provided.")

    # L36-57: the system block.
    first = messages[0]
    first_role = first.get("role", MISSING) if type(first) is dict else MISSING
    if tools and is_iterable(tools) and not is_mapping(tools):  # L36
        emit(_TOOLS_HEAD)  # L37-38
        for tool in iterate(tools, "tools"):  # L39-42
            emit("\n")
            emit(tojson(tool))
        emit(_TOOLS_TAIL)  # L43-44
        if first_role == "system":  # L45-50
            content = _render_content(first.get("content", MISSING), True, 0, variables).strip()
            if content:
                emit_pieces(("\n\n", content))
        emit("<|im_end|>\n")  # L51
    else:
        if first_role == "system":  # L53-56
            content = _render_content(first.get("content", MISSING), True, 0, variables).strip()
            emit_pieces(("<|im_start|>system\n", content, "<|im_end|>\n"))

    namespace(variables)  # L58: the call itself (a caller's `namespace` variable shadows it)
    ns = _scan_last_query(messages, variables)  # L58-68
    if ns.multi_step_tool:  # L69-71
        raise TemplateError("No user query found in messages.")

    last = len(messages) - 1
    for index, message in enumerate(messages):  # L72
        if type(message) is dict:
            role = message.get("role", MISSING)
            raw_content = message.get("content", MISSING)
        else:  # `.role` and `.content` of a non-dict are undefined
            role = MISSING
            raw_content = MISSING
        # L73: every message's content is rendered, whatever its role (a string as it is)
        if type(raw_content) is str:
            content = raw_content.strip()
        else:
            content = _render_content(raw_content, False, index, variables).strip()
        if role == "system":  # L74
            if index != 0:  # L75-77: not loop.first
                raise TemplateError("System message must be at the beginning.")
        elif role == "user":  # L78-79
            emit_pieces(("<|im_start|>user\n", content, "<|im_end|>\n"))
        elif role == "assistant":  # L80
            reasoning_content = ""  # L81
            message_reasoning = message.get("reasoning_content", MISSING)
            if type(message_reasoning) is str:  # L82-83
                reasoning_content = message_reasoning
            elif "</think>" in content:  # L85-88 (`content.split('</think>')` computed once)
                halves = content.split("</think>")
                reasoning_content = halves[0].rstrip("\n").split("<think>")[-1].lstrip("\n")  # L86
                content = halves[-1].lstrip("\n")  # L87
            reasoning_content = reasoning_content.strip()  # L90
            if index > ns.last_query_index:  # L91-92
                emit_pieces(("<|im_start|>assistant\n<think>\n", reasoning_content, "\n</think>\n\n", content))
            else:  # L93-94
                emit_pieces(("<|im_start|>assistant\n", content))
            tool_calls = message.get("tool_calls", MISSING)
            # L96
            if tool_calls and is_iterable(tool_calls) and not is_mapping(tool_calls):
                for call_index, tool_call in enumerate(tool_calls):  # L97
                    unwrapped = type(tool_call) is dict and "function" in tool_call
                    if unwrapped:  # L98-100: `tool_call.function is defined` (even None)
                        tool_call = tool_call["function"]
                    name = _tool_call_name(tool_call, unwrapped, index, call_index)
                    if call_index == 0:  # L101
                        if content.strip():  # L102-103
                            emit("\n\n<tool_call>\n<function=" + name + ">\n")
                        else:  # L104-105
                            emit("<tool_call>\n<function=" + name + ">\n")
                    else:  # L107-108
                        emit("\n<tool_call>\n<function=" + name + ">\n")
                    # L110: tool_call is a dict here (a non-dict has no name and failed above)
                    arguments = tool_call.get("arguments", MISSING)
                    if arguments is not MISSING:  # `is defined`
                        # The path of the value in the input (`.function` when L98-100 unwrapped it)
                        where = f"messages[{index}].tool_calls[{call_index}]{'.function' if unwrapped else ''}"
                        if type(arguments) is not dict:  # L111: |items of a non-mapping fails
                            items(arguments, f"{where}.arguments")
                        for args_name, args_value in arguments.items():  # L111
                            if type(args_name) is not str:  # L112
                                need_str(args_name, f"{where}.arguments key {args_name!r}")
                            emit("<parameter=" + args_name + ">\n")
                            vt = type(args_value)
                            # L113: `args_value | tojson | safe if args_value is mapping or
                            # (args_value is sequence and args_value is not string) else
                            # args_value | string` — the filters bind tighter than if/else
                            if vt is dict or vt is list or vt is tuple:
                                emit(tojson(args_value))  # L114
                            else:
                                emit(to_str(args_value))  # L114
                            emit("\n</parameter>\n")  # L115
                    emit("</function>\n</tool_call>")  # L118
            emit("<|im_end|>\n")  # L121
        elif role == "tool":  # L122
            # L123: loop.previtem is undefined (false) for the first message.  The truthiness
            # test is kept literally; a falsy previous message ({}, "", None) cannot get here,
            # as it has no role and already raised "Unexpected message role." (L134-135).
            previous = messages[index - 1] if index else MISSING
            if previous and attr(previous, "role") != "tool":
                emit("<|im_start|>user")  # L124
            emit_pieces(("\n<tool_response>\n", content, "\n</tool_response>"))  # L126-128
            if index != last and attr(messages[index + 1], "role") != "tool":  # L129-130
                emit("<|im_end|>\n")
            elif index == last:  # L131-132: the template's redundant `elif loop.last`
                emit("<|im_end|>\n")
        else:  # L134-135
            raise TemplateError("Unexpected message role.")

    if variables.get("add_generation_prompt", MISSING):  # L138
        emit("<|im_start|>assistant\n")  # L139
        # L140: `enable_thinking is defined` always holds after L1-3; `is false` is identity
        if enable_thinking is not MISSING and enable_thinking is False:
            emit("<think>\n\n</think>\n\n")  # L141
        else:
            emit("<think>\n")  # L143
    return "".join(out)
