"""Port of ``reference_templates/glm4_5.jinja`` (Z.ai GLM-4.5).

Laid out like the template: the literal ``[gMASK]<sop>`` and the tool block (lines 1-22), the
``visible_text`` macro (23-37, :func:`visible_text`), the pre-pass for the last user message
(38-43, :class:`Namespace`), the message loop with its four roles in the template's order
(44-100) and the generation prompt (101-103).  ``Lnn`` comments cite template lines.

Whitespace: ``trim_blocks`` eats the newline after each ``%}`` and ``lstrip_blocks`` the
indentation before a tag, but not after a ``}}``: the newlines a tool call writes (after its
name, after each ``</arg_value>``) and a list-content tool response's (L90-94) are the
template's raw text between tags.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, concat_error, is_iterable, item, iterate, namespace, think_split, to_str, tojson
from .._record import Record, setters
from .._spans import Parts, Recorder
from ..errors import TemplateTypeError, UndefinedValueError

_PREFIX = "[gMASK]<sop>"  # L1
# L3-9, the tool block's head
_TOOLS_HEAD = (
    "<|system|>\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
)
# L13-22, its tail
_TOOLS_TAIL = (
    "</tools>\n\nFor each function call, output the function name and arguments within the "
    "following XML format:\n<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n"
    "<arg_value>{arg-value-1}</arg_value>\n<arg_key>{arg-key-2}</arg_key>\n"
    "<arg_value>{arg-value-2}</arg_value>\n...\n</tool_call>"
)
_USER = "<|user|>\n"  # L45-46
_NOTHINK = "/nothink"  # L47
#: L49 and L102: an assistant turn's header, and the generation prompt.
ASSISTANT_HEADER = "<|assistant|>"
#: L63 and L102: the empty think block (the generation prompt's prefill under enable_thinking false).
EMPTY_THINK = "\n<think></think>"
_THINK_OPEN = "\n<think>"  # L61
_THINK_CLOSE = "</think>"  # L61
_CALL_OPEN = "\n<tool_call>"  # L73
_KEY_OPEN = "\n<arg_key>"  # L73's newline, L76
_KEY_CLOSE = "</arg_key>\n<arg_value>"  # L76-77
_VALUE_CLOSE = "</arg_value>"  # L77
_CALL_CLOSE = "\n</tool_call>"  # L77's newline, L79
_OBSERVATION = "<|observation|>"  # L84, L90
_RESPONSE_OPEN = "\n<tool_response>\n"  # L86, L90-92
_RESPONSE_CLOSE = "\n</tool_response>"  # L88, L93-94
_SYSTEM = "<|system|>\n"  # L97-98


class Namespace(Record):
    """L38-43: ``ns = namespace(last_user_index=-1)`` after the scan: the index of the last
    message whose role is ``user`` (-1 when none is)."""

    __slots__ = ("last_user_index",)

    last_user_index: int

    def __init__(self, last_user_index: int) -> None:
        _set_last_user_index(self, last_user_index)


(_set_last_user_index,) = setters(Namespace).values()


def scan(messages: Sequence[Any]) -> Namespace:
    """L38-43."""
    last = -1
    for index, m in enumerate(messages):
        if type(m) is dict and m.get("role", MISSING) == "user":
            last = index
    return Namespace(last)


def visible_text(content: Any, path: str, parts: list[tuple[str, str | None]] | None = None) -> str:
    """L23-37, the macro: a string as is; a list's (or tuple's) ``text`` parts (a dict item whose
    ``type`` is ``'text'``, its ``text`` with ``str()``) and string items, joined with nothing;
    anything else (a dict, ``None``, a number) with ``str()``; undefined is iterable and gives
    ``""``.  With ``parts``, each rendered piece's ``(text, path)`` is appended to it."""
    if type(content) is str:  # L24-25
        if parts is not None:
            parts.append((content, path))
        return content
    if is_iterable(content) and type(content) is not dict:  # L26: a list, a tuple, undefined
        out = []
        for k, part in enumerate(iterate(content, path)):  # L27
            if type(part) is dict and part.get("type", MISSING) == "text":  # L28-29
                text = to_str(part.get("text", MISSING))
                where = f"{path}[{k}].text"
            elif type(part) is str:  # L30-31
                text = part
                where = f"{path}[{k}]"
            else:
                continue
            out.append(text)
            if parts is not None:
                parts.append((text, where))
        return "".join(out)
    text = to_str(content)  # L34-35
    if parts is not None:
        parts.append((text, path))
    return text


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, an assistant turn's generated range runs from after its
    ``<|assistant|>`` (and after the empty think block when ``enable_thinking`` is passed and
    false and the turn writes one: the generation prompt's prefill) to the end of the turn (the
    format writes no end-of-turn token in a turn: the model ends it with the next role's)."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    emit(_PREFIX)  # L1
    tools = variables.get("tools", MISSING)
    if tools:  # L2-22
        emit(_TOOLS_HEAD)
        for k, tool in enumerate(iterate(tools, "tools")):  # L10-12
            if spans is not None:
                spans.source(f"tools[{k}]")
            emit(_tojson(tool, f"tools[{k}]"))  # L11: tool|tojson(ensure_ascii=False)
            emit("\n")
        emit(_TOOLS_TAIL)

    namespace(variables)  # L38: the call itself
    ns = scan(messages)  # L38-43
    enable_thinking = variables.get("enable_thinking", MISSING)
    # enable_thinking is defined and not enable_thinking (L47, L102)
    no_thinking = enable_thinking is not MISSING and not enable_thinking

    for index, m in enumerate(messages):  # L44
        if type(m) is dict:
            role = m.get("role", MISSING)
            content = m.get("content", MISSING)
        else:  # any attribute of a value that is not a dict is undefined
            role = content = MISSING
        path = f"messages[{index}].content"
        if role == "user":  # L45-47
            parts: list[Any] | None = [] if spans is not None else None
            text = visible_text(content, path, parts)  # L46
            emit(_USER)
            if spans is not None:
                _emit_parts(out, spans, text, parts, content, index)
            else:
                emit(text)
            # L47: the macro runs again on the same content (the same text)
            if no_thinking and not text.endswith(_NOTHINK):
                emit(_NOTHINK)
        elif role == "assistant":  # L48-80
            _assistant(out, spans, m, index, content, path, ns, no_thinking)
        elif role == "tool":  # L81-95
            if type(content) is str:  # L82-88
                # L83: loop.first or messages[loop.index0 - 1].role != "tool"
                previous = messages[index - 1] if index else None
                if index == 0 or type(previous) is not dict or previous.get("role", MISSING) != "tool":
                    emit(_OBSERVATION)  # L84
                if spans is not None:
                    spans.line(index)
                extend((_RESPONSE_OPEN, content, _RESPONSE_CLOSE))  # L86-88
            else:  # L89-94
                emit(_OBSERVATION)
                for k, tr in enumerate(iterate(content, path)):  # L90
                    # L93: tr.output if tr.output is defined else tr
                    output = tr.get("output", MISSING) if type(tr) is dict else MISSING
                    if output is not MISSING:
                        value, where = output, f"{path}[{k}].output"
                    else:
                        value, where = tr, f"{path}[{k}]"
                    if spans is not None:
                        spans.line(where)
                    extend((_RESPONSE_OPEN, to_str(value), _RESPONSE_CLOSE))  # L91-94
        elif role == "system":  # L96-98
            parts = [] if spans is not None else None
            text = visible_text(content, path, parts)
            emit(_SYSTEM)
            if spans is not None:
                _emit_parts(out, spans, text, parts, content, index)
            else:
                emit(text)

    if variables.get("add_generation_prompt", MISSING):  # L101-103
        emit(ASSISTANT_HEADER)
        if no_thinking:
            emit(EMPTY_THINK)
    return "".join(out)


def _assistant(out: list[str], spans: Recorder | None, m: dict[str, Any], index: int, content: Any,
               path: str, ns: Namespace, no_thinking: bool) -> None:
    """L48-80: an assistant turn (``m`` is a dict: only a dict has a role)."""
    emit = out.append
    extend = out.extend
    emit(ASSISTANT_HEADER)  # L49
    parts: list[tuple[str, str | None]] | None = [] if spans is not None else None
    reasoning = ""  # L50
    text = visible_text(content, path, parts)  # L51
    answer, answer_at = text, 0
    field = m.get("reasoning_content", MISSING)
    reasoning_at = 0
    reasoning_source: Any = None
    if type(field) is str:  # L52-53
        reasoning = field
        reasoning_source = (index, ".reasoning_content")
    elif "</think>" in text:  # L55-57
        reasoning, answer = think_split(text)
        head = text.partition("</think>")[0].rstrip("\n")
        reasoning_at = len(head) - len(reasoning)
        answer_at = len(text) - len(answer)
    thinks = index > ns.last_user_index and reasoning  # L60
    if spans is not None:
        spans.open(after=EMPTY_THINK if not thinks and no_thinking else "")
    if thinks:  # L60-61
        shown = reasoning.strip()
        if spans is not None:
            if reasoning_source is None:
                at = reasoning_at + len(reasoning) - len(reasoning.lstrip())
                reasoning_source = _slice_source(index, content, parts, at, shown)
            spans.line(reasoning_source)
        extend((_THINK_OPEN, shown, _THINK_CLOSE))
    else:  # L62-63
        emit(EMPTY_THINK)
    stripped = answer.strip()
    if stripped:  # L65-66
        if spans is not None:
            at = answer_at + len(answer) - len(answer.lstrip())
            spans.line(_slice_source(index, content, parts, at, stripped))
        extend(("\n", stripped))
    tool_calls = m.get("tool_calls", MISSING)
    if tool_calls:  # L68
        calls_path = f"messages[{index}].tool_calls"
        for k, tc in enumerate(iterate(tool_calls, calls_path)):  # L69
            where = f"{calls_path}[{k}]"
            function = tc.get("function", MISSING) if type(tc) is dict else MISSING
            if function:  # L70-72: set tc = tc.function
                tc = function
                where += ".function"
            name = tc.get("name", MISSING) if type(tc) is dict else MISSING
            if type(name) is not str:  # L73: '\n<tool_call>' + tc.name
                raise concat_error(name, where + ".name")
            arguments = tc.get("arguments", MISSING) if type(tc) is dict else MISSING  # L74
            if type(arguments) is not dict:  # L75: _args.items() on a value without items()
                raise UndefinedValueError(
                    f"{where}.arguments is {_kind(arguments)}: it has no attribute 'items'")
            if spans is not None:
                spans.line(where + ".name")
            extend((_CALL_OPEN, name))
            for position, (key, value) in enumerate(arguments.items()):  # L75-78
                # the path of the value: ``.name`` for an identifier key, else ``['a key']``
                key_path = (f"{where}.arguments.{key}" if type(key) is str and key.isidentifier()
                            else f"{where}.arguments[{key!r}]")
                if type(value) is str:  # L77: v if v is string
                    shown = value
                else:
                    shown = _tojson(value, key_path)
                if spans is not None:
                    spans.line(f"{where}.arguments[{position}]", key_path)
                extend((_KEY_OPEN, to_str(key), _KEY_CLOSE, shown, _VALUE_CLOSE))
            emit(_CALL_CLOSE)  # L79
    if spans is not None:
        spans.close()


def _kind(value: Any) -> str:
    return "undefined" if value is MISSING else f"a {type(value).__name__}"


def _slice_source(index: int, content: Any, parts: Any, at: int, value: str) -> Any:
    """The source of ``value``, the slice from ``at`` of what the macro rendered from
    ``messages[index].content``: its key for a string content, else its parts' share."""
    if type(content) is str:
        return index
    return Parts(parts or (), "").source(at, value)


def _emit_parts(out: list[str], spans: Recorder, text: str, parts: Any, content: Any,
                index: int) -> None:
    """With spans: the macro's text, one piece per part it rendered (one for a string)."""
    if type(content) is str:
        spans.field(index, ".content")
        out.append(text)
        return
    for piece, where in parts:
        if piece:
            spans.source(where)
            out.append(piece)


def _tojson(value: Any, path: str) -> str:
    """``value|tojson(ensure_ascii=False)``, a failure naming ``path``."""
    try:
        return tojson(value, ensure_ascii=False)
    except TemplateTypeError as exc:
        raise TemplateTypeError(f"{path}: {exc}") from None
