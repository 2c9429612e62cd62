"""Port of ``reference_templates/gpt_oss.jinja`` (OpenAI gpt-oss-20b and gpt-oss-120b: Harmony).

Laid out like the template: the tool-definition macros as functions (``render_typescript_type``
L10-106 as :func:`typescript_type`, ``render_tool_namespace`` L108-148 as
:func:`tool_namespace`, ``render_builtin_tools`` L150-193 as two constants), the system message
(``build_system_message`` L196-223, called at L229-231), the developer message (L234-255), the
message loop in the template's ``if/elif`` order (L258-326) and the generation prompt
(L329-331).  ``Lnn`` comments cite template lines.

The pre-pass (:func:`scan`, a :class:`Namespace` record) computes what the loop reads ahead:
where ``loop_messages`` starts (L234-240) and, for L277-282's ``future_final_message``, the last
assistant message without a ``tool_calls`` key; ``found`` is true for a turn before it (the
template scans the rest of the conversation on every tool-call turn; this reads the answer off
one index).  ``last_tool_call``
(L258, L301, L315) is the loop's running state.

Jinja behaviours the port reproduces:

- ``set has_object_variants = true`` inside L48-52's ``for`` assigns a variable of the loop's own
  scope: after the loop it is ``false`` again, so L53's test is always false (L54 never runs)
  and a ``oneOf`` renders as the union of its variants even when one is an object.  The loop
  still runs (a ``oneOf`` that cannot be iterated fails there).
- ``param_spec['items']`` on a mapping without an ``items`` key is the mapping's ``items``
  method (jinja2's item lookup falls back to the attribute for a string key): it is true, its
  ``['type']`` is undefined, and rendered as a type it is ``any`` (so ``{"type": "array"}``
  renders ``any[]`` through L22-26, not L33).
- ``param_spec.properties.items()`` on a true value that is not a mapping calls an undefined
  value: an :class:`~chatformats.errors.UndefinedValueError`.
- Whitespace that leaks: L94's ``{{ render_typescript_type(...) }}`` keeps the newline and the
  16 spaces before it (``a?: \\n                number``); L62's ``{{ "// default: " ... }}`` the 20
  spaces before it (``trim_blocks`` takes only the newline); L64-66 ``" | "`` and the newline
  after it (``{% endif -%}`` strips what follows, not what precedes).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import (
    MISSING,
    attr,
    contains,
    is_mapping,
    item,
    iterate,
    namespace,
    need_str,
    strftime_now,
    to_str,
    tojson,
)
from .._record import Record, setters
from .._spans import Recorder
from ..errors import NestingTooDeep, TemplateError, TemplateTypeError, UndefinedValueError

# -- template text

_SYSTEM_OPEN = "<|start|>system<|message|>"  # L229
_END = "<|end|>"  # L231, L254, L292, L294, L306, L314, L322, L324
_DEFAULT_IDENTITY = "You are ChatGPT, a large language model trained by OpenAI."  # L198
_CUTOFF = "\nKnowledge cutoff: 2024-06\nCurrent date: "  # L200-202
_REASONING = "\n\nReasoning: "  # L202, L206
_TOOLS_HEAD = "# Tools\n\n"  # L208, L251
_CHANNELS = "# Valid channels: analysis, commentary, final. Channel must be included for every message."  # L219
_CALLS_NOTE = "\nCalls to these tools must go to the commentary channel: 'functions'."  # L221
_DEVELOPER_OPEN = "<|start|>developer<|message|>"  # L244
_INSTRUCTIONS = "# Instructions\n\n"  # L246
_NAMESPACE_OPEN = "## functions\n\nnamespace functions {\n\n"  # L109-110
_NAMESPACE_CLOSE = "} // namespace functions"  # L147
#: L292, L294, L306: an analysis message; the generated range opens after ``<|start|>assistant``.
_ANALYSIS = "<|start|>assistant<|channel|>analysis<|message|>"
_ASSISTANT = "<|start|>assistant"  # L292-L314's header, and the generation prompt (L330)
_CALL_OPEN = "<|start|>assistant to=functions."  # L296-297
_CALL_CHANNEL = "<|channel|>commentary "  # L297
_MESSAGE = "<|message|>"  # L298
_CALL = "<|call|>"  # L300
_FINAL = "<|start|>assistant<|channel|>final<|message|>"  # L311, L314
_RETURN = "<|return|>"  # L311
_TOOL_OPEN = "<|start|>functions."  # L321
_TOOL_CHANNEL = " to=assistant<|channel|>commentary<|message|>"  # L322
_USER = "<|start|>user<|message|>"  # L324

_MSG_CONTENT_TAGS = (
    "You have passed a message containing <|channel|> tags in the content field. Instead of doing "
    "this, you should pass analysis messages (the string between '<|message|>' and '<|end|>') in "
    "the 'thinking' field, and final messages (the string between '<|message|>' and '<|end|>') in "
    "the 'content' field.")  # L265
_MSG_THINKING_TAGS = (
    "You have passed a message containing <|channel|> tags in the thinking field. Instead of doing "
    "this, you should pass analysis messages (the string between '<|message|>' and '<|end|>') in "
    "the 'thinking' field, and final messages (the string between '<|message|>' and '<|end|>') in "
    "the 'content' field.")  # L270
_MSG_BOTH = ("Cannot pass both content and thinking in an assistant message with tool calls! Put "
             "the analysis message in one or the other, but not both.")  # L290
_MSG_NO_CALL = "Message has tool role, but there was no previous assistant message with a tool call!"  # L319
_ANALYSIS_TAG = "<|channel|>analysis<|message|>"  # L264, L269
_FINAL_TAG = "<|channel|>final<|message|>"  # L264, L269

#: L151-186: the browser tool's namespace.
BROWSER = (
    "## browser\n\n"
    "// Tool for browsing.\n"
    "// The `cursor` appears in brackets before each browsing display: `[{cursor}]`.\n"
    "// Cite information from the tool using the following format:\n"
    "// `【{cursor}†L{line_start}(-L{line_end})?】`, for example: `【6†L9-L11】` or `【8†L3】`.\n"
    "// Do not quote more than 10 words directly from the tool output.\n"
    "// sources=web (default: web)\n"
    "namespace browser {\n\n"
    "// Searches for information related to `query` and displays `topn` results.\n"
    "type search = (_: {\n"
    "query: string,\n"
    "topn?: number, // default: 10\n"
    "source?: string,\n"
    "}) => any;\n\n"
    "// Opens the link `id` from the page indicated by `cursor` starting at line number `loc`, showing `num_lines` lines.\n"
    "// Valid link ids are displayed with the formatting: `【{id}†.*】`.\n"
    "// If `cursor` is not provided, the most recent page is implied.\n"
    "// If `id` is a string, it is treated as a fully qualified URL associated with `source`.\n"
    "// If `loc` is not provided, the viewport will be positioned at the beginning of the document or centered on the most relevant passage, if available.\n"
    "// Use this function without `id` to scroll to a new location of an opened page.\n"
    "type open = (_: {\n"
    "id?: number | string, // default: -1\n"
    "cursor?: number, // default: -1\n"
    "loc?: number, // default: -1\n"
    "num_lines?: number, // default: -1\n"
    "view_source?: boolean, // default: false\n"
    "source?: string,\n"
    "}) => any;\n\n"
    "// Finds exact matches of `pattern` in the current page, or the page given by `cursor`.\n"
    "type find = (_: {\n"
    "pattern: string,\n"
    "cursor?: number, // default: -1\n"
    "}) => any;\n\n"
    "} // namespace browser\n\n"
)

#: L188-192: the python tool's section.
PYTHON = (
    "## python\n\n"
    "Use this tool to execute Python code in your chain of thought. The code will not be shown to "
    "the user. This tool should be used for internal reasoning, but not for code that is intended "
    "to be visible to the user (e.g. when creating plots, tables, or files).\n\n"
    "When you send a message containing Python code to python, it will be executed in a stateful "
    "Jupyter notebook environment. python will respond with the output of the execution or time "
    "out after 120.0 seconds. The drive at '/mnt/data' can be used to save and persist user files. "
    "Internet access for this session is UNKNOWN. Depends on the cluster.\n\n"
)

_OBJECT_INDENT = ": \n                "  # L93-94: ": " and the whitespace before L94's {{
_DEFAULT_INDENT = "                    // default: "  # L61-62: 20 spaces kept, then the literal


class _DictItems:
    """``mapping['items']`` for a mapping without an ``items`` key: jinja2 falls back to the
    attribute, the mapping's bound ``items`` method.  True; every item and attribute the
    template reads of it is undefined, so as a type it renders ``any`` (L104)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<built-in method items of dict object>"


