"""Port of ``reference_templates/cogito.jinja``.

Deep Cogito's Llama-3-based template with an ``enable_thinking`` switch.  Laid out like the
template: the variable defaults and the system-message extraction (lines 1-24, as
:class:`Variables`), the system block (25-47), the message loop with its three cases in the
template's order (49-115) and the generation prompt (116-123).  ``Lnn`` comments cite template
lines.

Whitespace: every tag and comment carries ``-`` on the left and ``trim_blocks`` eats the newline
after each block tag, so the blank line 48 and the indented blank line 67 emit nothing; only the
newlines *inside* the string literals (L18-20, 27-29, 33-35, 37-38, 41-43, 54-56, 70-72, 80-82,
105-107, 117-119) and the ``'\\n'`` escape of L121 reach the output.
"""

from __future__ import annotations

from datetime import datetime
from itertools import islice
from typing import Any, Mapping, Sequence

from .._jinja import (MISSING, by_json, concat_error, item, iterate, to_str, tojson, tojson_indented,
                      trim)
from .._record import Record, setters
from .._spans import Recorder
from ..errors import TemplateTypeError

# The string literals, newlines as the template holds them.
_THINKING = "Enable deep thinking subroutine."  # L18, L22
_THINKING_SEP = "Enable deep thinking subroutine.\n\n"  # L18-20
_SYSTEM_HEADER = "<|start_header_id|>system<|end_header_id|>\n\n"  # L27-29
_TOOLS_SEP = "\n\n"  # L33-35
_TOOLS_HEAD = "Available Tools:\n"  # L37-38
_TOOL_TAIL = "\n\n"  # L41-43
_EOT = "<|eot_id|>"  # L46, L66, L113
_HEADER_OPEN = "<|start_header_id|>"  # L54
_HEADER_CLOSE = "<|end_header_id|>\n\n"  # L54-56
_ASSISTANT_HEADER = "<|start_header_id|>assistant<|end_header_id|>\n\n"  # L70-72, L117-119
_PART_SEP = "\n\n"  # L80-82
_ID_OPEN = ', "id": "'  # L94
_ID_CLOSE = '"}'  # L94
_CALLS_END = "]<|eot_id|>"  # L99
_IPYTHON_HEADER = "<|start_header_id|>ipython<|end_header_id|>\n\n"  # L105-107
_CONTENT_OPEN = '{"content": '  # L109, L111
_CALL_ID_OPEN = ', "call_id": "'  # L109
_CLOSE = "}"  # L111
# A tool response's template text as three pieces instead of six (fewer pieces to join).
_RESPONSE_OPEN = _IPYTHON_HEADER + _CONTENT_OPEN  # L105-107 then L109/L111
_RESPONSE_CLOSE_ID = _ID_CLOSE + _EOT  # L109 then L113
_RESPONSE_CLOSE = _CLOSE + _EOT  # L111 then L113
_THINK_PREFILL = "<think>\n"  # L121 ('<think>\n': the escape is a newline)
_TOOL_ROLES = frozenset(("ipython", "tool", "tool_results"))  # L53, L104


class _NamespaceFields:
    """The fields of :class:`Namespace`, written while :func:`_namespace` builds one."""

    __slots__ = ("tools", "enable_thinking", "system_message", "system_prefix", "start")

    tools: Any
    enable_thinking: Any
    system_message: str
    system_prefix: str
    start: int


class Namespace(Record, _NamespaceFields):
    """L2-24: the template's ``set`` variables once its pre-pass has run (the template has no
    ``namespace()``; this record is its state).

    ``tools`` is ``None`` when not passed (L2-4); ``enable_thinking`` is ``False`` when not
    passed (L5-7); ``system_message`` is the first message's content through ``|trim`` when its
    role is ``system`` (L9-14), with the thinking sentence put in front (L16-24), and
    ``system_prefix`` that sentence (``""`` when none: spans source the rest of
    ``system_message`` to ``messages[0].content``); ``start`` is where the loop's ``messages``
    begins in the caller's list: 1 when L11 sliced the system message off, else 0 (the loop
    reads ``messages`` from there instead of copying the slice, whose reference counting alone
    touches every message twice)."""

    __slots__ = ()


