"""The pieces the Qwen3 hybrid and 2507-series templates share, byte for byte.

Five templates are built from these pieces:

- ``qwen3_thinking_2507.jinja`` (Qwen3 Thinking-2507): the system block, the reversed scan for
  the last real user query, the message loop with the ``</think>`` split, and the generation
  prompt ``<|im_start|>assistant\\n<think>\\n``.  :func:`render_reasoning` is that template; its
  ``Lnn`` comments cite ``qwen3_thinking_2507.jinja``.
- ``qwen3.jinja`` (Qwen3 hybrid thinking, the later revision): the same template but the
  generation prompt (``<|im_start|>assistant\\n``, then ``<think>\\n\\n</think>\\n\\n`` when
  ``enable_thinking`` is false); its module binds :func:`render_reasoning` with that prompt.
- ``qwen3_instruct_2507_2025_07.jinja`` (the earlier Instruct-2507 text) and
  ``qwen3_tool_agent.jinja``: the same template with the generation prompt
  ``<|im_start|>assistant\\n`` (the Instruct-2507 generation prompt); the tool agent also injects
  a fixed tool-use preamble after the system message in the tools branch, its lines unindented.
  Their modules bind :func:`render_reasoning` with that preamble and prompt.
- ``qwen3_instruct_2507.jinja`` (Qwen3 Instruct-2507): the same system block, tool calls and tool
  responses, but no reversed scan and no reasoning split: an assistant turn is its content.  Its
  module uses :func:`system_block`, :func:`tool_calls_block` and :func:`tool_response` with
  its own message loop.

Only what is byte-identical in those templates lives here; the line numbers in the docstrings
below are those of ``qwen3_thinking_2507.jinja`` (``qwen3_instruct_2507.jinja`` has the same
lines 1-16, and its tool-call and tool lines are the thinking template's minus 26).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from .._jinja import (
    MISSING, attr, item, iterate, length, namespace, need_str, think_split, to_str, tojson,
)
from .._record import Record, setters
from .._spans import Recorder

# L6
TOOLS_HEAD = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
# L11
TOOLS_TAIL = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
    'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": '
    "<args-json-object>}\n</tool_call><|im_end|>\n"
)
#: L85 of ``qwen3_thinking_2507.jinja``: the Thinking-2507 generation prompt opens the reasoning.
THINKING_GENERATION_PROMPT = "<|im_start|>assistant\n<think>\n"
#: L60 of ``qwen3_instruct_2507.jinja`` (and L86 of ``qwen3_tool_agent.jinja``).
INSTRUCT_GENERATION_PROMPT = "<|im_start|>assistant\n"
#: L47, L50: an assistant turn's header, ``'<|im_start|>' + message.role + '\n'``.
HEADER = "<|im_start|>assistant\n"

Emit = Callable[[str], None]


class _NamespaceFields:
    """The fields of :class:`Namespace`, written while :func:`_namespace` builds one."""

    __slots__ = ("multi_step_tool", "last_query_index")

    multi_step_tool: bool
    last_query_index: int


class Namespace(Record, _NamespaceFields):
    """L17-24: ``ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1)``
    after the reversed scan.  ``multi_step_tool`` stays true when no message is a real user
    query (a string content not wrapped in ``<tool_response>...</tool_response>``)."""

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


def scan(messages: Sequence[Any]) -> Namespace:
    """L17-24, the reversed scan."""
    n = len(messages)
    for index in range(n - 1, -1, -1):
        message = messages[index]
        # L20: role == "user" and content is string and not (startswith and endswith)
        if type(message) is dict and message.get("role", MISSING) == "user":  # attr(), inlined
            content = message.get("content", MISSING)
            if type(content) is str and not (
                content.startswith("<tool_response>") and content.endswith("</tool_response>")
            ):
                return _namespace(multi_step_tool=False, last_query_index=index)
    return _namespace(multi_step_tool=True, last_query_index=n - 1)


def system_block(emit: Emit, messages: Sequence[Any], tools: Any, preamble: str = "",
                 spans: Recorder | None = None) -> None:
    """L1-16: the tools block (with the system message first), or the system message alone.

    ``preamble`` is the text a variant injects between the system message and ``# Tools``
    (``qwen3_tool_agent.jinja`` L6); the published templates inject nothing.
    """
    if tools:
        emit("<|im_start|>system\n")  # L2
        first = item(messages, 0, "messages")
        if attr(first, "role", "messages[0]") == "system":  # L3-5
            if spans is not None:
                spans.field(0, ".content")
            emit(need_str(attr(first, "content"), "messages[0].content"))
            emit("\n\n")
        if preamble:
            emit(preamble)
        emit(TOOLS_HEAD)  # L6
        for tool_index, tool in enumerate(iterate(tools, "tools")):  # L7-10
            emit("\n")
            if spans is not None:
                spans.source(f"tools[{tool_index}]")
            emit(tojson(tool))
        emit(TOOLS_TAIL)  # L11
    else:
        first = item(messages, 0, "messages")
        if attr(first, "role", "messages[0]") == "system":  # L13-15
            system_content = need_str(attr(first, "content"), "messages[0].content")
            emit("<|im_start|>system\n")
            if spans is not None:
                spans.field(0, ".content")
            emit(system_content)
            emit("<|im_end|>\n")


def tool_calls_block(emit: Emit, message: dict[str, Any], content: str, index: int,
                     spans: Recorder | None = None) -> None:
    """L52-70: each tool call as ``<tool_call>`` JSON, a newline before every call but a first
    one that follows empty content.  ``message`` is a dict (its role is ``assistant``)."""
    tool_calls = message.get("tool_calls", MISSING)
    if not tool_calls:  # L52
        return
    if type(tool_calls) is not list:
        tool_calls = iterate(tool_calls, f"messages[{index}].tool_calls")
    for call_index, tool_call in enumerate(tool_calls):  # L53
        if (call_index == 0 and content) or call_index != 0:  # L54-56
            emit("\n")
        # attr(x, ...) below, inlined: the item of a dict, undefined for anything else
        function = tool_call.get("function", MISSING) if type(tool_call) is dict else MISSING
        path = f"messages[{index}].tool_calls[{call_index}]" if spans is not None else ""
        if function:  # L57-59
            tool_call = function
            path += ".function"
        if type(tool_call) is dict:
            name = tool_call.get("name", MISSING)
            arguments = tool_call.get("arguments", MISSING)
        else:
            name = arguments = MISSING
        emit('<tool_call>\n{"name": "')  # L60
        if spans is not None:
            spans.source(path + ".name")
        emit(name if type(name) is str else to_str(name))  # L61
        emit('", "arguments": ')  # L62
        if spans is not None:
            spans.source(path + ".arguments")
        emit(arguments if type(arguments) is str else tojson(arguments))  # L63-67
        emit("}\n</tool_call>")  # L68


def tool_response(emit: Emit, messages: Sequence[Any], index: int, last_index: int, content: str,
                  spans: Recorder | None = None) -> None:
    """L73-81: consecutive tool messages share one ``<|im_start|>user`` turn."""
    # L73: loop.first or messages[loop.index0 - 1].role != "tool"
    previous = messages[index - 1] if index else None
    if index == 0 or type(previous) is not dict or previous.get("role", MISSING) != "tool":
        emit("<|im_start|>user")
    emit("\n<tool_response>\n")  # L76
    if spans is not None:
        spans.field(index, ".content")
    emit(content)  # L77
    emit("\n</tool_response>")  # L78
    # L79: loop.last or messages[loop.index0 + 1].role != "tool"
    following = messages[index + 1] if index != last_index else None
    if index == last_index or type(following) is not dict or following.get("role", MISSING) != "tool":
        emit("<|im_end|>\n")  # L80


def render_reasoning(messages: Sequence[Any], tools: Any, add_generation_prompt: Any,
                     preamble: str, generation_prompt: str, variables: Mapping[str, Any],
                     spans: Recorder | None = None) -> str:
    """``qwen3_thinking_2507.jinja`` (with ``preamble`` injected and ``generation_prompt`` as the
    generation prompt): pre-pass, system block, message loop, generation prompt.

    With ``spans``, each assistant turn's generated range starts where ``generation_prompt``
    leaves the model when the turn begins with it (after ``<think>\\n`` when the prompt opens the
    reasoning; after ``<think>\\n\\n</think>\\n\\n`` when the prompt closes an empty one and the
    turn's reasoning is empty), else after the turn's header, and ends after its
    ``<|im_end|>``."""
    # Output pieces are appended, never concatenated: a long content is copied once, by the
    # final join.
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    system_block(emit, messages, tools, preamble, spans)  # L1-16
    namespace(variables)  # L17: the call itself (a caller's `namespace` variable shadows it)
    ns = scan(messages)  # L17-24
    last_index = length(messages) - 1

    for index, message in enumerate(messages):  # L25
        if type(message) is dict:  # attr(message, ...), inlined for the common case
            role = message.get("role", MISSING)
            content = message.get("content", MISSING)
        else:  # any field of a message that is not a mapping is undefined
            role = content = MISSING
        if type(content) is not str:  # L26-30
            content = ""
        if role == "user" or (role == "system" and index != 0):  # L31-32
            if spans is not None:
                spans.message(index)
            extend(("<|im_start|>", role, "\n", content, "<|im_end|>\n"))
        elif role == "assistant":  # L33 (so message is a dict)
            reasoning_content = ""  # L34
            message_reasoning = message.get("reasoning_content", MISSING)
            if type(message_reasoning) is str:  # L35-36
                reasoning_content = message_reasoning
            elif "</think>" in content:  # L38-41
                reasoning_content, content = think_split(content)
            if index > ns.last_query_index and (index == last_index or reasoning_content):  # L43-44
                reasoning = reasoning_content.strip("\n")
                answer = content.lstrip("\n")
                if spans is not None:  # generated: what follows the generation prompt, where
                    # the turn begins with it (else what follows the header)
                    opens = generation_prompt if (
                        "<|im_start|>assistant\n<think>\n" + reasoning + "\n</think>\n\n" + answer
                    ).startswith(generation_prompt) else HEADER
                    spans.message(index, ".reasoning_content" if type(message_reasoning) is str
                                  else ".content", opens=opens)  # (else split from it)
                extend(("<|im_start|>", role, "\n<think>\n", reasoning, "\n</think>\n\n", answer))  # L45
            else:  # L46-47, L49-50
                if spans is not None:  # generated: what follows the header
                    spans.message(index, opens=HEADER)
                extend(("<|im_start|>", role, "\n", content))
            tool_calls_block(emit, message, content, index, spans)  # L52-70
            if spans is not None:
                spans.close(after="<|im_end|>")
            emit("<|im_end|>\n")  # L71
        elif role == "tool":  # L72
            tool_response(emit, messages, index, last_index, content, spans)  # L73-81

    if add_generation_prompt:  # L84-86
        emit(generation_prompt)
    return "".join(out)
