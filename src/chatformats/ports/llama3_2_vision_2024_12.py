"""Port of ``reference_templates/llama3_2_vision_2024_12.jinja``.

Meta Llama 3.2 11B Vision Instruct, the template the model's ``chat_template.json`` carries since
December 2024: the September 2024 template (``ports/llama3_2_vision_2024_09.py``) with one rule
changed.  The September text leaves the system block out whenever a message carries an image and
raises "Prompting with images is incompatible with system messages." when a system message comes
with images; this revision records whether the caller supplied a system message
(``user_supplied_system_message``, L23 and L26) and writes the system block when the caller
supplied one or no message carries an image (L40), so a system message renders alongside images
and nothing raises.  Everything else is the September text line for line: this template's
lines 1-22 are its 1-22, 24-25 its 23-24, 27-38 its 25-36, and 41-119 its 44-122 (its 37-43,
the raise and the old condition, became 39-40).

Laid out like the template: the variable defaults (lines 1-17), the system-message extraction
(19-27), the image scan (29-37, as :class:`Namespace`, from :func:`scan`), the system block
(39-58), the tools in the first user message (60-79), the message loop (81-116) and the
generation prompt (117-119).  ``Lnn`` comments cite template lines.

Whitespace: every statement and comment strips what precedes it (``{%-``, ``{#-``, ``{{-``), so the
blank lines 18, 28, 38, 59 and 80 emit nothing, nor do the six spaces after line 30's tag
(``{% set image_ns ... %}      ``, stripped by line 31's ``{%-``).

Spans: each assistant turn's generated range starts after its
``<|start_header_id|>assistant<|end_header_id|>\\n\\n`` and ends after its ``<|eot_id|>``: the
turns of role ``assistant`` (L82-95) and every tool-call turn (L96-106, which the template writes
under the assistant header whatever the message's role).

A caller variable named like a global the template calls (``strftime_now``,
``raise_exception``, ``namespace``) shadows it, as in jinja2: the render core applies that rule
for every format (``chatformats._core.call_port``); this port calls ``namespace`` where the
template does (L30).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterable, Mapping, Sequence

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
from .._spans import Recorder
from ..errors import TemplateError

# L41-45
_SYSTEM_HEAD = "<|start_header_id|>system<|end_header_id|>\n\n"
_ENVIRONMENT = "Environment: ipython\n"
_KNOWLEDGE = "Cutting Knowledge Date: December 2023\n"
_EOT = "<|eot_id|>"
_ASSISTANT_HEAD = "<|start_header_id|>assistant<|end_header_id|>\n\n"  # L101, L118
_IPYTHON_HEAD = "<|start_header_id|>ipython<|end_header_id|>\n\n"  # L108
_IMAGE = "<|image|>"  # L89
_TOOL_ROLES = ("ipython", "tool")  # L82: message.role == 'ipython' or message.role == 'tool'

_SYSTEM_TOOLS = (
    "You have access to the following functions. To call a function, please respond with JSON for a function call."  # L48
    'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.'  # L49
    "Do not use variables.\n\n"  # L50
)
_USER_TOOLS = (
    "<|start_header_id|>user<|end_header_id|>\n\n"  # L69
    "Given the following functions, please respond with a JSON for a function call "  # L70
    "with its proper arguments that best answers the given prompt.\n\n"  # L71
    'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.'  # L72
    "Do not use variables.\n\n"  # L73
)

_MSG_NO_FIRST_USER = "Cannot put tools in the first user message when there's no first user message!"  # L67
_MSG_SINGLE_CALL = "This model only supports single tool-calls at once!"  # L98

Emit = Callable[[str], None]
Extend = Callable[[Iterable[str]], None]


class Namespace:
    """L30-37: ``image_ns = namespace(has_images=false)`` after the scan: true when some list
    content item (of a message after the system message) is a mapping whose ``type`` is
    ``"image"``."""

    __slots__ = ("has_images",)

    has_images: bool

    def __init__(self, has_images: bool) -> None:
        self.has_images = has_images


def scan(messages: Sequence[Any], offset: int) -> Namespace:
    """L31-37: ``for message in messages: for content in message['content']: if
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
            continue  # L32: message['content'] of a non-mapping is undefined
        content = message.get("content", MISSING)
        tp = type(content)
        if tp is list or tp is tuple:
            if not has_images:
                for part in content:
                    # L33: content['type'] == 'image' (undefined for anything but a mapping)
                    if type(part) is dict and part.get("type", MISSING) == "image":
                        has_images = True  # L34
                        break
        elif tp is str or tp is dict or content is MISSING:
            pass  # iterates characters / keys / nothing: never an image
        else:
            iterate(content, f"messages[{index + offset}].content")  # raises
    return Namespace(has_images=has_images)


