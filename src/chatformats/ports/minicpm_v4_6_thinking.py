"""Port of ``reference_templates/minicpm_v4_6_thinking.jinja`` (OpenBMB MiniCPM-V 4.6 Thinking).

Laid out like the template: the ``enable_thinking`` default (lines 1-3), the ``render_content``
macro (4-32) as :func:`render_content`, the empty-conversation check (33-35), the system block
(36-57), the reversed scan for the last real user query (58-71: :func:`scan`, giving a
:class:`Namespace`), the message loop (72-137, the tool calls of an assistant turn in
:func:`tool_calls_block`) and the generation prompt (138-145).  ``Lnn`` comments cite template
lines.

Spans (``chatformats.render_spans``): a content the macro renders from a list of parts is
several sources (each part's text, ``messages[i].content[k].text``; the image and video pads
and the ``\\n`` between parts are the template's), and what the template emits is a slice of it
(``|trim``, the ``</think>`` split): ``_spans.Parts`` says where each slice came from.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple

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
    think_split,
    to_str,
    tojson,
)
from .._record import Record, setters
from .._spans import Recorder, think_sources, trimmed_content
from ..errors import TemplateError

_IMAGE_PAD = "<|image_pad|>"
# L139-143: where the generation prompt leaves the model (an assistant turn after the last user
# query is generated from there on)
_PROMPT = "<|im_start|>assistant\n"
_PROMPT_THINKING = _PROMPT + "<think>\n"
_PROMPT_NOT_THINKING = _PROMPT + "<think>\n\n</think>\n\n"
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


class _NamespaceFields:
    """The fields of :class:`Namespace`, written while :func:`_namespace` builds one."""

    __slots__ = ("multi_step_tool", "last_query_index")

    multi_step_tool: bool
    last_query_index: int


class Namespace(Record, _NamespaceFields):
    """L58-68: ``ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1)``
    after the reversed scan.  ``multi_step_tool`` stays true when no user message's rendered,
    trimmed content is a real query (one not wrapped in ``<tool_response>...</tool_response>``)."""

    __slots__ = ()


#: A record built without its constructor; its fields are then written through the
#: slots' setters (assigning ``__class__`` would raise an audit event on every render).
_new = object.__new__
_set_namespace_multi_step_tool = setters(Namespace)["multi_step_tool"]
_set_namespace_last_query_index = setters(Namespace)["last_query_index"]


def _namespace(multi_step_tool: bool, last_query_index: int) -> Namespace:
    """A :class:`Namespace` built without the record's constructor (it is built on every render): the
    fields are written through the slots' setters, bound once at import; no ``__class__``
    assignment, which raises an audit event."""
    made = _new(Namespace)
    _set_namespace_multi_step_tool(made, multi_step_tool)
    _set_namespace_last_query_index(made, last_query_index)
    return made


def render_content(content: Any, is_system_content: bool, index: int, variables: Mapping[str, Any],
                   record: list[tuple[str, str | None]] | None = None) -> str:
    """L4-32, the ``render_content`` macro: a message content as text.

    With ``record`` (spans), each part's ``(text, path)`` is appended to it: the path of a
    part's text, ``None`` for a pad or an empty text."""
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
                kind = part.get("type", MISSING)  # item.type: the dict's "type"
            elif tp is str or tp is list or tp is tuple:
                kind = MISSING  # item.type of a string, list or tuple is undefined (never == 'image')
            else:  # L10: `'image' in item` fails on a number, bool or None
                contains(part, "image", f"messages[{index}].content[{part_index}]")
            # L10, L15, L20: `in` is a key test on a dict, a substring test on a string, an
            # equality test on a list or tuple
            text = False
            if "image" in part or "image_url" in part or kind == "image":
                if is_system_content:  # L11-13
                    raise TemplateError("System message cannot contain images.")
                piece = _IMAGE_PAD  # L14
            elif "video" in part or kind == "video":  # L15
                if is_system_content:  # L16-18
                    raise TemplateError("System message cannot contain videos.")
                piece = _VIDEO_PAD  # L19
            elif "text" in part:  # L20
                # L21: `item.text` (undefined, so "", unless a dict), then |join's str()
                piece = to_str(part["text"]) if tp is dict else ""
                text = tp is dict
            else:  # L22-23
                raise TemplateError("Unexpected item type in content.")
            parts.append(piece)
            if record is not None:
                record.append((piece, f"messages[{index}].content[{part_index}].text" if text else None))
        return "\n".join(parts)  # L26
    if content is None or content is MISSING:  # L27-28
        return ""
    raise TemplateError("Unexpected content type.")  # L29-30