#: A record built without its constructor; its fields are then written through the
#: slots' setters (assigning ``__class__`` would raise an audit event on every render).
_new = object.__new__
_set_namespace_tools = setters(Namespace)["tools"]
_set_namespace_enable_thinking = setters(Namespace)["enable_thinking"]
_set_namespace_system_message = setters(Namespace)["system_message"]
_set_namespace_system_prefix = setters(Namespace)["system_prefix"]
_set_namespace_start = setters(Namespace)["start"]


def _namespace(tools: Any, enable_thinking: Any, system_message: str, system_prefix: str,
                 start: int) -> Namespace:
    """A :class:`Namespace` built without the record's constructor (it is built on every render): the
    fields are written through the slots' setters, bound once at import; no ``__class__``
    assignment, which raises an audit event."""
    made = _new(Namespace)
    _set_namespace_tools(made, tools)
    _set_namespace_enable_thinking(made, enable_thinking)
    _set_namespace_system_message(made, system_message)
    _set_namespace_system_prefix(made, system_prefix)
    _set_namespace_start(made, start)
    return made


def scan(messages: Sequence[Any], variables: Mapping[str, Any]) -> Namespace:
    """L2-24."""
    tools = variables.get("tools", MISSING)
    if tools is MISSING:  # L2-4: not tools is defined
        tools = None
    enable_thinking = variables.get("enable_thinking", MISSING)
    if enable_thinking is MISSING:  # L5-7
        enable_thinking = False
    # L9: messages[0]['role'] (an empty conversation fails: undefined['role'])
    first = item(messages, 0, "messages")
    start = 0
    if item(first, "role", "messages[0]") == "system":
        system_message = trim(item(first, "content"))  # L10
        start = 1  # L11: messages = messages[1:]
    else:
        system_message = ""  # L13
    prefix = ""
    if enable_thinking:  # L16
        if system_message != "":  # L17-20
            prefix = _THINKING_SEP
            system_message = prefix + system_message
        else:  # L21-22
            prefix = system_message = _THINKING
    return _namespace(tools, enable_thinking, system_message, prefix, start)


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, an assistant turn's generated range runs from after its
    ``<|start_header_id|>assistant<|end_header_id|>\\n\\n`` through its ``<|eot_id|>`` (a
    tool-call turn: through ``]<|eot_id|>``, or through its ``[`` when it has no call)."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    if spans is not None:
        spans.source("bos_token")
    emit(to_str(variables.get("bos_token", MISSING)))  # L1: str() of any value, "" if undefined
    ns = scan(messages, variables)  # L2-24
    tools = ns.tools

    # L26-47: the system block.
    system_message = ns.system_message
    if tools is not None or system_message != "":
        emit(_SYSTEM_HEADER)  # L27-29
        if spans is not None:  # the thinking sentence is the template's, the rest messages[0].content
            prefix = ns.system_prefix
            spans.fields(0, ".content")
            extend((prefix, system_message[len(prefix):]))
        else:
            emit(system_message)  # L30
        if tools is not None:  # L31
            if system_message != "":  # L32-36
                emit(_TOOLS_SEP)
            emit(_TOOLS_HEAD)  # L37-38
            if spans is not None:
                _for_tools(tools, spans)  # L39-44, each tool a piece of its own
            else:
                emit(_tools_block(tools))  # L39-44
        emit(_EOT)  # L46

    _missing = MISSING
    # L50: for message in messages (the L11 slice; ``index`` counts in the caller's list)
    for index, message in enumerate(islice(messages, ns.start, None), ns.start):
        if type(message) is not dict:
            # No other JSON value has a role or tool_calls: Case 1, whose message['role'] (L54)
            # is undefined and cannot be concatenated.
            raise concat_error(item(message, "role"), f"messages[{index}].role")
        role = message.get("role", _missing)
        # ``tool_calls is defined and tool_calls is not none`` (L53, L69): the key is present
        # and not None, i.e. ``get`` does not give None.
        tool_calls = message.get("tool_calls")
        # L53: Case 1 - not (role ipython/tool/tool_results, or tool_calls defined and not none).
        # Only a str role can equal one of the three (no other JSON value equals a string).
        if tool_calls is None and (type(role) is not str or role not in _TOOL_ROLES):
            if type(role) is not str:  # L54: '...' + message['role'] (the same key of a dict)
                raise concat_error(role, f"messages[{index}].role")
            content = message.get("content", _missing)  # a dict: anything else failed above
            if type(content) is str:  # L54-58, L66
                if spans is not None:  # an assistant's: generated after the header, through <|eot_id|>
                    spans.message(index, generated=_ASSISTANT_HEADER if role == "assistant" else None)
                extend((_HEADER_OPEN, role, _HEADER_CLOSE, content.strip(), _EOT))
            else:  # L59-64
                if spans is not None:
                    spans.fields(index, ".role")
                    if role == "assistant":
                        spans.open(after=_ASSISTANT_HEADER)
                extend((_HEADER_OPEN, role, _HEADER_CLOSE))  # L54-56
                for k, part in enumerate(_content_parts(content, index)):
                    if type(part) is dict and part.get("type", _missing) == "text":  # L61
                        if spans is not None:
                            spans.source(f"messages[{index}].content[{k}].text")
                        emit(trim(part.get("text", _missing)))  # L62
                emit(_EOT)  # L66
                if spans is not None and role == "assistant":
                    spans.close()

        # L69: Case 2 - the same condition again (kept literally): tool_calls wins over any role
        elif tool_calls is not None:
            content = message.get("content", _missing)
            if spans is not None:
                spans.open(after=_ASSISTANT_HEADER)
            if type(content) is str:  # L70-74, L87
                if spans is not None:
                    spans.fields(index, ".content")
                extend((_ASSISTANT_HEADER, content.strip(), "["))
            else:  # L75-85
                emit(_ASSISTANT_HEADER)  # L70-72
                for k, part in enumerate(_content_parts(content, index)):
                    if type(part) is dict and part.get("type", _missing) == "text":  # L77
                        text = trim(part.get("text", _missing))
                        if spans is not None:
                            spans.source(f"messages[{index}].content[{k}].text")
                        emit(text)  # L78
                        if text != "":  # L79-83
                            emit(_PART_SEP)
                emit("[")  # L87 (left unclosed when there is no tool call)
            _tool_calls(out, tool_calls, index, spans)  # L88-101
            if spans is not None:
                spans.close()

        # L104: Case 3 - always true here (kept literally); ``.role`` and ``["role"]`` agree on
        # the dicts that reach it.
        elif role == "ipython" or role == "tool_results" or role == "tool":
            content = message.get("content", _missing)
            if content is _missing:  # L109/L111: undefined|tojson
                raise _undefined_json(f"messages[{index}].content")
            try:
                content_json = tojson(content)
            except TemplateTypeError as exc:
                raise TemplateTypeError(f"messages[{index}].content: {exc}") from None
            tool_call_id = message.get("tool_call_id", _missing)
            if tool_call_id is not _missing and tool_call_id != "":  # L108-109, L105-107, L113
                if type(tool_call_id) is not str:
                    raise concat_error(tool_call_id, f"messages[{index}].tool_call_id")
                if spans is not None:
                    spans.fields(index, ".content", ".tool_call_id")
                extend((_RESPONSE_OPEN, content_json, _CALL_ID_OPEN, tool_call_id, _RESPONSE_CLOSE_ID))
            else:  # L105-107, L110-111, L113
                if spans is not None:
                    spans.fields(index, ".content")
                extend((_RESPONSE_OPEN, content_json, _RESPONSE_CLOSE))

    if variables.get("add_generation_prompt", MISSING):  # L116
        emit(_ASSISTANT_HEADER)  # L117-119
        if ns.enable_thinking:  # L120-122
            emit(_THINK_PREFILL)
    return "".join(out)