_DICT_ITEMS = _DictItems()


def _step(key: Any) -> str:
    """A mapping key as a path step (``.name`` for an identifier, else ``[repr]``)."""
    return f".{key}" if type(key) is str and key.isidentifier() else f"[{key!r}]"


# -- L10-106: render_typescript_type


#: How deep :func:`typescript_type` calls itself before it refuses with
#: :class:`~chatformats.errors.NestingTooDeep`.  jinja2 spends about five Python frames on each
#: call of the recursive macro, so the reference fails with ``RecursionError`` from about 196
#: nested types on a fresh stack (158 with 190 frames of the caller's stack below it); within
#: this limit it renders, so here port and reference agree (``docs/formats.md``, gpt-oss).
TYPE_DEPTH_LIMIT = 150


def typescript_type(spec: Any, path: str, out: list[str], src: dict[int, str] | None,
                    depth: int = 1) -> None:
    """``render_typescript_type(param_spec, required_params)`` (L10-106): appends the type's
    pieces to ``out``; with ``src``, the input path of each piece that comes from ``spec``
    (``required_params`` and ``is_nullable`` are never read: only passed down).  ``depth``: how
    many calls of the macro this one is inside (:data:`TYPE_DEPTH_LIMIT`)."""
    if depth > TYPE_DEPTH_LIMIT:
        raise NestingTooDeep(
            f"{path}: schema types nested more than {TYPE_DEPTH_LIMIT} deep (the template's "
            "recursive macro fails near there)")
    emit = out.append
    if type(spec) is dict:
        get = spec.get
        kind = get("type", MISSING)
    else:  # any attribute of a value that is not a mapping is undefined
        get = None
        kind = MISSING
    if kind == "array":  # L11 (only a mapping has a type)
        assert get is not None
        items = get("items", _DICT_ITEMS)  # L12: param_spec['items']
        if items:
            inner_kind = item(items, "type")  # L13-20: param_spec['items']['type']
            if inner_kind == "string":
                emit("string[]")  # L14
            elif inner_kind == "number":
                emit("number[]")  # L16
            elif inner_kind == "integer":
                emit("number[]")  # L18
            elif inner_kind == "boolean":
                emit("boolean[]")  # L20
            else:
                # L22: set inner_type = render_typescript_type(param_spec['items'], required_params)
                inner: list[str] = []
                inner_src: dict[int, str] | None = {} if src is not None else None
                typescript_type(items, path + ".items", inner, inner_src, depth + 1)
                inner_type = "".join(inner)
                if inner_type == "object | object" or len(inner_type) > 50:  # L23
                    emit("any[]")  # L24
                else:
                    _merge(out, src, inner, inner_src)  # L26: inner_type + "[]"
                    emit("[]")
            if get("nullable", MISSING):  # L29
                emit(" | null")  # L30
        else:
            emit("any[]")  # L33
            if get("nullable", MISSING):  # L34
                emit(" | null")  # L35
    elif (kind is not MISSING and (type(kind) is list or type(kind) is tuple)
          and len(kind) > 0):  # L38: defined, iterable, not string, not mapping, [0] defined
        assert get is not None
        if len(kind) > 1:  # L40
            for k, member in enumerate(kind):  # L41: param_spec.type | join(" | ")
                if k:
                    emit(" | ")
                if src is not None:
                    src[len(out)] = f"{path}.type[{k}]"
                emit(to_str(member))
        else:
            if src is not None:
                src[len(out)] = f"{path}.type[0]"
            emit(to_str(kind[0]))  # L43
    elif get is not None and get("oneOf", MISSING):  # L45
        variants = get("oneOf")
        where = path + ".oneOf"
        # L47-52: has_object_variants is set inside the loop's scope only, so L53 is false and
        # L54 never runs; the loop itself still iterates (and may fail) and reads variant.type.
        for variant in iterate(variants, where):
            attr(variant, "type")
        listed = list(iterate(variants, where))
        last = len(listed) - 1
        for k, variant in enumerate(listed):  # L56
            vpath = f"{where}[{k}]"
            typescript_type(variant, vpath, out, src, depth + 1)  # L57
            description = attr(variant, "description")
            if description:  # L58
                emit("// ")  # L59
                if src is not None:
                    src[len(out)] = vpath + ".description"
                emit(need_str(description, vpath + ".description"))
            if type(variant) is dict and "default" in variant:  # L61: variant.default is defined
                default = _tojson_at(variant["default"], vpath + ".default")
                emit(_DEFAULT_INDENT)  # L62
                if src is not None:
                    src[len(out)] = vpath + ".default"
                emit(default)
            if k != last:  # L64
                emit(" | \n")  # L65-66
    elif kind == "string":  # L69
        assert get is not None
        enum = get("enum", MISSING)
        if enum:  # L70
            # L71: '"' + param_spec.enum|join('" | "') + '"'
            if type(enum) not in (list, tuple, str, dict):
                raise TemplateTypeError(
                    f"{path}.enum is {type(enum).__name__}: '{type(enum).__name__}' object is not iterable")
            pieces = [to_str(member) for member in enum]
            emit('"')
            for k, piece in enumerate(pieces):
                if k:
                    emit('" | "')
                if src is not None:
                    src[len(out)] = f"{path}.enum[{k}]"
                emit(piece)
            emit('"')
        else:
            emit("string")  # L73
            if get("nullable", MISSING):  # L74
                emit(" | null")  # L75
    elif kind == "number":  # L78
        emit("number")  # L79
    elif kind == "integer":  # L80
        emit("number")  # L81
    elif kind == "boolean":  # L82
        emit("boolean")  # L83
    elif kind == "object":  # L85
        assert get is not None
        properties = get("properties", MISSING)
        if properties:  # L86
            emit("{\n")  # L87
            pairs = _items(properties, path + ".properties")  # L88
            last = len(pairs) - 1
            for k, (prop_name, prop_spec) in enumerate(pairs):
                if src is not None:
                    src[len(out)] = f"{path}.properties[{k}]"
                emit(to_str(prop_name))  # L89
                required = get("required", MISSING) or []  # L90: param_spec.required or []
                if not contains(required, prop_name, path + ".required"):
                    emit("?")  # L91
                emit(_OBJECT_INDENT)  # L93-94
                typescript_type(prop_spec, path + ".properties" + _step(prop_name), out, src, depth + 1)  # L94
                if k != last:  # L95
                    emit(", ")  # L96
            emit("}")  # L99
        else:
            emit("object")  # L101
    else:
        emit("any")  # L104