def scan(messages: Sequence[Any], variables: Mapping[str, Any]) -> Namespace:
    """L58-68, the reversed scan.  Each user message's content is rendered (so its errors fire
    here, last message first) until the first real query is found."""
    n = len(messages)
    for index in range(n - 1, -1, -1):  # L59-60
        message = messages[index]
        if type(message) is dict and message.get("role", MISSING) == "user":  # L61
            content = render_content(message.get("content", MISSING), False, index, variables).strip()  # L62
            if not (content.startswith("<tool_response>") and content.endswith("</tool_response>")):  # L63
                return _namespace(multi_step_tool=False, last_query_index=index)  # L64-65
    return _namespace(multi_step_tool=True, last_query_index=n - 1)


def _tool_call_name(tool_call: Any, unwrapped: bool, index: int, call_index: int) -> str:
    """L103/105/108: ``'...<function=' + tool_call.name + '>\n'`` needs a string name."""
    name = attr(tool_call, "name")
    if type(name) is str:
        return name
    where = ".function" if unwrapped else ""
    return need_str(name, f"messages[{index}].tool_calls[{call_index}]{where}.name")


def _call_path(index: int, call_index: int, unwrapped: bool) -> str:
    """The path of a tool call in the input (``.function`` when L98-100 unwrapped it)."""
    return f"messages[{index}].tool_calls[{call_index}]{'.function' if unwrapped else ''}"


def _key(key: str) -> str:
    """A dict key in a path: ``.name`` for an identifier, else ``['a key']``."""
    return f".{key}" if key.isidentifier() else f"[{key!r}]"