def _tool_calls(out: list[str], tool_calls: Any, index: int, spans: Recorder | None) -> None:
    """L88-101: each call's function as JSON, ``"id"`` spliced in over its last character, the
    calls separated by ``", "`` and the last closed by ``]<|eot_id|>``."""
    extend = out.extend
    calls = tool_calls if type(tool_calls) is list else _calls(tool_calls, index)
    last = len(calls) - 1
    for k, tool_call in enumerate(calls):
        function = tool_call.get("function", MISSING) if type(tool_call) is dict else MISSING
        if function is MISSING:  # L89: undefined|tojson (a non-dict call has no function)
            raise _undefined_json(f"messages[{index}].tool_calls[{k}].function")
        try:
            out_json = tojson(function)  # L89: set out = tool_call.function|tojson
        except TemplateTypeError as exc:
            raise TemplateTypeError(f"messages[{index}].tool_calls[{k}].function: {exc}") from None
        separator = ", " if k != last else _CALLS_END  # L96-100: not loop.last
        call_id = tool_call.get("id", MISSING)  # a dict: it has a function
        if call_id is MISSING:  # L90-91: not tool_call.id is defined
            if spans is not None:
                spans.source(f"messages[{index}].tool_calls[{k}].function")
            extend((out_json, separator))
        else:  # L92-94: out[:-1] cuts the last character whatever the JSON is
            if type(call_id) is not str:
                raise concat_error(call_id, f"messages[{index}].tool_calls[{k}].id")
            if spans is not None:
                path = f"messages[{index}].tool_calls[{k}]"
                spans.values(path + ".function", path + ".id")
            extend((out_json[:-1], _ID_OPEN, call_id, _ID_CLOSE, separator))