def _merge(out: list[str], src: dict[int, str] | None, pieces: list[str],
           sources: dict[int, str] | None) -> None:
    """Append ``pieces`` (rendered apart, with their ``sources`` by position) to ``out``."""
    if src is not None and sources:
        base = len(out)
        for position, path in sources.items():
            src[base + position] = path
    out.extend(pieces)


def _items(value: Any, path: str) -> list[tuple[Any, Any]]:
    """``value.items()``: a mapping's pairs; for a value that is not a mapping the attribute is
    undefined, and calling it fails."""
    if is_mapping(value):
        return list(value.items())
    raise UndefinedValueError(f"{path}.items is undefined (calling it)")


def _tojson_at(value: Any, path: str) -> str:
    try:
        return tojson(value)
    except TemplateTypeError as exc:
        raise TemplateTypeError(f"{path}: {exc}") from None


# -- L108-148: render_tool_namespace


def tool_namespace(tools: Any, out: list[str], src: dict[int, str] | None) -> None:
    """``render_tool_namespace("functions", tools)`` (L108-148)."""
    emit = out.append
    emit(_NAMESPACE_OPEN)  # L109-110
    for i, tool in enumerate(iterate(tools, "tools")):  # L111
        where = f"tools[{i}].function"
        tool = attr(tool, "function", f"tools[{i}]")  # L112: set tool = tool.function
        description = attr(tool, "description", where)
        emit("// ")  # L113
        if src is not None:
            src[len(out)] = where + ".description"
        emit(need_str(description, where + ".description"))
        name = attr(tool, "name", where)
        emit("\ntype ")  # L113-114
        if src is not None:
            src[len(out)] = where + ".name"
        emit(need_str(name, where + ".name"))
        emit(" = ")  # L114
        parameters = attr(tool, "parameters", where)
        if parameters and attr(parameters, "properties", where + ".parameters"):  # L115
            ppath = where + ".parameters"
            emit("(_: {\n")  # L116
            pairs = _items(parameters["properties"], ppath + ".properties")  # L117
            for k, (param_name, param_spec) in enumerate(pairs):
                spath = ppath + ".properties" + _step(param_name)
                description = attr(param_spec, "description", spath)
                if description:  # L118
                    emit("// ")  # L119
                    if src is not None:
                        src[len(out)] = spath + ".description"
                    emit(need_str(description, spath + ".description"))
                    emit("\n")
                if src is not None:
                    src[len(out)] = f"{ppath}.properties[{k}]"
                emit(to_str(param_name))  # L121
                required = parameters.get("required", MISSING) or []  # L122
                if not contains(required, param_name, ppath + ".required"):
                    emit("?")  # L123
                emit(": ")  # L125
                typescript_type(param_spec, spath, out, src)  # L126
                if type(param_spec) is dict and "default" in param_spec:  # L127: is defined
                    default = param_spec["default"]
                    if param_spec.get("enum", MISSING):  # L128
                        text = need_str(default, spath + ".default")
                        emit(", // default: ")  # L129
                    elif param_spec.get("oneOf", MISSING):  # L130
                        text = need_str(default, spath + ".default")
                        emit("// default: ")  # L131
                    else:
                        text = _tojson_at(default, spath + ".default")
                        emit(", // default: ")  # L133
                    if src is not None:
                        src[len(out)] = spath + ".default"
                    emit(text)
                emit(",\n")  # L136-140: the same either way
            emit("}) => any;\n\n")  # L142
        else:
            emit("() => any;\n\n")  # L144
    emit(_NAMESPACE_CLOSE)  # L147


