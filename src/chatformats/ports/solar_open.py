"""Port of ``reference_templates/solar_open.jinja`` (Upstage Solar Open 100B).

Laid out like the template: its defaults (L2-5), the pre-pass (L8-16 and L87-92: :func:`scan`,
which returns the template's namespaces as a :class:`Namespace`), its macros as private
functions with the macros' names (``_render_system_message``, ``_render_tool_instruction``,
``_render_json_response_format_instruction``, ``_get_tool_name``, ``_render_tool_arguments``;
L19-84), the system block (L94-104), the message loop in the template's if/elif order
(L107-149; the tool and assistant branches as :func:`_render_tool_response` and
:func:`_render_assistant`) and the generation prompt (L151-156).  ``Lnn`` comments cite template
lines.

``sys_ns.is_first_block`` (L8), the one piece of state the macros mutate, is threaded through
them explicitly: each system-block macro takes it and returns its new value.

The template's ``get_tool_name`` macro (L66-76) scans every message for every tool response,
which makes Jinja quadratic in trace length; :func:`index_tool_names` builds the same answers
in one pass (see :class:`ToolNameIndex` for why a ``str``-keyed dict is exact).

Spans (``chatformats._spans``): every piece that comes from an input is sourced — a system
message's, user message's, tool response's or assistant message's ``content``, an assistant's
``reasoning``, a call's ``id``, ``function.name`` and ``function.arguments``, a tool response's
``tool_call_id`` and the name(s) ``get_tool_name`` finds for it (each matching call's
``function.name``), each ``tools[i].function`` (its JSON) and ``response_format``.  An
assistant turn's generated range starts after its first ``<|begin|>assistant`` (the generation
prompt's last piece) and ends after the turn's closing token: ``<|end|>`` after content,
``<|calls|>`` after tool calls.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .._jinja import MISSING, attr, concat_error, iterate, namespace, need_str, strftime_now, to_str, tojson
from .._record import Record, setters
from .._spans import Path, Recorder
from ..errors import ChatFormatError, TemplateTypeError, UndefinedValueError

Emit = Callable[[str], None]

# L23: the provider system prompt around ``strftime_now("%Y-%m-%d")``.
_PROVIDER_HEAD = (
    "## Provider System Prompt\n\nYou are Solar Open 100B, a large language model trained by "
    "Upstage AI, a Korean startup. Your knowledge cutoff is 2025-07. The current date is "
)
_PROVIDER_TAIL = "."
# L39-42
_TOOLS_HEAD = (
    "## Tools\n\n### Tool Call Instruction"
    "\nYou may invoke one or more tools to assist with the user's query. Available tools are "
    "provided in JSON Schema format: <|tools:begin|><|tool:begin|><tools-json-object><|tool:end|>"
    "...<|tools:end|>\n"
    "\n### Available Tools\n"
    "<|tools:begin|>"
)
# L48-54
_TOOLS_TAIL = (
    "<|tools:end|>\n"
    "\n### Tool Call Format\n"
    "For each tool call, return a JSON object with the following structure, enclosed within "
    "<|tool_call:begin|> and <|tool_call:end|> tags: \n<|tool_call:begin|><tool-call-id>"
    "<|tool_call:name|><tool-name><|tool_call:args|><args-json-object><|tool_call:end|>\n"
    "- The <tool-call-id> must be a randomly generated string consisting of 10 lowercase letters "
    "(a-z) and/or digits (0-9) (e.g., a1b2c3d4e5)\n"
    "\n### Tool Response Format\n"
    "Each tool is responded by `tool` with the following structure:\n<|tool_response:id|>"
    "<tool-call-id><|tool_response:name|><tool-name><|tool_response:result|><results>"
    "<|tool_response:end|>\n"
    "- Ensure the <tool-call-id> matches the corresponding tool call"
)
# L60-61
_SCHEMA_HEAD = (
    "## Output Format Constraint"
    "\n\nYour final response should follow the JSON schema: \n[Start of schema]"
)
# L63
_SCHEMA_TAIL = (
    "\n[End of schema]\nPlease ensure your answers adhere to this format and do not contain any "
    "unnecessary text."
)
_END = "<|end|>"


Extend = Callable[[Sequence[str]], None]

#: ``(name, message index, call index)``: a ``get_tool_name`` match as rendered (L71) and where
#: its call is.
Match = Tuple[str, int, int]


# ---------------------------------------------------------------- pre-pass


class _NamespaceFields:
    """The fields of :class:`Namespace`, written while :func:`_namespace` builds one."""

    __slots__ = ("last_user_idx", "system_messages")

    last_user_idx: int
    system_messages: List[Any]


class Namespace(Record, _NamespaceFields):
    """The template's namespaces once its pre-passes have run.

    - ``last_user_idx``: ``last_user_idx.value`` (L11-16), the index of the last message whose
      role is ``'user'``, or -1;
    - ``system_messages``: ``ns.system_messages`` (L87-92), the content of *every* message whose
      role is ``'system'``, in order (undefined where a system message has no content).
    """

    __slots__ = ()


#: A record built without its constructor; its fields are then written through the
#: slots' setters (assigning ``__class__`` would raise an audit event on every render).
_new = object.__new__
_set_namespace_last_user_idx = setters(Namespace)["last_user_idx"]
_set_namespace_system_messages = setters(Namespace)["system_messages"]


def _namespace(last_user_idx: int, system_messages: List[Any]) -> Namespace:
    """A :class:`Namespace` built without the record's constructor (it is built on every render): the
    fields are written through the slots' setters, bound once at import; no ``__class__``
    assignment, which raises an audit event."""
    made = _new(Namespace)
    _set_namespace_last_user_idx(made, last_user_idx)
    _set_namespace_system_messages(made, system_messages)
    return made


def scan(messages: Sequence[Any]) -> Namespace:
    """L11-16 and L87-92.  The template runs two loops; neither can fail nor emit, so one pass
    computes both.  A message that is not a dict has an undefined role (``attr``)."""
    last_user_idx = -1
    system_messages: List[Any] = []
    for index, message in enumerate(messages):
        if type(message) is not dict:
            continue
        role = message.get("role", MISSING)
        if role == "user":  # L13-14
            last_user_idx = index
        elif role == "system":  # L89-90
            system_messages.append(message.get("content", MISSING))
    return _namespace(last_user_idx=last_user_idx, system_messages=system_messages)


def _system_message_paths(messages: Sequence[Any]) -> List[Path]:
    """For spans: the path of each entry of ``ns.system_messages`` (L87-92), in order (as
    ``spans.field`` records it: ``index`` for ``messages[index].content``)."""
    return [
        index
        for index, message in enumerate(messages)
        if type(message) is dict and message.get("role", MISSING) == "system"
    ]


class _ToolNameIndexFields:
    """The fields of :class:`ToolNameIndex`, written while :func:`_tool_name_index` builds one."""

    __slots__ = ("names", "first", "repeated", "errors", "failure")

    names: Dict[str, str]
    first: Dict[str, Tuple[int, int]]
    repeated: Dict[str, List[Match]]
    errors: Dict[str, ChatFormatError]
    failure: Optional[ChatFormatError]


class ToolNameIndex(Record, _ToolNameIndexFields):
    """What ``get_tool_name(messages, tool_call_id)`` (L66-76) gives for every id, in one pass.

    The macro is only ever called with a ``tool_call_id`` that L116 has just concatenated to a
    string, so it is a ``str``: anything else fails there first (an undefined id with
    ``UndefinedError``, any other value with ``TypeError``).  Jinja's ``==`` between that string
    and a call's ``id`` is Python's: true only for an equal ``str`` — never for undefined, a
    number, a bool, ``None``, a list or a dict.  So a dict keyed by the ``str`` ids is exact, and
    non-``str`` ids are left out.

    - ``names``: for each ``str`` id, every matching call's ``function.name`` rendered with
      ``{{ }}`` and concatenated in message order (L71);
    - ``first``: for each ``str`` id, where its first match is (``(message index, call
      index)``);
    - ``repeated``: for an id more than one call has, every match as ``(rendered name, message
      index, call index)``, in message order;
    - ``errors``: the first failure a lookup of that id meets at a match (L71: the call has no
      ``function``, so ``.name`` of undefined fails; or the name cannot be rendered);
    - ``failure``: the failure every lookup meets (L69: an assistant message's truthy
      ``tool_calls`` that cannot be iterated); the pass stops there, as every scan would.
    """

    __slots__ = ()

    def matches(self, call_id: str) -> Sequence[Match]:
        """Every match of ``call_id``: ``(rendered name, message index, call index)``."""
        found = self.repeated.get(call_id)
        if found is not None:
            return found
        where = self.first.get(call_id)
        return () if where is None else ((self.names[call_id],) + where,)


_set_toolnameindex_names = setters(ToolNameIndex)["names"]
_set_toolnameindex_first = setters(ToolNameIndex)["first"]
_set_toolnameindex_repeated = setters(ToolNameIndex)["repeated"]
_set_toolnameindex_errors = setters(ToolNameIndex)["errors"]
_set_toolnameindex_failure = setters(ToolNameIndex)["failure"]


def _tool_name_index(
    names: Dict[str, str], first: Dict[str, Tuple[int, int]], repeated: Dict[str, List[Match]],
    errors: Dict[str, ChatFormatError], failure: Optional[ChatFormatError],
) -> ToolNameIndex:
    """A :class:`ToolNameIndex` built without the record's constructor (it is built on every render): the
    fields are written through the slots' setters, bound once at import; no ``__class__``
    assignment, which raises an audit event."""
    made = _new(ToolNameIndex)
    _set_toolnameindex_names(made, names)
    _set_toolnameindex_first(made, first)
    _set_toolnameindex_repeated(made, repeated)
    _set_toolnameindex_errors(made, errors)
    _set_toolnameindex_failure(made, failure)
    return made


def index_tool_names(messages: Sequence[Any]) -> ToolNameIndex:
    """L66-76 for all ids at once, in one pass over ``messages``."""
    names: Dict[str, str] = {}
    first: Dict[str, Tuple[int, int]] = {}
    repeated: Dict[str, List[Match]] = {}
    errors: Dict[str, ChatFormatError] = {}
    failure: Optional[ChatFormatError] = None
    for index, msg in enumerate(messages):  # L67
        if type(msg) is not dict:
            continue
        tool_calls = msg.get("tool_calls", MISSING)
        if msg.get("role", MISSING) == "assistant" and tool_calls:  # L68
            calls = tool_calls  # L69
            if type(calls) is not list and type(calls) is not tuple:
                try:
                    calls = iterate(tool_calls, f"messages[{index}].tool_calls")
                except ChatFormatError as exc:
                    failure = exc
                    break
            for call_index, tool_call in enumerate(calls):
                if type(tool_call) is not dict:
                    continue  # its .id is undefined: never equal to a string
                call_id = tool_call.get("id", MISSING)
                if type(call_id) is not str or call_id in errors:  # L70
                    continue
                function = tool_call.get("function", MISSING)
                if function is MISSING:  # L71: .name of undefined fails
                    errors[call_id] = UndefinedValueError(
                        f"messages[{index}].tool_calls[{call_index}].function is undefined "
                        "(reading .name)"
                    )
                    continue
                name = attr(function, "name")  # L71: {{ tool_call.function.name }}
                if type(name) is not str:
                    try:
                        name = to_str(name)
                    except ChatFormatError as exc:
                        errors[call_id] = exc
                        continue
                earlier = names.get(call_id)
                if earlier is None:
                    names[call_id] = name
                    first[call_id] = (index, call_index)
                else:  # another call with this id: all matches, in order, concatenated
                    found = repeated.get(call_id)
                    if found is None:
                        repeated[call_id] = [(earlier,) + first[call_id], (name, index, call_index)]
                    else:
                        found.append((name, index, call_index))
    for call_id, found in repeated.items():
        names[call_id] = "".join([match[0] for match in found])
    return _tool_name_index(names, first, repeated, errors, failure)


# ---------------------------------------------------------------- the macros


def _render_system_message(
    emit: Emit, user_system_messages: List[Any], default_system_prompt: Any, now: datetime,
    is_first_block: bool, paths: Optional[List[Path]] = None, spans: Optional[Recorder] = None,
) -> bool:
    """L19-34; returns ``sys_ns.is_first_block``.  ``paths``: with ``spans``, the path of each
    of ``user_system_messages``."""
    if default_system_prompt:  # L20
        if not is_first_block:  # L21
            emit("\n\n")
        is_first_block = False  # L22
        emit(_PROVIDER_HEAD + strftime_now(now, "%Y-%m-%d") + _PROVIDER_TAIL)  # L23
    if user_system_messages:  # L25
        if not is_first_block:  # L26
            emit("\n\n")
        is_first_block = False  # L27
        emit("## System Prompt")  # L28
        for position, system_message in enumerate(user_system_messages):  # L29-32
            emit("\n\n")
            if spans is not None and paths:
                spans.source(paths[position])
            emit(to_str(system_message))
    return is_first_block


def _render_tool_instruction(emit: Emit, tools: Any, is_first_block: bool,
                             spans: Optional[Recorder] = None) -> bool:
    """L36-55; returns ``sys_ns.is_first_block``."""
    if not is_first_block:  # L37
        emit("\n\n")
    is_first_block = False  # L38
    emit(_TOOLS_HEAD)  # L39-42
    for index, tool in enumerate(iterate(tools, "tools")):  # L43-47
        emit("<|tool:begin|>")
        if spans is not None:
            spans.source(f"tools[{index}].function")
        emit(tojson(_tool_function(tool, index)))
        emit("<|tool:end|>")
    emit(_TOOLS_TAIL)  # L48-54
    return is_first_block


def _tool_function(tool: Any, index: int) -> Any:
    """L45: ``tool.function`` (``tojson`` of undefined fails — a ``TypeError`` from
    ``json.dumps``, not an ``UndefinedError`` — naming the tool)."""
    function = attr(tool, "function")
    if function is MISSING:
        raise TemplateTypeError(
            f"tools[{index}].function is undefined: Object of type Undefined is not JSON serializable"
        )
    return function


def _render_json_response_format_instruction(
    emit: Emit, response_format: Any, is_first_block: bool, spans: Optional[Recorder] = None,
) -> bool:
    """L57-64; returns ``sys_ns.is_first_block``.  ``{{ response_format }}``: a dict shows as
    its Python repr."""
    if not is_first_block:  # L58
        emit("\n\n")
    is_first_block = False  # L59
    emit(_SCHEMA_HEAD)  # L60-61
    if spans is not None:
        spans.source("response_format")
    emit(to_str(response_format))  # L62
    emit(_SCHEMA_TAIL)  # L63
    return is_first_block


def _get_tool_name(emit: Emit, index: ToolNameIndex, tool_call_id: str,
                   spans: Optional[Recorder] = None) -> None:
    """L66-76, answered from the index built once (see :class:`ToolNameIndex`); with ``spans``,
    each match's name is its own piece, sourced by its path."""
    error = index.errors.get(tool_call_id)
    if error is not None:
        raise error
    if index.failure is not None:
        raise index.failure
    if spans is not None:
        for name, message_index, call_index in index.matches(tool_call_id):
            spans.source(f"messages[{message_index}].tool_calls[{call_index}].function.name")
            emit(name)
    else:
        emit(index.names.get(tool_call_id, ""))


