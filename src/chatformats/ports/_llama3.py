"""The pieces Meta's Llama 3.x templates share, byte for byte.

Three of Meta's templates are built around the same blocks:

- ``llama3_1_2024_09.jinja`` (Llama 3.1 8B/70B/405B Instruct, Llama 3.3 70B Instruct): built-in
  tools, ``<|python_tag|>`` calls and ``<|eom_id|>`` besides everything below;
- ``llama3_2.jinja`` (Llama 3.2 1B/3B Instruct): the 3.1 text without built-in tools, the date
  from ``strftime_now``;
- ``llama3_2_vision_2024_09.jinja`` (Llama 3.2 11B/90B Vision Instruct, and through its port the
  December revision and the source-document variant): the 3.2 text with an image scan, a
  system block left out for images, and content parts.

Each port keeps its own preamble and system block (they differ); what two or three of the texts
hold verbatim, line for line, lives here:

- the tool list, ``for t in tools: t|tojson(indent=4) + "\\n\\n"`` (:func:`tools_json`: the
  system block's copy and the first user message's);
- the tools in the first user message (:func:`first_user_tools`: 3.1 L46-64, 3.2 L47-65, Vision
  L64-82), with Meta's instruction (:data:`USER_TOOLS`; the source-document variant words it
  otherwise and passes its own);
- the message loop of 3.1 and 3.2 (:func:`message_loop`: 3.1 L66-68 and L97-106, 3.2 L67-69 and
  L81-90), but for the branch of a message with ``tool_calls`` (3.1 L69-96, 3.2 L70-80), which
  differs (3.1's built-in calls and ``<|eom_id|>``) and which each port passes in;
- the single tool call's checks and lookups (:func:`single_call`: 3.1 L69-73, 3.2 L70-74,
  Vision L99-103) and its JSON body (:func:`json_call`: 3.1 L86-89, 3.2 L76-79, Vision
  L105-108);
- the tool or ``ipython`` message (:func:`ipython_turn`: 3.1 L97-104, 3.2 L81-88, Vision
  L110-117);
- the headers and end tokens.

The ``Lnn`` comments below cite ``llama3_1_2024_09.jinja``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from .._jinja import (
    MISSING,
    attr,
    by_json,
    concat_error,
    contains,
    is_iterable,
    is_mapping,
    item,
    iterate,
    length,
    to_str,
    tojson,
    tojson_indented,
    trim,
)
from .._spans import Recorder
from ..errors import TemplateError

SYSTEM_HEAD = "<|start_header_id|>system<|end_header_id|>\n\n"  # L24
ENVIRONMENT = "Environment: ipython\n"  # L26
KNOWLEDGE = "Cutting Knowledge Date: December 2023\n"  # L31
EOT = "<|eot_id|>"
USER_HEAD = "<|start_header_id|>user<|end_header_id|>\n\n"  # L54
ASSISTANT_HEAD = "<|start_header_id|>assistant<|end_header_id|>\n\n"  # L75, L85, L108
IPYTHON_HEAD = "<|start_header_id|>ipython<|end_header_id|>\n\n"  # L98
TOOL_ROLES = ("ipython", "tool")  # L67: message.role == 'ipython' or message.role == 'tool'

#: L34-36: the instruction before the tool list in the system block (``tools_in_user_message``
#: false).
SYSTEM_TOOLS = (
    "You have access to the following functions. To call a function, please respond with JSON for a function call."  # L34
    'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.'  # L35
    "Do not use variables.\n\n"  # L36
)
#: L54-58: the first user message's head up to the tool list.
USER_TOOLS = (
    USER_HEAD  # L54
    + "Given the following functions, please respond with a JSON for a function call "  # L55
    "with its proper arguments that best answers the given prompt.\n\n"  # L56
    'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.'  # L57
    "Do not use variables.\n\n"  # L58
)

MSG_NO_FIRST_USER = "Cannot put tools in the first user message when there's no first user message!"  # L52
MSG_SINGLE_CALL = "This model only supports single tool-calls at once!"  # L71

Emit = Callable[[str], None]
Extend = Callable[[Iterable[str]], None]


def path(index: int, suffix: str = "") -> str:
    """The path of ``messages[index]`` (or of a field of it, ``suffix``) in an error message."""
    return f"messages[{index}]{suffix}"


def tools_json(extend: Extend, tools: Any, variables: Mapping[str, Any], spans: Recorder | None) -> None:
    """L37-40 and L59-62: ``for t in tools: t|tojson(indent=4) + "\\n\\n"``.  Each tool's JSON
    comes from the caller's ``custom_tools`` when it is defined (L2-4: it replaces ``tools``),
    else from ``tools``; a dict's keys are iterated, and their JSON is part of the dict's."""
    for tool_index, t in enumerate(iterate(tools, "tools")):
        if spans is not None:
            source = "custom_tools" if "custom_tools" in variables else "tools"
            spans.source(f"{source}[{tool_index}]")
        extend((_tool_json(t), "\n\n"))


# Each tool's indented JSON, keyed by its compact JSON (_jinja.by_json): the rollout bridge
# renders the first user message (which holds the tools) twice a turn.
_TOOL_JSON: dict[str, str] = {}
_TOOL_JSON_SIZE = 64
_TOOL_JSON_KEY = 1 << 14


def _indented(tool: Any) -> str:
    return tojson_indented(tool, 4)


def _tool_json(tool: Any) -> str:
    """``tool|tojson(indent=4)``, from the cache when the same tool was rendered before."""
    if type(tool) is not dict:
        return _indented(tool)
    return by_json(_TOOL_JSON, tool, _indented, _TOOL_JSON_SIZE, _TOOL_JSON_KEY)


def first_user_tools(extend: Extend, messages: Sequence[Any], offset: int, tools: Any,
                     variables: Mapping[str, Any], spans: Recorder | None,
                     user_tools: str = USER_TOOLS) -> tuple[Sequence[Any], int]:
    """L46-64 (``tools_in_user_message and not tools is none``, tested by the caller): the first
    message left, whatever its role, is consumed into a user turn after ``user_tools`` (Meta's
    :data:`USER_TOOLS`) and the tool list.  Returns the messages after it and the index of the
    first of them."""
    if len(messages) != 0:  # L48
        first_user_message = trim(item(messages[0], "content"))  # L49: whatever its role
        messages = messages[1:]  # L50
    else:  # L51-52
        raise TemplateError(MSG_NO_FIRST_USER)
    extend((user_tools,))  # L54-58
    tools_json(extend, tools, variables, spans)  # L59-62
    if spans is not None:
        spans.field(offset, ".content")
    extend((first_user_message, EOT))  # L63
    return messages, offset + 1


ToolCallTurn = Callable[[Extend, Any, int, Optional[Recorder], Any], None]  # no string: a ForwardRef compiles


def message_loop(extend: Extend, messages: Sequence[Any], offset: int, spans: Recorder | None,
                 tool_call_turn: ToolCallTurn, context: Any) -> None:
    """L66-106: each message left, ``messages[offset:]`` of the caller's list; the branch of a
    message with ``tool_calls`` (L69-96) is the port's own ``tool_call_turn(extend, message,
    index, spans, context)``, ``context`` what that branch reads besides the message (Llama 3.1:
    ``builtin_tools``).  With ``spans``, an assistant's plain turn is generated from after its
    header through ``<|eot_id|>``."""
    for index, message in enumerate(messages, offset):  # L66
        if type(message) is dict:
            role = message.get("role", MISSING)
            content = message.get("content", MISSING)
            has_tool_calls = "tool_calls" in message
        else:  # message.role is undefined; `in` is a substring/element test, or fails
            role = content = MISSING
            has_tool_calls = contains(message, "tool_calls", path(index))
        # L67: not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message)
        if not (role in TOOL_ROLES or has_tool_calls):
            if type(role) is not str:  # L68: message['role'] (undefined for a non-mapping)
                raise concat_error(role, path(index, ".role"))
            if spans is not None:  # an assistant's: generated after the header, through <|eot_id|>
                spans.message(index, generated=ASSISTANT_HEAD if role == "assistant" else None)
            extend(("<|start_header_id|>", role, "<|end_header_id|>\n\n", trim(content), EOT))  # L68
        elif has_tool_calls:  # L69: the same test again, kept as written
            tool_call_turn(extend, message, index, spans, context)  # L70-96: the port's own
        elif role == "tool" or role == "ipython":  # L97: always true here, kept as written
            ipython_turn(extend, content, index, spans)  # L98-104


def single_call(message: Any, index: int) -> tuple[Any, Any]:
    """L70-73 and the fields later lines read: ``message.tool_calls`` must be one call (else
    the template's error), ``tool_call = message.tool_calls[0].function``; returns
    ``(tool_call.name, tool_call.arguments)``.

    Every template reads ``tool_call.name`` before ``tool_call.arguments``, so an undefined
    ``tool_call`` fails here, as it fails at that first read; a ``tool_call`` that is defined but
    not a mapping has neither (both undefined)."""
    tool_calls = message.get("tool_calls", MISSING) if type(message) is dict else MISSING
    if not length(tool_calls, path(index, ".tool_calls")) == 1:  # L70-72
        raise TemplateError(MSG_SINGLE_CALL)
    # L73: message.tool_calls[0].function
    first_call = item(tool_calls, 0)
    if type(first_call) is dict:
        tool_call = first_call.get("function", MISSING)
    else:
        tool_call = attr(first_call, "function", path(index, ".tool_calls[0]"))
    if type(tool_call) is dict:
        return tool_call.get("name", MISSING), tool_call.get("arguments", MISSING)
    return attr(tool_call, "name", path(index, ".tool_calls[0].function")), MISSING


def json_call(extend: Extend, name: Any, arguments: Any, index: int, spans: Recorder | None) -> None:
    """L86-89: ``'{"name": "' + tool_call.name + '", '``, ``'"parameters": '``, ``tool_call.arguments
    | tojson``, ``"}"`` (after the assistant header the caller wrote)."""
    if type(name) is not str:  # L86: '{"name": "' + tool_call.name + ...
        raise concat_error(name, path(index, ".tool_calls[0].function.name"))
    if spans is not None:
        spans.fields(index, ".tool_calls[0].function.name", ".tool_calls[0].function.arguments")
    extend((
        '{"name": "',  # L86
        name,  # L86
        '", "parameters": ',  # L86-87
        tojson(arguments),  # L88 (undefined arguments fail here)
        "}",  # L89
    ))


def ipython_turn(extend: Extend, content: Any, index: int, spans: Recorder | None) -> None:
    """L98-104: a tool or ``ipython`` message as an ``ipython`` turn: its content as JSON when it
    is a mapping or iterable (a string too, so a string result is quoted; an undefined one fails
    in ``tojson``), else as ``str()`` (``None`` renders ``None``)."""
    if spans is not None:
        spans.fields(index, ".content")
    if is_mapping(content) or is_iterable(content):  # L99
        extend((IPYTHON_HEAD, tojson(content), EOT))  # L98, L100, L104
    else:
        extend((IPYTHON_HEAD, to_str(content), EOT))  # L98, L102, L104
