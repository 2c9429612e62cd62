"""Port of ``reference_templates/llama3_2_vision.jinja``.

Meta Llama 3.2 11B Vision Instruct, the source-document variant (Meta's September 2024 logic
with reworded tool instructions).  Laid out like the template: the variable defaults (lines
1-22), the system-message extraction (24-30), the image scan (32-40, as :class:`ImageNamespace`),
the images-and-system check (42-45), the system block (47-68), the tools in the first user
message (70-89), the message loop (91-126) and the generation prompt (128-131).  ``Lnn``
comments cite template lines.

Whitespace: the blank lines 23, 31, 41, 46, 69, 90 and 127 are text that no ``{%-`` strips,
because each is followed by a ``{# ... #}`` comment (lines 24, 32, 42, 47, 70, 91, 128) that has
no whitespace control; ``trim_blocks`` removes only the newline after each comment.  So each
emits one ``"\\n"`` into the prompt, unconditionally, at its place in the template.

A caller variable named like a global the template calls (``strftime_now``,
``raise_exception``, ``namespace``) shadows it, as in jinja2: the render core applies that rule
for every format (``chatformats._core.call_port``); this port calls ``namespace`` where the
template does (L33).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import (
    MISSING,
    attr,
    concat_error,
    contains,
    item,
    iterate,
    length,
    namespace,
    need_str,
    strftime_now,
    to_str,
    tojson,
    tojson_indented,
    trim,
)
from ..errors import TemplateError

_NL = "\n"  # one of the blank lines 23, 31, 41, 46, 69, 90, 127
# L49-54
_SYSTEM_HEAD = "<|start_header_id|>system<|end_header_id|>\n\n"
_ENVIRONMENT = "Environment: ipython\n"
_KNOWLEDGE = "Cutting Knowledge Date: December 2023\n"
# L57-60
_SYSTEM_TOOLS_HEAD = (
    "You have access to the following functions. "
    "To call a function, respond with JSON for a function call."
    'Use the format {"name": function name, "parameters": dictionary of arguments}.'
    "Do not use variables.\n\n"
)
# L79-83
_USER_TOOLS_HEAD = (
    "<|start_header_id|>user<|end_header_id|>\n\n"
    "Given these functions, respond with a JSON for a function call "
    "that best addresses the prompt.\n\n"
    'Format: {"name": function name, "parameters": dictionary of arguments}.'
    "Do not use variables.\n\n"
)
_EOT = "<|eot_id|>"
_ASSISTANT_HEAD = "<|start_header_id|>assistant<|end_header_id|>\n\n"
_IPYTHON_HEAD = "<|start_header_id|>ipython<|end_header_id|>\n\n"
_IMAGE = "<|image|>"
_TOOL_ROLES = ("ipython", "tool")  # L93

_MSG_IMAGES = "Prompting with images is incompatible with system messages."
_MSG_NO_FIRST_USER = "Cannot put tools in the first user message when there's no first user message!"
_MSG_SINGLE_CALL = "This model only supports single tool-calls at once!"


class ImageNamespace:
    """L33-40: ``image_ns = namespace(has_images=false)`` after the scan: true when some list
    content item (of a message after the system message) is a mapping whose ``type`` is
    ``"image"``."""

    __slots__ = ("has_images",)

    has_images: bool

    def __init__(self, has_images: bool) -> None:
        self.has_images = has_images


def scan_images(messages: Sequence[Any], offset: int) -> ImageNamespace:
    """L33-40: ``for message in messages: for content in message['content']: if
    content['type'] == 'image'``.

    Jinja iterates every content, so a string content is walked character by character (and a
    character's ``['type']`` is undefined), a mapping by its keys (strings again); only list and
    tuple items can be images.  The port inspects only those, and fails where Jinja's iteration
    fails: a content that is ``None``, a number or a boolean.  A missing content and a message
    that is not a mapping (``message['content']`` undefined) iterate nothing.
    """
    has_images = False
    for index, message in enumerate(messages):
        if type(message) is not dict:
            continue  # L35: message['content'] of a non-mapping is undefined
        content = message.get("content", MISSING)
        tp = type(content)
        if tp is list or tp is tuple:
            if not has_images:
                for part in content:
                    # L36: content['type'] == 'image' (undefined for anything but a mapping)
                    if type(part) is dict and part.get("type", MISSING) == "image":
                        has_images = True  # L37
                        break
        elif tp is str or tp is dict or content is MISSING:
            pass  # iterates characters / keys / nothing: never an image
        else:
            iterate(content, f"messages[{index + offset}].content")  # raises
    return ImageNamespace(has_images=has_images)


def _path(index: int, suffix: str = "") -> str:
    """The path of ``messages[index]`` (built only when an error names it)."""
    return f"messages[{index}]{suffix}"


def len_or_fail(tool_calls: Any, index: int) -> int:
    """L108: ``message.tool_calls | length`` (0 for undefined; ``None``, numbers fail)."""
    tp = type(tool_calls)
    if tp is list or tp is tuple or tp is str or tp is dict:
        return len(tool_calls)
    return length(tool_calls, _path(index, ".tool_calls"))


def _tools_json(tools: Any, emit: Any) -> None:
    """L61-64 and L84-87: ``for t in tools: t|tojson(indent=4) + "\\n\\n"``."""
    for t in iterate(tools, "tools"):
        emit(tojson_indented(t, 4))
        emit("\n\n")


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime) -> str:
    get = variables.get
    out: list[str] = []
    emit = out.append
    emit_all = out.extend

    emit(to_str(get("bos_token", MISSING)))  # L1 (lines 2-3 are stripped by L4's `{%-`)

    tools = get("tools", MISSING)
    custom_tools = get("custom_tools", MISSING)
    if custom_tools is not MISSING:  # L4-6
        tools = custom_tools
    tools_in_user_message = get("tools_in_user_message", MISSING)
    if tools_in_user_message is MISSING:  # L8-10
        tools_in_user_message = True
    date_string = get("date_string", MISSING)
    if date_string is MISSING:  # L12-18
        # L13: `strftime_now is defined` is always true: the environment defines it, and a
        # caller's variable of that name (any JSON value, None included) is defined too.
        date_string = strftime_now(now, "%d %b %Y")  # L14
        # L16 (the "26 Jul 2024" fallback) is never reached.
    if tools is MISSING:  # L20-22
        tools = None

    emit(_NL)  # L23
    # L25-30: extract the system message.
    first = item(messages, 0, "messages")
    if item(first, "role", "messages[0]") == "system":
        system_message = trim(item(first, "content"))  # L26
        messages = messages[1:]  # L27
        offset = 1
    else:
        system_message = ""  # L29
        offset = 0

    emit(_NL)  # L31
    namespace(variables)  # L33: the call itself (a caller's `namespace` variable shadows it)
    image_ns = scan_images(messages, offset)  # L33-40

    emit(_NL)  # L41
    if image_ns.has_images and system_message != "":  # L43-45
        raise TemplateError(_MSG_IMAGES)

    emit(_NL)  # L46
    if not image_ns.has_images:  # L48-68: the system block
        emit(_SYSTEM_HEAD)
        if tools is not None:  # L50-52
            emit(_ENVIRONMENT)
        emit(_KNOWLEDGE)  # L53
        emit("Today Date: " + need_str(date_string, "date_string") + "\n\n")  # L54
        if tools is not None and not tools_in_user_message:  # L56-65
            emit(_SYSTEM_TOOLS_HEAD)
            _tools_json(tools, emit)
        emit(system_message)  # L66
        emit(_EOT)  # L67

    emit(_NL)  # L69
    if tools_in_user_message and tools is not None:  # L71-89: tools in the first user message
        if len(messages) != 0:  # L72
            first_user_message = trim(item(messages[0], "content"))  # L73: whatever its role
            messages = messages[1:]  # L74
            offset += 1
        else:  # L75-76
            raise TemplateError(_MSG_NO_FIRST_USER)
        emit(_USER_TOOLS_HEAD)  # L79-83
        _tools_json(tools, emit)  # L84-87
        emit(first_user_message + _EOT)  # L88

    emit(_NL)  # L90
    for index, message in enumerate(messages, offset):  # L92-126
        if type(message) is dict:
            role = message.get("role", MISSING)
            has_tool_calls = "tool_calls" in message
        else:  # message.role is undefined; `in` is a substring/element test, or fails
            role = MISSING
            has_tool_calls = contains(message, "tool_calls", _path(index))
        # L93: not (message.role in ['ipython', 'tool'] or 'tool_calls' in message)
        if not (role in _TOOL_ROLES or has_tool_calls):
            if type(role) is not str:  # L94: message['role'] (undefined for a non-mapping)
                raise concat_error(role, _path(index, ".role"))
            content = message.get("content", MISSING) if type(message) is dict else MISSING
            if type(content) is str:  # L95-96
                # pieces, not +: a long content is copied once, by the final join
                emit_all(("<|start_header_id|>", role, "<|end_header_id|>\n\n", content, _EOT))
                continue
            emit("<|start_header_id|>" + role + "<|end_header_id|>\n\n")
            # L97-105 (the L35 scan already failed on a content that is not iterable)
            if type(content) is not list and type(content) is not tuple:
                content = iterate(content, _path(index, ".content"))  # a mapping's keys, or nothing
            for part in content:
                if type(part) is dict:  # content['type'] is undefined for anything else
                    part_type = part.get("type", MISSING)
                    if part_type == "image":  # L99-100
                        emit(_IMAGE)
                    elif part_type == "text":  # L101-102
                        text = part.get("text", MISSING)
                        emit(text if type(text) is str else to_str(text))
            emit(_EOT)  # L106
        elif has_tool_calls:  # L107: the same test again, kept as written
            tool_calls = message.get("tool_calls", MISSING) if type(message) is dict else MISSING
            if len_or_fail(tool_calls, index) != 1:  # L108-110
                raise TemplateError(_MSG_SINGLE_CALL)
            # L111: message.tool_calls[0].function
            first_call = item(tool_calls, 0)
            if type(first_call) is dict:
                tool_call = first_call.get("function", MISSING)
            else:
                tool_call = attr(first_call, "function", _path(index, ".tool_calls[0]"))
            if type(tool_call) is dict:
                name = tool_call.get("name", MISSING)
                arguments = tool_call.get("arguments", MISSING)
            else:
                name = attr(tool_call, "name", _path(index, ".tool_calls[0].function"))
                arguments = MISSING
            if type(name) is not str:  # L113: '{"name": "' + tool_call.name + ...
                raise concat_error(name, _path(index, ".tool_calls[0].function.name"))
            emit(_ASSISTANT_HEAD + '{"name": "' + name + '", "parameters": ')  # L112-113
            emit(tojson(arguments))  # L114 (undefined arguments fail here)
            emit("}" + _EOT)  # L115-116
        elif role in ("tool", "ipython"):  # L117: always true here, kept as written
            content = message.get("content", MISSING)
            tp = type(content)
            # L119: content is mapping or content is iterable (a string too, so it is quoted)
            if tp is str or tp is dict or tp is list or tp is tuple or content is MISSING:
                # L118, L120 (undefined content fails in tojson), L124
                emit(_IPYTHON_HEAD + tojson(content) + _EOT)
            else:  # L122: unreachable, the L35 scan failed on such a content
                emit(_IPYTHON_HEAD + to_str(content) + _EOT)

    emit(_NL)  # L127
    if get("add_generation_prompt", MISSING):  # L129-131
        emit(_ASSISTANT_HEAD)
    return "".join(out)