# -- the message loop's checks


def _has_tags(value: Any, index: int, field: str) -> bool:
    """L264 / L269: ``"<|channel|>analysis<|message|>" in value or "<|channel|>final<|message|>"
    in value`` (a substring test for a string; for another value Python's ``in``, which fails
    for ``None`` or a number)."""
    if type(value) is str:
        return _ANALYSIS_TAG in value or _FINAL_TAG in value
    path = f"messages[{index}]{field}"
    return contains(value, _ANALYSIS_TAG, path) or contains(value, _FINAL_TAG, path)


def _text(value: Any, index: int, field: str) -> str:
    """``"..." + value``: the value when it is a string, else jinja2's failure naming the field."""
    if type(value) is str:
        return value
    return need_str(value, f"messages[{index}]{field}")


# -- the pre-pass


class _NamespaceFields:
    """The fields of :class:`Namespace`, written while :func:`_namespace` builds one."""

    __slots__ = ("developer_message", "loop_start", "future_final")

    developer_message: Any
    loop_start: int
    future_final: int


class Namespace(Record, _NamespaceFields):
    """The template's state once the pre-pass has run: ``developer_message`` (L235/L238: the
    first message's content when its role is ``developer`` or ``system``, else ``""``),
    ``loop_start`` (where L236/L239's ``loop_messages`` begins in ``messages``: 1 or 0; the loop
    reads ``messages`` from there instead of copying the slice) and ``future_final`` (for
    L277-282's ``future_final_message``: the position in ``loop_messages`` of the last assistant
    message without a ``tool_calls`` key, -1 when there is none; a tool-call turn before it has
    ``future_final_message.found``)."""

    __slots__ = ()