def _content_parts(content: Any, index: int) -> Any:
    """L60 / L76: ``for item in message['content']`` (content is not a string here): a list's
    items, a dict's keys, nothing when undefined; ``None`` or a number fails."""
    tp = type(content)
    if tp is list or tp is tuple or content is MISSING:
        return content
    return iterate(content, f"messages[{index}].content")


def _for_tools(tools: Any, spans: Recorder | None = None) -> str:
    """L39-44: ``{% for t in tools %}{{ t|tojson(indent=4) }}`` and a blank line ``{% endfor %}``;
    with ``spans``, emitted into the recorder's pieces, each tool's JSON a piece of its own."""
    out: list[str] = spans.pieces if spans is not None else []
    for index, tool in enumerate(iterate(tools, "tools")):  # L39
        try:
            text = tojson_indented(tool, 4)  # L40: t|tojson(indent=4)
        except TemplateTypeError as exc:
            raise TemplateTypeError(f"tools[{index}]: {exc}") from None
        if spans is not None:
            spans.source(f"tools[{index}]")
        out.append(text)
        out.append(_TOOL_TAIL)  # L41-43
    return "" if spans is not None else "".join(out)


# Rendered tool lists, keyed by the list's compact JSON (_jinja.by_json): ``tojson(indent=4)``
# is the slowest part of a short tool conversation, and the benchmark's tool_agent workload
# (five tools) renders about twice as fast with the cache.
_TOOLS_CACHE: dict[str, str] = {}
_TOOLS_CACHE_SIZE = 32
_TOOLS_CACHE_KEY = 1 << 15


def _tools_block(tools: Any) -> str:
    """L39-44 for a list of tools, from the cache when the same tools were rendered before."""
    if type(tools) is not list:
        return _for_tools(tools)
    return by_json(_TOOLS_CACHE, tools, _for_tools, _TOOLS_CACHE_SIZE, _TOOLS_CACHE_KEY)


def _calls(tool_calls: Any, index: int) -> Any:
    """L88: ``for tool_call in message.tool_calls`` when it is not a list: a tuple's items, a
    string's characters, a dict's keys; a number or boolean fails."""
    if type(tool_calls) is tuple:
        return tool_calls
    return list(iterate(tool_calls, f"messages[{index}].tool_calls"))


def _undefined_json(path: str) -> TemplateTypeError:
    """``undefined|tojson``: transformers' filter hands jinja2's Undefined to ``json.dumps``."""
    return TemplateTypeError(f"{path} is undefined: Object of type Undefined is not JSON serializable")
