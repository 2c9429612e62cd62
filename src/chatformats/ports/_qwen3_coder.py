"""The pieces the three Qwen3-Coder templates share, byte for byte.

Three texts are built from these pieces:

- ``qwen3_coder_2025_08.jinja`` (the August 2025 text, format ``qwen3-coder``);
- ``qwen3_coder_2025_07.jinja`` (the July 2025 text as released, ``qwen3-coder-2025-07``);
- ``qwen3_coder_6211.jinja`` (the 6,211-byte text, ``qwen3-coder-6211``).

What all three share: the system-message pre-pass (a leading system message, else the caller's
variable ``system_message``), the system turn with Qwen's default prompt when tools are given
and no system message is, the tool loop's head (``tool.function`` unwrapped, the name line),
the call instructions, the end of the system turn, and the message loop (tool calls as
``<function=NAME><parameter=KEY>``, consecutive tool messages in one user turn), but for the
one line that writes a call argument's value.  :func:`render` is that template; its
arguments are what differs:

- ``functions_head``: the line before ``<tools>`` (``# Tools`` in the 6,211-byte text only);
- ``tool_body``: each tool after its name line, to ``</function>``: the July text's own
  (:mod:`.qwen3_coder_2025_07`), or the August text's (:func:`tool_body`), which the
  6,211-byte text shares but for one condition in ``render_extra_keys`` (``as_json``);
- ``argument_text``: how a call argument's value is written (``|string``; ``tojson`` for a
  mapping in August; for a mapping or a list in the 6,211-byte text).

The ``Lnn`` comments cite ``qwen3_coder_2025_08.jinja`` (the July text's lines are these
plus 5 before the tools loop, plus 14 after it; the 6,211-byte text has the August lines).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from .._jinja import (
    MISSING, attr, is_iterable, item, items, iterate, length, need_str, need_str_at, to_str, tojson,
    trim,
)
from .._spans import Recorder

# L28
DEFAULT_SYSTEM = ("<|im_start|>system\nYou are Qwen, a helpful AI assistant that can interact "
                  "with a computer to solve tasks.")
#: L32 of the July and August texts.
FUNCTIONS_HEAD = "\n\nYou have access to the following functions:\n\n"
#: L32 of ``qwen3_coder_6211.jinja``.
FUNCTIONS_HEAD_6211 = "\n\n# Tools\n\nYou have access to the following functions:\n\n"
# L66
TOOLS_TAIL = (
    "\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n"
    "</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second parameter\n"
    "that can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\n"
    "Reminder:\n- Function calls MUST follow the specified format: an inner <function=...>"
    "</function> block must be nested within <tool_call></tool_call> XML tags\n- Required "
    "parameters MUST be specified\n- You may provide optional reasoning for your function call "
    "in natural language BEFORE the function call, but NOT after\n- If there is no function call "
    "available, answer the question like normal with your current knowledge and do not tell the "
    "user about function calls\n</IMPORTANT>"
)
#: L116: the generation prompt; also where an assistant turn's generated range starts.
GENERATION_PROMPT = "<|im_start|>assistant\n"

Emit = Callable[[str], None]
#: ``tool_body(emit, tool, path[, spans])``: a tool after its name line, to ``</function>``.
ToolBody = Callable[..., None]


def key_path(path: str, key: Any) -> str:
    """The path of ``key``'s value in the mapping at ``path``: ``.key`` for an identifier,
    ``['a key']`` (a Python literal) for any other key."""
    if type(key) is str and key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{key!r}]"


# ----------------------------------------------------------------- the August text's tools


def render_extra_keys(emit: Emit, json_dict: Any, handled_keys: tuple[str, ...], as_json: Any,
                      path: str, spans: Recorder | None) -> None:
    """L1-11, the macro ``render_extra_keys(json_dict, handled_keys)``: each key of a mapping
    not handled, as ``<key>value</key>``, the value through ``tojson`` where ``as_json(value)``
    (L4: a mapping in August; a mapping or a non-string sequence in the 6,211-byte text), else
    ``|string``."""
    if type(json_dict) is not dict:  # L2
        return
    for position, json_key in enumerate(json_dict):  # L3
        if json_key in handled_keys:
            continue
        value = json_dict[json_key]
        shown_key = to_str(json_key)
        text = tojson(value) if as_json(value) else to_str(value)  # L4-8
        if spans is not None:
            spans.line(f"{path}[{position}]", key_path(path, json_key), f"{path}[{position}]")
        # L5, L7: '\n<' ~ json_key ~ '>' ~ value ~ '</' ~ json_key ~ '>'
        emit("\n<")
        emit(shown_key)
        emit(">")
        emit(text)
        emit("</")
        emit(shown_key)
        emit(">")


def is_mapping_value(value: Any) -> bool:
    """L4 of the August text: ``json_dict[json_key] is mapping``."""
    return type(value) is dict


def is_mapping_or_list(value: Any) -> bool:
    """L4 of the 6,211-byte text: ``x is mapping or (x is sequence and x is not string)`` —
    of JSON-like values, a dict, a list or a tuple (``is sequence`` holds for strings too)."""
    tp = type(value)
    return tp is dict or tp is list or tp is tuple


def tool_body(emit: Emit, tool: Any, path: str, as_json: Any, spans: Recorder | None = None) -> None:
    """L39-63 of the August text (and of the 6,211-byte text, whose ``render_extra_keys``
    writes lists as JSON too: ``as_json``)."""
    description = attr(tool, "description")
    if description is not MISSING:  # L39-41
        if spans is not None:
            spans.line(path + ".description")
        emit("\n<description>")
        emit(trim(description))
        emit("</description>")
    emit("\n<parameters>")  # L42
    parameters = attr(tool, "parameters")
    properties = attr(parameters, "properties") if type(parameters) is dict else MISSING
    # L43: parameters defined and a mapping, its properties defined and a mapping
    if (parameters is not MISSING and type(parameters) is dict and properties is not MISSING
            and type(properties) is dict):
        properties_path = path + ".parameters.properties"
        for position, (param_name, param_fields) in enumerate(items(properties)):  # L44
            fields_path = key_path(properties_path, param_name)
            emit("\n<parameter>")  # L45
            if spans is not None:
                spans.line(f"{properties_path}[{position}]")
            emit("\n<name>")  # L46
            emit(to_str(param_name))
            emit("</name>")
            param_type = attr(param_fields, "type")
            if param_type is not MISSING:  # L47-49
                if spans is not None:
                    spans.line(fields_path + ".type")
                emit("\n<type>")
                emit(to_str(param_type))
                emit("</type>")
            param_description = attr(param_fields, "description")
            if param_description is not MISSING:  # L50-52
                if spans is not None:
                    spans.line(fields_path + ".description")
                emit("\n<description>")
                emit(trim(param_description))
                emit("</description>")
            # L53-54
            render_extra_keys(emit, param_fields, ("name", "type", "description"), as_json,
                              fields_path, spans)
            emit("\n</parameter>")  # L55
    # L58-59
    render_extra_keys(emit, parameters, ("type", "properties"), as_json, path + ".parameters", spans)
    emit("\n</parameters>")  # L60
    # L61-62
    render_extra_keys(emit, tool, ("type", "name", "description", "parameters"), as_json, path, spans)


# ----------------------------------------------------------------- the template


def render(messages: Sequence[Any], variables: Mapping[str, Any], functions_head: str,
           tool_body: ToolBody, argument_text: Callable[[Any], str],
           spans: Recorder | None = None) -> str:
    """The template (see the module docstring for its arguments).  With ``spans``, an assistant
    turn's generated range starts after ``<|im_start|>assistant\\n`` (the generation prompt; in
    a turn with calls the header has no newline of its own: the content's or the first call's)
    and ends after its ``<|im_end|>``."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    # L13-18: a leading system message is the system message; the loop skips it
    first = item(messages, 0, "messages")
    if item(first, "role", "messages[0]") == "system":
        system_message = item(first, "content", "messages[0]")  # undefined if it has none
        system_path: Any = 0
        loop_messages = messages[1:]
        offset = 1
    else:  # the caller's variable system_message, if passed
        system_message = variables.get("system_message", MISSING)
        system_path = "system_message"
        loop_messages = messages
        offset = 0

    tools = variables.get("tools", MISSING)  # L20-22: undefined tools are []
    if tools is MISSING:
        tools = []
    has_tools = is_iterable(tools) and length(tools, "tools") > 0  # L27, L31, L71

    if system_message is not MISSING:  # L24-25
        text = need_str(system_message, "messages[0].content" if offset else "system_message")
        emit("<|im_start|>system\n")
        if spans is not None:
            if offset:
                spans.field(0, ".content")
            else:
                spans.source(system_path)
        emit(text)
    elif has_tools:  # L26-29
        emit(DEFAULT_SYSTEM)
    if has_tools:  # L31
        emit(functions_head)  # L32
        emit("<tools>")  # L33
        for tool_index, tool in enumerate(iterate(tools, "tools")):  # L34
            path = f"tools[{tool_index}]"
            function = attr(tool, "function")
            if function is not MISSING:  # L35-37
                tool = function
                path += ".function"
            if spans is not None:
                spans.line(path + ".name")
            emit("\n<function>\n<name>")  # L38
            emit(to_str(attr(tool, "name")))
            emit("</name>")
            # L39-62 (spans passed only when recording: a port's tool_body takes it as its
            # optional last parameter)
            if spans is None:
                tool_body(emit, tool, path)
            else:
                tool_body(emit, tool, path, spans)
            emit("\n</function>")  # L63
        emit("\n</tools>")  # L65
        emit(TOOLS_TAIL)  # L66
    if system_message is not MISSING or has_tools:  # L68-74
        emit("<|im_end|>\n")

    last = len(loop_messages) - 1
    for position, message in enumerate(loop_messages):  # L75
        index = position + offset
        role = attr(message, "role")
        tool_calls = attr(message, "tool_calls")
        # L76: assistant, tool_calls defined, iterable and not empty
        if (role == "assistant" and tool_calls is not MISSING and is_iterable(tool_calls)
                and length(tool_calls) > 0):
            if spans is not None:
                spans.fields(index, ".role")
            extend(("<|im_start|>", role))  # L77
            if spans is not None:  # generated: after the newline that follows the header
                spans.open(after="\n")
            content = message["content"] if "content" in message else MISSING
            if type(content) is str and len(content.strip()) > 0:  # L78-80
                if spans is not None:
                    spans.line(index)
                extend(("\n", content.strip(), "\n"))
            for call_index, tool_call in enumerate(iterate(tool_calls, f"messages[{index}].tool_calls")):  # L81
                path = f"messages[{index}].tool_calls[{call_index}]"
                function = attr(tool_call, "function")
                if function is not MISSING:  # L82-84
                    tool_call = function
                    path += ".function"
                name = need_str(attr(tool_call, "name"), path + ".name")  # L85
                if spans is not None:
                    spans.line(path + ".name")
                extend(("\n<tool_call>\n<function=", name, ">\n"))
                arguments = attr(tool_call, "arguments")
                if arguments is not MISSING:  # L86
                    arguments_path = path + ".arguments"
                    for arg_index, (args_name, args_value) in enumerate(items(arguments, arguments_path)):  # L87
                        shown_name = need_str(args_name, f"{arguments_path}[{arg_index}]")  # L88
                        shown_value = argument_text(args_value)  # L89
                        if spans is not None:
                            spans.line(f"{arguments_path}[{arg_index}]", key_path(arguments_path, args_name))
                        # L88, L90, L91
                        extend(("<parameter=", shown_name, ">\n", shown_value, "\n</parameter>\n"))
                emit("</function>\n</tool_call>")  # L94
            if spans is not None:
                spans.close(after="<|im_end|>")
            emit("<|im_end|>\n")  # L96
        elif role == "user" or role == "system" or role == "assistant":  # L97
            content = need_str_at(message.get("content", MISSING), index)  # L98
            if role == "assistant":
                if spans is not None:  # generated: what follows the header
                    spans.message(index, opens=GENERATION_PROMPT)
                extend(("<|im_start|>", role, "\n", content))
                if spans is not None:
                    spans.close(after="<|im_end|>")
                emit("<|im_end|>\n")
            else:
                if spans is not None:
                    spans.message(index)
                extend(("<|im_start|>", role, "\n", content, "<|im_end|>\n"))
        elif role == "tool":  # L99 (so message is a dict)
            # L100: loop.previtem (undefined on the first) truthy and its role not "tool"
            previous = loop_messages[position - 1] if position else MISSING
            if previous and attr(previous, "role") != "tool":
                emit("<|im_start|>user\n")  # L101
            emit("<tool_response>\n")  # L103
            if spans is not None:
                spans.field(index, ".content")
            emit(to_str(message.get("content", MISSING)))  # L104
            emit("\n</tool_response>\n")  # L105
            # L106-110: not last and the next role is not "tool", or last
            if position != last:
                if attr(loop_messages[position + 1], "role") != "tool":
                    emit("<|im_end|>\n")
            else:
                emit("<|im_end|>\n")
        else:  # L111-112
            shown_role = need_str(role, f"messages[{index}].role")
            content = need_str(attr(message, "content"), f"messages[{index}].content")
            if spans is not None:
                spans.message(index)
            extend(("<|im_start|>", shown_role, "\n", content, "<|im_end|>\n"))

    if variables.get("add_generation_prompt", MISSING):  # L115-117
        emit(GENERATION_PROMPT)
    return "".join(out)
