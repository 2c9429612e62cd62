"""The Qwen2.5 Instruct templates, which differ in one literal.

``qwen2_5_instruct.jinja`` (the text the Qwen2.5 Instruct models carry) and
``qwen2_5_instruct_2024_09.jinja`` (their text of September 2024) are the same template but for
line 13, the tool instructions' example call: ``{"name": ...}`` in the later text,
``{{"name": ...}}`` (doubled braces, literal text inside a Jinja string) in the earlier one.
:func:`render` is that template with line 13's text as ``tools_tail``; ``Lnn`` comments cite
either file.

What the template does: a system turn always (the first message's content, or Qwen's default
system prompt), with the tools listed as JSON after it; user turns, later system turns and
assistant turns without ``tool_calls`` on one line (the content concatenated: a non-string
fails); an assistant turn with calls writes each as ``\\n<tool_call>\\n{...}\\n</tool_call>``
with the arguments through ``tojson`` whether a string or not; consecutive tool messages share
one ``<|im_start|>user`` turn (``{{ message.content }}``: ``str()`` of any value).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .._jinja import MISSING, attr, item, iterate, need_str, need_str_at, to_str, tojson
from .._spans import Recorder

#: L6, L18: the default system prompt.
DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
# L8
TOOLS_HEAD = (
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
#: L13 of ``qwen2_5_instruct.jinja``.
TOOLS_TAIL = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
    'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": '
    "<args-json-object>}\n</tool_call><|im_end|>\n"
)
#: L13 of ``qwen2_5_instruct_2024_09.jinja``: the example call's braces doubled.
TOOLS_TAIL_2024_09 = TOOLS_TAIL.replace('{"name"', '{{"name"').replace("object>}", "object>}}")
#: L53: the generation prompt; also where an assistant turn's generated range starts.
GENERATION_PROMPT = "<|im_start|>assistant\n"


def render(messages: Sequence[Any], variables: Mapping[str, Any], tools_tail: str,
           spans: Recorder | None = None) -> str:
    """The template, with line 13's text ``tools_tail``; with ``spans``, an assistant turn's
    generated range starts after ``<|im_start|>assistant\\n`` (the generation prompt; in a turn
    with calls the newline is the content's or the first call's) and ends after its
    ``<|im_end|>``."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    tools = variables.get("tools", MISSING)
    first = item(messages, 0, "messages")
    if tools:  # L1
        emit("<|im_start|>system\n")  # L2
        if item(first, "role", "messages[0]") == "system":  # L3-4
            if spans is not None:
                spans.field(0, ".content")
            emit(to_str(item(first, "content", "messages[0]")))
        else:  # L5-6
            emit(DEFAULT_SYSTEM)
        emit(TOOLS_HEAD)  # L8
        for tool_index, tool in enumerate(iterate(tools, "tools")):  # L9-12
            emit("\n")
            if spans is not None:
                spans.source(f"tools[{tool_index}]")
            emit(tojson(tool))
        emit(tools_tail)  # L13
    elif item(first, "role", "messages[0]") == "system":  # L15-16
        content = need_str(item(first, "content", "messages[0]"), "messages[0].content")
        emit("<|im_start|>system\n")
        if spans is not None:
            spans.field(0, ".content")
        extend((content, "<|im_end|>\n"))
    else:  # L17-18
        emit("<|im_start|>system\n" + DEFAULT_SYSTEM + "<|im_end|>\n")

    last_index = len(messages) - 1
    for index, message in enumerate(messages):  # L21
        if type(message) is dict:  # attr(message, ...), inlined for the common case
            role = message.get("role", MISSING)
        else:  # any field of a message that is not a mapping is undefined
            role = MISSING
        # L22: user, a system message that is not first, an assistant message without calls
        if role == "user" or (role == "system" and index != 0) or (
                role == "assistant" and not message.get("tool_calls", MISSING)):
            content = need_str_at(message.get("content", MISSING), index)  # L23
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
        elif role == "assistant":  # L24 (a dict with tool calls)
            if spans is not None:
                spans.fields(index, ".role")
            extend(("<|im_start|>", role))  # L25
            if spans is not None:  # generated: after the newline that follows the header
                spans.open(after="\n")
            content = message.get("content", MISSING)
            if content:  # L26-27
                content = need_str_at(content, index)
                emit("\n")
                if spans is not None:
                    spans.field(index, ".content")
                emit(content)
            calls = message["tool_calls"]
            for call_index, tool_call in enumerate(iterate(calls, f"messages[{index}].tool_calls")):  # L29
                path = f"messages[{index}].tool_calls[{call_index}]" if spans is not None else ""
                function = attr(tool_call, "function")
                if function is not MISSING:  # L30-32: `is defined`
                    tool_call = function
                    path += ".function"
                emit('\n<tool_call>\n{"name": "')  # L33
                if spans is not None:
                    spans.source(path + ".name")
                emit(to_str(attr(tool_call, "name")))  # L34
                emit('", "arguments": ')  # L35
                if spans is not None:
                    spans.source(path + ".arguments")
                emit(tojson(attr(tool_call, "arguments")))  # L36
                emit("}\n</tool_call>")  # L37
            if spans is not None:
                spans.close(after="<|im_end|>")
            emit("<|im_end|>\n")  # L39
        elif role == "tool":  # L40
            # L41: loop.index0 == 0 or messages[loop.index0 - 1].role != "tool"
            previous = messages[index - 1] if index else None
            if index == 0 or type(previous) is not dict or previous.get("role", MISSING) != "tool":
                emit("<|im_start|>user")  # L42
            emit("\n<tool_response>\n")  # L44
            if spans is not None:
                spans.field(index, ".content")
            emit(to_str(message.get("content", MISSING)))  # L45
            emit("\n</tool_response>")  # L46
            # L47: loop.last or messages[loop.index0 + 1].role != "tool"
            following = messages[index + 1] if index != last_index else None
            if index == last_index or type(following) is not dict or following.get("role", MISSING) != "tool":
                emit("<|im_end|>\n")  # L48

    if variables.get("add_generation_prompt", MISSING):  # L52-54
        emit(GENERATION_PROMPT)
    return "".join(out)