#: A record built without its constructor (on every render); its fields are written through the
#: slots' setters, bound once at import (assigning ``__class__`` would raise an audit event).
_new = object.__new__
_set_developer_message = setters(Namespace)["developer_message"]
_set_loop_start = setters(Namespace)["loop_start"]
_set_future_final = setters(Namespace)["future_final"]


def _namespace(developer_message: Any, loop_start: int, future_final: int) -> Namespace:
    made = _new(Namespace)
    _set_developer_message(made, developer_message)
    _set_loop_start(made, loop_start)
    _set_future_final(made, future_final)
    return made


def scan(messages: Sequence[Any]) -> Namespace:
    """L234-240, and what L277-282 read ahead (:class:`Namespace`)."""
    first = item(messages, 0, "messages")
    role = attr(first, "role", "messages[0]")  # L234 (an empty conversation fails here)
    if role == "developer" or role == "system":
        developer_message = attr(first, "content")  # L235
        start = 1  # L236
    else:
        developer_message = ""  # L238
        start = 0  # L239
    last_final = -1
    for k in range(len(messages) - 1, start - 1, -1):
        message = messages[k]
        if type(message) is dict and message.get("role", MISSING) == "assistant" \
                and "tool_calls" not in message:  # L279
            last_final = k - start
            break
    return _namespace(developer_message, start, last_final)