def _render_tool_arguments(tool_arguments: Any) -> str:
    """L78-84: a mapping as JSON, anything else with ``{{ }}`` (a JSON string verbatim)."""
    if type(tool_arguments) is dict:  # L79: is mapping
        return tojson(tool_arguments)  # L80
    return to_str(tool_arguments)  # L82


# ---------------------------------------------------------------- the template


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Optional[Recorder] = None) -> str:
    # L2-5: the template's own defaults (a value passed as None is defined, so kept).
    add_generation_prompt = variables.get("add_generation_prompt", MISSING)
    if add_generation_prompt is MISSING:
        add_generation_prompt = True
    default_system_prompt = variables.get("default_system_prompt", MISSING)
    if default_system_prompt is MISSING:
        default_system_prompt = True
    reasoning_effort = variables.get("reasoning_effort", MISSING)
    if reasoning_effort is MISSING:
        reasoning_effort = "high"
    think_render_option = variables.get("think_render_option", MISSING)
    if think_render_option is MISSING:
        think_render_option = "lastthink"
    tools = variables.get("tools", MISSING)
    response_format = variables.get("response_format", MISSING)

    namespace(variables)  # L8: the call itself (a caller's `namespace` variable shadows it)
    ns = scan(messages)  # L8-16, L87-92

    out: List[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    # L94-104: the system block.
    if ns.system_messages or default_system_prompt or tools or response_format:  # L94
        emit("<|begin|>system<|content|>")  # L95
        is_first_block = True  # L8: sys_ns = namespace(is_first_block=true)
        is_first_block = _render_system_message(  # L96
            emit, ns.system_messages, default_system_prompt, now, is_first_block,
            _system_message_paths(messages) if spans is not None else None, spans,
        )
        if tools:  # L97-99
            is_first_block = _render_tool_instruction(emit, tools, is_first_block, spans)
        if response_format:  # L100-102
            is_first_block = _render_json_response_format_instruction(
                emit, response_format, is_first_block, spans
            )
        emit(_END)  # L103

    # L107-149: the messages.  Hoisted: L126 and L130 compare a value fixed for the render.
    think_all = think_render_option == "all"
    think_last = think_render_option == "lastthink"
    last_user_idx = ns.last_user_idx
    last_index = len(messages) - 1  # L112: messages | length - 1
    tool_names: Optional[ToolNameIndex] = None
    for index, message in enumerate(messages):
        if type(message) is not dict:
            continue  # its role is undefined: no branch matches (roles other than these too)
        role = message.get("role", MISSING)
        if role == "user":  # L108-109
            content = message.get("content", MISSING)
            if type(content) is not str:
                raise concat_error(content, f"messages[{index}].content")
            if spans is not None:
                spans.fields(index, ".content")
            extend(("<|begin|>user<|content|>", content, _END))
        elif role == "tool":  # L110-123
            if tool_names is None:  # built once, at the first tool message
                tool_names = index_tool_names(messages)
            _render_tool_response(emit, extend, messages, message, index, last_index, tool_names,
                                  spans)
        elif role == "assistant":  # L124-147
            # L126-134: the reasoning is shown for every assistant message ("all"), for those
            # after the last user message ("lastthink", the default), or for none.
            if think_all:
                shows_reasoning = True
            elif think_last:
                shows_reasoning = index > last_user_idx
            else:
                shows_reasoning = False
            _render_assistant(emit, extend, message, index, shows_reasoning, spans)

    # L151-156: the generation prompt.
    if add_generation_prompt:
        if reasoning_effort in ["low", "minimal"]:  # L152-154 (Python `in`: equality)
            emit("<|begin|>assistant<|think|><|end|>")
        emit("<|begin|>assistant")  # L155
    return "".join(out)


def _render_tool_response(
    emit: Emit, extend: Extend, messages: Sequence[Any], message: Dict[str, Any], index: int,
    last_index: int, tool_names: ToolNameIndex, spans: Optional[Recorder],
) -> None:
    """L110-123: a tool response; consecutive ones share one ``<|begin|>tool`` block."""
    # L111-112 (``attr`` of a message that is not a dict is undefined: not "tool")
    prev = messages[index - 1] if index > 0 else None
    prev_is_tool = index > 0 and type(prev) is dict and prev.get("role", MISSING) == "tool"
    after = messages[index + 1] if index < last_index else None
    next_is_tool = index < last_index and type(after) is dict and after.get("role", MISSING) == "tool"
    if not prev_is_tool:  # L113-115
        emit("<|begin|>tool<|tool_response|>")
    tool_call_id = message.get("tool_call_id", MISSING)
    if type(tool_call_id) is not str:  # L116
        raise concat_error(tool_call_id, f"messages[{index}].tool_call_id")
    if spans is not None:
        spans.fields(index, ".tool_call_id")
    extend(("<|tool_response:begin|>", tool_call_id, "<|tool_response:name|>"))  # L116
    _get_tool_name(emit, tool_names, tool_call_id, spans)  # L117
    if spans is not None:
        spans.fields(index, ".content")
    extend((
        "<|tool_response:result|>",  # L118
        to_str(message.get("content", MISSING)),  # L119
        "<|tool_response:end|>",  # L120
    ))
    if not next_is_tool:  # L121-123
        emit(_END)


def _render_assistant(emit: Emit, extend: Extend, message: Dict[str, Any], index: int,
                      shows_reasoning: bool, spans: Optional[Recorder]) -> None:
    """L124-147: the reasoning block (when ``shows_reasoning`` and ``message.reasoning`` is
    truthy), then the tool calls or the content.

    With ``spans``, the turn's generated range opens after its first ``<|begin|>assistant``
    and closes after ``<|calls|>`` or ``<|end|>``."""
    reasoning = message.get("reasoning", MISSING)
    thinks = shows_reasoning and bool(reasoning)  # L127, L131: `if message.reasoning (and ...)`
    if thinks:  # L128, L132
        if spans is not None:  # generated: after the turn's first <|begin|>assistant
            spans.open(after="<|begin|>assistant")
            spans.fields(index, ".reasoning")
        extend(("<|begin|>assistant<|think|>", need_str(reasoning, f"messages[{index}].reasoning"),
                _END))
    tool_calls = message.get("tool_calls", MISSING)
    if tool_calls:  # L137
        if spans is not None and not thinks:
            spans.open(after="<|begin|>assistant")
        emit("<|begin|>assistant<|tool_calls|>")  # L138
        calls = tool_calls  # L139
        if type(calls) is not list and type(calls) is not tuple:
            calls = iterate(tool_calls, f"messages[{index}].tool_calls")
        for call_index, tool_call in enumerate(calls):
            _render_tool_call(extend, tool_call, index, call_index, spans)  # L140-142
        emit("<|calls|>")  # L144 (no <|end|>)
    else:
        content = message.get("content", MISSING)
        if type(content) is not str:  # L146
            raise concat_error(content, f"messages[{index}].content")
        if spans is not None:
            if not thinks:
                spans.open(after="<|begin|>assistant")
            spans.fields(index, ".content")
        extend(("<|begin|>assistant<|content|>", content, _END))  # L146
    if spans is not None:
        spans.close()


def _render_tool_call(extend: Extend, tool_call: Any, index: int, call_index: int,
                      spans: Optional[Recorder]) -> None:
    """L140-142: one tool call; its ``id`` and ``function.name`` are concatenated (so must be
    strings), its ``function.arguments`` go through ``render_tool_arguments``."""
    if type(tool_call) is dict:
        call_id = tool_call.get("id", MISSING)
        function = tool_call.get("function", MISSING)
    else:
        call_id = function = MISSING
    if type(call_id) is not str:  # L140: "<|tool_call:begin|>" + tool_call.id
        raise concat_error(call_id, f"messages[{index}].tool_calls[{call_index}].id")
    if type(function) is dict:
        name = function.get("name", MISSING)
        arguments = function.get("arguments", MISSING)
    elif function is MISSING:  # L140: .name of undefined
        raise UndefinedValueError(
            f"messages[{index}].tool_calls[{call_index}].function is undefined (reading .name)"
        )
    else:
        name = arguments = MISSING  # an attribute of any other value is undefined
    if type(name) is not str:  # L140: + tool_call.function.name
        raise concat_error(name, f"messages[{index}].tool_calls[{call_index}].function.name")
    if spans is not None:
        path = f"messages[{index}].tool_calls[{call_index}]"
        spans.line(path + ".id", path + ".function.name", path + ".function.arguments")
    extend((
        "<|tool_call:begin|>", call_id, "<|tool_call:name|>", name, "<|tool_call:args|>",  # L140
        _render_tool_arguments(arguments),  # L141
        "<|tool_call:end|>",  # L142
    ))