def _path(index: int, suffix: str = "") -> str:
    """The path of ``messages[index]`` (built only when an error names it)."""
    return f"messages[{index}]{suffix}"


def tools_json(extend: Extend, tools: Any, variables: Mapping[str, Any], spans: Recorder | None) -> None:
    """L51-54 and L74-77: ``for t in tools: t|tojson(indent=4) + "\\n\\n"``.  Each tool's JSON
    comes from the caller's ``custom_tools`` when it is defined (L2-4: it replaces ``tools``),
    else from ``tools``."""
    for tool_index, t in enumerate(iterate(tools, "tools")):
        if spans:
            source = "custom_tools" if "custom_tools" in variables else "tools"
            spans.source(f"{source}[{tool_index}]")
        extend((tojson_indented(t, 4), "\n\n"))


def content_parts(emit: Emit, content: Any, index: int, spans: Recorder | None) -> None:
    """L86-93: a content that is not a string, item by item: ``<|image|>`` for an image, the
    text of a text item, nothing for anything else.  (The L32 scan already failed on a content
    that is not iterable.)"""
    if type(content) is not list and type(content) is not tuple:
        content = iterate(content, _path(index, ".content"))  # a mapping's keys, or nothing
    for part_index, part in enumerate(content):
        if type(part) is dict:  # content['type'] is undefined for anything else
            part_type = part.get("type", MISSING)
            if part_type == "image":  # L88-89
                emit(_IMAGE)
            elif part_type == "text":  # L90-91
                text = part.get("text", MISSING)
                if spans:
                    spans.source(f"messages[{index}].content[{part_index}].text")
                emit(text if type(text) is str else to_str(text))