# -- the template


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, an assistant turn's generated range runs from after its
    first ``<|start|>assistant`` through its ``<|call|>``, ``<|return|>`` or ``<|end|>``."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend
    get = variables.get
    tools = get("tools", MISSING)

    # L229-231: the system message (build_system_message, L196-223)
    model_identity = get("model_identity", MISSING)
    if model_identity is MISSING:  # L197-198
        model_identity = _DEFAULT_IDENTITY
        identity_source = None
    else:
        identity_source = "model_identity"
    need_str(model_identity, "model_identity")  # L200
    # L202: strftime_now("%Y-%m-%d"); for a plain datetime from year 1000 on that is the
    # zero-padded date, written here directly (datetime.strftime costs a fifth of a short
    # render); anything else (an earlier year, which glibc does not pad; a datetime subclass,
    # whose own strftime runs; a shadowed clock) goes through the shared primitive.
    if type(now) is datetime and now.year >= 1000:
        date = f"{now.year}-{now.month:02d}-{now.day:02d}"
    else:
        date = strftime_now(now, "%Y-%m-%d")
    reasoning_effort = get("reasoning_effort", MISSING)
    if reasoning_effort is MISSING:  # L203-204
        reasoning_effort = "medium"
        effort_source = None
    else:
        effort_source = "reasoning_effort"
    need_str(reasoning_effort, "reasoning_effort")  # L206
    if spans is not None:
        spans.line(identity_source, None, effort_source)
    extend((_SYSTEM_OPEN, model_identity, _CUTOFF, date, _REASONING, reasoning_effort, "\n\n"))
    builtin_tools = get("builtin_tools", MISSING)
    if builtin_tools:  # L207
        emit(_TOOLS_HEAD)  # L208
        namespace(variables)  # L209
        browser = python = False
        for tool in iterate(builtin_tools, "builtin_tools"):  # L210-216
            if tool == "browser":
                browser = True
            elif tool == "python":
                python = True
        if browser:  # L217: render_builtin_tools(...), L151-186
            emit(BROWSER)
        if python:  # L188-192
            emit(PYTHON)
    emit(_CHANNELS)  # L219
    if tools:  # L220
        emit(_CALLS_NOTE)  # L221
    emit(_END)  # L231

    ns = scan(messages)  # L234-240
    developer_message = ns.developer_message
    start = ns.loop_start
    last_final = ns.future_final

    if developer_message or tools:  # L243
        emit(_DEVELOPER_OPEN)  # L244
        if developer_message:  # L245
            if spans is not None:
                spans.fields(0, ".content")
            extend((_INSTRUCTIONS, to_str(developer_message), "\n\n"))  # L246-248
        if tools:  # L250
            emit(_TOOLS_HEAD)  # L251
            if spans is None:
                tool_namespace(tools, out, None)  # L252
            else:
                pieces: list[str] = []
                sources: dict[int, str] = {}
                tool_namespace(tools, pieces, sources)
                for position, piece in enumerate(pieces):
                    path = sources.get(position)
                    if path is not None:
                        spans.source(path)
                    emit(piece)
        emit(_END)  # L254

    namespace(variables)  # L258: last_tool_call = namespace(name=none)
    last_name: Any = None
    last_name_source = ""
    add_generation_prompt = get("add_generation_prompt", MISSING)
    count = len(messages) - start
    for k in range(count):  # L259
        index = start + k
        message = messages[index]
        role = message.get("role", MISSING) if type(message) is dict else MISSING
        if role == "assistant":  # L261 (so message is a dict)
            content = message.get("content", MISSING)
            thinking = message.get("thinking", MISSING)
            if content is not MISSING and _has_tags(content, index, ".content"):  # L263-264
                raise TemplateError(_MSG_CONTENT_TAGS)  # L265
            if thinking is not MISSING and _has_tags(thinking, index, ".thinking"):  # L268-269
                raise TemplateError(_MSG_THINKING_TAGS)  # L270
            if "tool_calls" in message:  # L273
                where = f"messages[{index}]"
                namespace(variables)  # L277
                found = last_final > k  # L278-282
                # L285: message.tool_calls[0]
                call_path = where + ".tool_calls[0]"
                tool_call = item(message["tool_calls"], 0, where + ".tool_calls")
                function = attr(tool_call, "function", call_path)  # L286
                if function:
                    tool_call = function  # L287
                    call_path += ".function"
                opened = False
                if content and thinking:  # L289
                    raise TemplateError(_MSG_BOTH)  # L290
                elif content and not found:  # L291
                    text = need_str(content, where + ".content")
                    if spans is not None:
                        spans.open(after=_ASSISTANT)
                        spans.fields(index, ".content")
                    extend((_ANALYSIS, text, _END))  # L292
                    opened = True
                elif thinking and not found:  # L293
                    text = need_str(thinking, where + ".thinking")
                    if spans is not None:
                        spans.open(after=_ASSISTANT)
                        spans.fields(index, ".thinking")
                    extend((_ANALYSIS, text, _END))  # L294
                    opened = True
                name = need_str(attr(tool_call, "name", call_path), call_path + ".name")  # L297
                if type(tool_call) is dict and "content_type" in tool_call:  # L298
                    content_type = need_str(tool_call["content_type"], call_path + ".content_type")
                    type_source: Any = call_path + ".content_type"
                else:
                    content_type = "json"
                    type_source = None
                arguments = _tojson_at(attr(tool_call, "arguments", call_path),
                                       call_path + ".arguments")  # L299
                if spans is not None:
                    if not opened:
                        spans.open(after=_ASSISTANT)
                    spans.line(call_path + ".name", type_source, call_path + ".arguments")
                extend((_CALL_OPEN, name, _CALL_CHANNEL, content_type, _MESSAGE, arguments,
                        _CALL))  # L296-300
                if spans is not None:
                    spans.close()
                last_name = name  # L301
                last_name_source = call_path + ".name"
            elif k == count - 1 and not add_generation_prompt:  # L302
                opened = False
                if "thinking" in message:  # L305
                    text = _text(thinking, index, ".thinking")
                    if spans is not None:
                        spans.open(after=_ASSISTANT)
                        spans.fields(index, ".thinking")
                    extend((_ANALYSIS, text, _END))  # L306
                    opened = True
                text = _text(content, index, ".content")
                if spans is not None:
                    if not opened:
                        spans.open(after=_ASSISTANT)
                    spans.fields(index, ".content")
                extend((_FINAL, text, _RETURN))  # L311
                if spans is not None:
                    spans.close()
            else:
                text = _text(content, index, ".content")
                if spans is not None:
                    spans.open(after=_ASSISTANT)
                    spans.fields(index, ".content")
                extend((_FINAL, text, _END))  # L314
                if spans is not None:
                    spans.close()
                last_name = None  # L315
        elif role == "tool":  # L317
            if last_name is None:  # L318
                raise TemplateError(_MSG_NO_CALL)  # L319
            try:
                result = tojson(message.get("content", MISSING))
            except TemplateTypeError as exc:
                raise TemplateTypeError(f"messages[{index}].content: {exc}") from None
            if spans is not None:
                spans.line(last_name_source, index)
            extend((_TOOL_OPEN, last_name, _TOOL_CHANNEL, result, _END))  # L321-322
        elif role == "user":  # L323
            text = _text(message.get("content", MISSING), index, ".content")
            if spans is not None:
                spans.fields(index, ".content")
            extend((_USER, text, _END))  # L324

    if add_generation_prompt:  # L329-331
        emit(_ASSISTANT)
    return "".join(out)


__all__ = ["render", "scan", "Namespace", "typescript_type", "tool_namespace", "BROWSER", "PYTHON"]
