"""Port of ``reference_templates/qwen3_tool_agent.jinja``.

A Qwen3 (2507-series) chat template with a fixed tool-use preamble injected into the system
turn.  Laid out like the template: the system block (lines 1-17), the reversed scan for the
last real user query (18-25, as :class:`Namespace`), the message loop (26-84) and the generation
prompt (85-87).  ``Lnn`` comments cite template lines.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, attr, item, iterate, length, namespace, need_str, to_str, tojson

# L6: the fixed preamble, verbatim.
_PREAMBLE = (
    "In this environment you have access to a set of tools you can use to answer the user's question. "
    "You can use one tool per message, and will receive the result of that tool use in the user's response. "
    "You use tools step-by-step to accomplish a given task, with each tool use informed by the result of "
    "the previous tool use.\n\nTool Use Rules\nHere are the rules you should always follow to solve your "
    "task:\n1. Always use the right arguments for the tools. Never use variable names as the action "
    "arguments, use the value instead.\n2. Call a tool only when needed: do not call the search agent if "
    "you do not need information, try to solve the task yourself.\n3. If no tool call is needed, just "
    "answer the question directly.\n4. Never re-do a tool call that you previously did with the exact "
    "same parameters.\n5. For tool use, MARK SURE use XML tag format as shown in the examples above. Do "
    "not use any other format.\nNow Begin! If you solve the task correctly, you will receive a reward of "
    "$1,000,000.\n\n"
)
# L7
_TOOLS_HEAD = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
# L12
_TOOLS_TAIL = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
    'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": '
    "<args-json-object>}\n</tool_call><|im_end|>\n"
)


class Namespace:
    """L18-25: ``ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1)``
    after the reversed scan.  ``multi_step_tool`` stays true when no message is a real user
    query (a string content not wrapped in ``<tool_response>...</tool_response>``)."""

    __slots__ = ("multi_step_tool", "last_query_index")

    multi_step_tool: bool
    last_query_index: int

    def __init__(self, multi_step_tool: bool, last_query_index: int) -> None:
        self.multi_step_tool = multi_step_tool
        self.last_query_index = last_query_index


def scan_last_query(messages: Sequence[Any]) -> Namespace:
    """L18-25, the reversed scan."""
    n = len(messages)
    for index in range(n - 1, -1, -1):
        message = messages[index]
        # L21: role == "user" and content is string and not (startswith and endswith)
        if type(message) is dict and message.get("role", MISSING) == "user":  # attr(), inlined
            content = message.get("content", MISSING)
            if type(content) is str and not (
                content.startswith("<tool_response>") and content.endswith("</tool_response>")
            ):
                return Namespace(multi_step_tool=False, last_query_index=index)
    return Namespace(multi_step_tool=True, last_query_index=n - 1)


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime) -> str:
    tools = variables.get("tools", MISSING)
    # Output pieces are appended, never concatenated: a long content is copied once, by the
    # final join (``extend`` adds one emission's pieces in one call).
    out: list[str] = []
    emit = out.append
    extend = out.extend

    # L1-17: the system block.
    if tools:
        emit("<|im_start|>system\n")
        first = item(messages, 0, "messages")
        if attr(first, "role", "messages[0]") == "system":  # L3-5
            emit(need_str(attr(first, "content"), "messages[0].content"))
            emit("\n\n")
        emit(_PREAMBLE)  # L6
        emit(_TOOLS_HEAD)  # L7
        for tool in iterate(tools, "tools"):  # L8-11
            emit("\n")
            emit(tojson(tool))
        emit(_TOOLS_TAIL)  # L12
    else:
        first = item(messages, 0, "messages")
        if attr(first, "role", "messages[0]") == "system":  # L14-16
            system_content = need_str(attr(first, "content"), "messages[0].content")
            extend(("<|im_start|>system\n", system_content, "<|im_end|>\n"))

    namespace(variables)  # L18: the call itself (a caller's `namespace` variable shadows it)
    ns = scan_last_query(messages)  # L18-25
    last_index = length(messages) - 1

    for index, message in enumerate(messages):  # L26
        if type(message) is dict:  # attr(message, ...), inlined for the common case
            role = message.get("role", MISSING)
            content = message.get("content", MISSING)
        else:  # any field of a message that is not a mapping is undefined
            role = content = MISSING
        if type(content) is not str:  # L27-31
            content = ""
        if role == "user" or (role == "system" and index != 0):  # L32-33
            extend(("<|im_start|>", role, "\n", content, "<|im_end|>\n"))
        elif role == "assistant":  # L34 (so message is a dict)
            reasoning_content = ""  # L35
            message_reasoning = message.get("reasoning_content", MISSING)
            if type(message_reasoning) is str:  # L36-37
                reasoning_content = message_reasoning
            elif "</think>" in content:  # L39-41
                reasoning_content = (
                    content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
                )
                content = content.split("</think>")[-1].lstrip("\n")
            if index > ns.last_query_index:  # L44
                if index == last_index or reasoning_content:  # L45: last or (not last and rc)
                    extend(("<|im_start|>", role, "\n<think>\n", reasoning_content.strip("\n"),
                            "\n</think>\n\n", content.lstrip("\n")))
                else:  # L47-48
                    extend(("<|im_start|>", role, "\n", content))
            else:  # L50-51
                extend(("<|im_start|>", role, "\n", content))
            tool_calls = message.get("tool_calls", MISSING)
            if tool_calls:  # L53
                if type(tool_calls) is not list:
                    tool_calls = iterate(tool_calls, f"messages[{index}].tool_calls")
                for call_index, tool_call in enumerate(tool_calls):  # L54
                    if (call_index == 0 and content) or call_index != 0:  # L55-57
                        emit("\n")
                    # attr(x, ...) below, inlined: the item of a dict, undefined for anything else
                    function = tool_call.get("function", MISSING) if type(tool_call) is dict else MISSING
                    if function:  # L58-60
                        tool_call = function
                    if type(tool_call) is dict:
                        name = tool_call.get("name", MISSING)
                        arguments = tool_call.get("arguments", MISSING)
                    else:
                        name = arguments = MISSING
                    extend((
                        '<tool_call>\n{"name": "',  # L61
                        name if type(name) is str else to_str(name),  # L62
                        '", "arguments": ',  # L63
                        arguments if type(arguments) is str else tojson(arguments),  # L64-68
                        "}\n</tool_call>",  # L69
                    ))
            emit("<|im_end|>\n")  # L72
        elif role == "tool":  # L73
            # L74: loop.first or messages[loop.index0 - 1].role != "tool"
            previous = messages[index - 1] if index else None
            if index == 0 or type(previous) is not dict or previous.get("role", MISSING) != "tool":
                emit("<|im_start|>user")
            extend(("\n<tool_response>\n", content, "\n</tool_response>"))  # L77-79
            # L80: loop.last or messages[loop.index0 + 1].role != "tool"
            following = messages[index + 1] if index != last_index else None
            if index == last_index or type(following) is not dict or following.get("role", MISSING) != "tool":
                emit("<|im_end|>\n")

    if variables.get("add_generation_prompt", MISSING):  # L85-87
        emit("<|im_start|>assistant\n")
    return "".join(out)