def tool_calls_block(out: list[str], tool_calls: Iterable[Any], content: str, index: int,
                     spans: Recorder | None) -> None:
    """L97-119: each tool call as ``<tool_call>`` with a ``<parameter=...>`` per argument."""
    emit = out.append
    extend = out.extend
    for call_index, tool_call in enumerate(tool_calls):  # L97
        unwrapped = type(tool_call) is dict and "function" in tool_call
        if unwrapped:  # L98-100: `tool_call.function is defined` (even None)
            tool_call = tool_call["function"]
        name = _tool_call_name(tool_call, unwrapped, index, call_index)
        if spans is not None:
            where = _call_path(index, call_index, unwrapped)
            spans.line(where + ".name")
            args_index = 0
        if call_index == 0:  # L101
            if content.strip():  # L102-103
                extend(("\n\n<tool_call>\n<function=", name, ">\n"))
            else:  # L104-105
                extend(("<tool_call>\n<function=", name, ">\n"))
        else:  # L107-108
            extend(("\n<tool_call>\n<function=", name, ">\n"))
        # L110: tool_call is a dict here (a non-dict has no name and failed above)
        arguments = tool_call.get("arguments", MISSING)
        if arguments is not MISSING:  # `is defined`
            if type(arguments) is not dict:  # L111: |items of a non-mapping fails
                items(arguments, _call_path(index, call_index, unwrapped) + ".arguments")
            for args_name, args_value in arguments.items():  # L111
                if type(args_name) is not str:  # L112
                    need_str(args_name, f"{_call_path(index, call_index, unwrapped)}.arguments key {args_name!r}")
                vt = type(args_value)
                # L113: `args_value | tojson | safe if args_value is mapping or (args_value is
                # sequence and args_value is not string) else args_value | string` — the filters
                # bind tighter than if/else
                if vt is dict or vt is list or vt is tuple:
                    value = tojson(args_value)
                else:
                    value = to_str(args_value)
                if spans is not None:  # the name: the loop's args_index-th key; the value: the key's value
                    spans.line(f"{where}.arguments[{args_index}]", f"{where}.arguments{_key(args_name)}")
                    args_index += 1
                extend(("<parameter=", args_name, ">\n", value, "\n</parameter>\n"))  # L112-115
        emit("</function>\n</tool_call>")  # L118


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, each assistant turn's generated range starts where the
    generation prompt (L138-144) leaves the model: after the header for a turn up to the last
    user query; for a later turn, after its ``<think>\\n``, or with ``enable_thinking`` false
    after its ``<think>\\n\\n</think>\\n\\n`` (empty reasoning) or after the header (else).  It
    ends after the turn's ``<|im_end|>``."""
    enable_thinking = variables.get("enable_thinking", MISSING)
    if enable_thinking is MISSING:  # L1-3
        enable_thinking = True
    tools = variables.get("tools", MISSING)
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend
    record: list[tuple[str, str | None]] | None = None  # spans: the parts render_content rendered

    if not messages:  # L33-35
        raise TemplateError("No messages provided.")

    # L36-57: the system block.
    first = messages[0]
    first_role = first.get("role", MISSING) if type(first) is dict else MISSING
    if tools and is_iterable(tools) and not is_mapping(tools):  # L36
        emit(_TOOLS_HEAD)  # L37-38
        for tool_index, tool in enumerate(iterate(tools, "tools")):  # L39-42
            emit("\n")
            if spans is not None:
                spans.source(f"tools[{tool_index}]")
            emit(tojson(tool))
        emit(_TOOLS_TAIL)  # L43-44
        if first_role == "system":  # L45-50
            raw_content = first.get("content", MISSING)
            if spans is not None:
                record = []
            rendered = render_content(raw_content, True, 0, variables, record)
            content = rendered.strip()
            if content:
                if spans is not None:
                    spans.line(trimmed_content(0, raw_content, record, rendered, content))
                extend(("\n\n", content))
        emit("<|im_end|>\n")  # L51
    else:
        if first_role == "system":  # L53-56
            raw_content = first.get("content", MISSING)
            if spans is not None:
                record = []
            rendered = render_content(raw_content, True, 0, variables, record)
            content = rendered.strip()
            if spans is not None:
                spans.line(trimmed_content(0, raw_content, record, rendered, content))
            extend(("<|im_start|>system\n", content, "<|im_end|>\n"))

    namespace(variables)  # L58: the call itself (a caller's `namespace` variable shadows it)
    ns = scan(messages, variables)  # L58-68
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
            rendered = raw_content
        else:
            if spans is not None:
                record = []
            rendered = render_content(raw_content, False, index, variables, record)
        content = rendered.strip()
        if role == "system":  # L74
            if index != 0:  # L75-77: not loop.first
                raise TemplateError("System message must be at the beginning.")
        elif role == "user":  # L78-79
            # The user and assistant branches emit their header as one literal (the branch has
            # tested the role, so the text is the same); spans emit the role as a piece of its
            # own (Recorder.role), and the header's rest in the literal's place.
            header = "<|im_start|>user\n"  # '<|im_start|>' + message.role + '\n'
            if spans is not None:
                header = spans.role(index, "<|im_start|>", role, "\n", index if type(raw_content) is str
                                    else trimmed_content(index, raw_content, record, rendered, content))
            extend((header, content, "<|im_end|>\n"))  # L79
        elif role == "assistant":  # L80
            reasoning_content = ""  # L81
            message_reasoning = message.get("reasoning_content", MISSING)
            if type(message_reasoning) is str:  # L82-83
                reasoning_content = message_reasoning
            elif "</think>" in content:  # L85-88
                reasoning_content, content = think_split(content)
            reasoning_content = reasoning_content.strip()  # L90
            if index > ns.last_query_index:  # L91-92
                header = "<|im_start|>assistant\n<think>\n"  # '<|im_start|>' + message.role + '\n<think>\n'
                if spans is not None:  # generated: what follows the generation prompt (L138-144)
                    reasoning_source, source = think_sources(
                        index, raw_content, record, rendered, message_reasoning, reasoning_content, content)
                    header = spans.role(
                        index, "<|im_start|>", role, "\n<think>\n", reasoning_source, source,
                        opens=_PROMPT_THINKING if enable_thinking is not False
                        else _PROMPT_NOT_THINKING if not reasoning_content
                        else _PROMPT)  # (a think block the prompt does not match: all of it)
                extend((header, reasoning_content, "\n</think>\n\n", content))  # L92
            else:  # L93-94
                header = "<|im_start|>assistant\n"  # '<|im_start|>' + message.role + '\n'
                if spans is not None:  # generated: after the header
                    source = (index if content else None) if type(raw_content) is str else think_sources(
                        index, raw_content, record, rendered, message_reasoning, "", content)[1]
                    header = spans.role(index, "<|im_start|>", role, "\n", source, opens=header)
                extend((header, content))  # L94
            tool_calls = message.get("tool_calls", MISSING)
            if tool_calls and is_iterable(tool_calls) and not is_mapping(tool_calls):  # L96
                tool_calls_block(out, tool_calls, content, index, spans)  # L97-119
            if spans is not None:
                spans.close(after="<|im_end|>")
            emit("<|im_end|>\n")  # L121
        elif role == "tool":  # L122
            # L123: loop.previtem is undefined (false) for the first message.  The truthiness
            # test is kept literally; a falsy previous message ({}, "", None) cannot get here,
            # as it has no role and already raised "Unexpected message role." (L134-135).
            previous = messages[index - 1] if index else MISSING
            if previous and attr(previous, "role") != "tool":
                emit("<|im_start|>user")  # L124
            if spans is not None:
                spans.line(trimmed_content(index, raw_content, record, rendered, content))
            extend(("\n<tool_response>\n", content, "\n</tool_response>"))  # L126-128
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