def tool_call_turn(extend: Extend, message: Any, index: int, spans: Recorder | None) -> None:
    """L97-106: the message's single tool call as ``{"name": ..., "parameters": ...}`` in an
    assistant turn, whatever the message's role."""
    tool_calls = message.get("tool_calls", MISSING) if type(message) is dict else MISSING
    if not length(tool_calls, _path(index, ".tool_calls")) == 1:  # L97-99
        raise TemplateError(_MSG_SINGLE_CALL)
    # L100: message.tool_calls[0].function
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
    if type(name) is not str:  # L102: '{"name": "' + tool_call.name + ...
        raise concat_error(name, _path(index, ".tool_calls[0].function.name"))
    if spans:
        spans.open(1)
        spans.source(f"messages[{index}].tool_calls[0].function.name", 2)
        spans.source(f"messages[{index}].tool_calls[0].function.arguments", 5)
    extend((
        _ASSISTANT_HEAD,  # L101
        '{"name": "', name, '", ',  # L102
        '"parameters": ',  # L103
        tojson(arguments),  # L104 (undefined arguments fail here)
        "}",  # L105
        _EOT,  # L106
    ))
    if spans:
        spans.close()


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    get = variables.get
    out: list[str] = spans.pieces if spans else []
    emit = out.append
    extend = out.extend

    if spans:
        spans.source("bos_token")
    emit(to_str(get("bos_token", MISSING)))  # L1 (its newline is stripped by L2's `{%-`)

    tools = get("tools", MISSING)
    custom_tools = get("custom_tools", MISSING)
    if custom_tools is not MISSING:  # L2-4
        tools = custom_tools
    tools_in_user_message = get("tools_in_user_message", MISSING)
    if tools_in_user_message is MISSING:  # L5-7
        tools_in_user_message = True
    date_string = get("date_string", MISSING)
    if date_string is MISSING:  # L8-14
        # L9: `strftime_now is defined` is always true: the environment defines it, and a
        # caller's variable of that name (any JSON value, None included) is defined too.
        date_string = strftime_now(now, "%d %b %Y")  # L10
        # L12 (the "26 Jul 2024" fallback) is never reached.
    if tools is MISSING:  # L15-17
        tools = None

    # L20-27: extract the system message, and remember that the caller supplied one.
    first = item(messages, 0, "messages")
    if item(first, "role", "messages[0]") == "system":
        system_message = trim(item(first, "content"))  # L21
        messages = messages[1:]  # L22
        user_supplied_system_message = True  # L23
        offset = 1
    else:
        system_message = ""  # L25
        user_supplied_system_message = False  # L26
        offset = 0

    namespace(variables)  # L30: the call itself (a caller's `namespace` variable shadows it)
    image_ns = scan(messages, offset)  # L30-37

    if user_supplied_system_message or not image_ns.has_images:  # L40-58: the system block
        emit(_SYSTEM_HEAD)  # L41
        if tools is not None:  # L42-44
            emit(_ENVIRONMENT)
        emit(_KNOWLEDGE)  # L45
        if spans and "date_string" in variables:  # the caller's; else the clock's
            spans.source("date_string", 1)
        extend(("Today Date: ", need_str(date_string, "date_string"), "\n\n"))  # L46
        if tools is not None and not tools_in_user_message:  # L47-55
            emit(_SYSTEM_TOOLS)  # L48-50
            tools_json(extend, tools, variables, spans)  # L51-54
        if spans and offset:
            spans.source("messages[0].content")
        emit(system_message)  # L56
        emit(_EOT)  # L57

    if tools_in_user_message and not tools is None:  # L61-79: tools in the first user message
        if len(messages) != 0:  # L63
            first_user_message = trim(item(messages[0], "content"))  # L64: whatever its role
            messages = messages[1:]  # L65
            first_user_index = offset
            offset += 1
        else:  # L66-67
            raise TemplateError(_MSG_NO_FIRST_USER)
        emit(_USER_TOOLS)  # L69-73
        tools_json(extend, tools, variables, spans)  # L74-77
        if spans:
            spans.source(f"messages[{first_user_index}].content")
        extend((first_user_message, _EOT))  # L78

    for index, message in enumerate(messages, offset):  # L81-116
        if type(message) is dict:
            role = message.get("role", MISSING)
            has_tool_calls = "tool_calls" in message
        else:  # message.role is undefined; `in` is a substring/element test, or fails
            role = MISSING
            has_tool_calls = contains(message, "tool_calls", _path(index))
        # L82: not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message)
        if not (role in _TOOL_ROLES or has_tool_calls):
            if type(role) is not str:  # L83: message['role'] (undefined for a non-mapping)
                raise concat_error(role, _path(index, ".role"))
            content = message.get("content", MISSING) if type(message) is dict else MISSING
            if spans:
                spans.source(f"messages[{index}].role", 1)
                if role == "assistant":
                    spans.open(3)
            if type(content) is str:  # L84-85: one extend for the whole turn
                if spans:
                    spans.source(f"messages[{index}].content", 3)
                extend(("<|start_header_id|>", role, "<|end_header_id|>\n\n", content, _EOT))  # L83-95
            else:  # L86-93
                extend(("<|start_header_id|>", role, "<|end_header_id|>\n\n"))  # L83
                content_parts(emit, content, index, spans)
                emit(_EOT)  # L95
            if spans and role == "assistant":
                spans.close()
        elif has_tool_calls:  # L96: the same test again, kept as written
            tool_call_turn(extend, message, index, spans)  # L97-106
        elif role == "tool" or role == "ipython":  # L107: always true here, kept as written
            content = message.get("content", MISSING)
            tp = type(content)
            if spans:
                spans.source(f"messages[{index}].content", 1)
            # L109: content is mapping or content is iterable (a string too, so it is quoted)
            if tp is str or tp is dict or tp is list or tp is tuple or content is MISSING:
                # L108, L110 (undefined content fails in tojson), L114
                extend((_IPYTHON_HEAD, tojson(content), _EOT))
            else:  # L112: unreachable, the L32 scan failed on such a content
                extend((_IPYTHON_HEAD, to_str(content), _EOT))

    if get("add_generation_prompt", MISSING):  # L117-119
        emit(_ASSISTANT_HEAD)
    return "".join(out)
