"""Port of ``reference_templates/llama3_1_2024_09.jinja``.

Meta Llama 3.1 8B/70B/405B Instruct (and Llama 3.3 70B Instruct, which ships this text byte for
byte): built-in tools (``builtin_tools``: ``Environment: ipython``, a ``Tools:`` line without
``code_interpreter``, ``<|python_tag|>NAME.call(k="v", ...)`` calls and ``<|eom_id|>``), custom
tools as single JSON calls, the ``ipython`` role, ``tools_in_user_message`` and ``date_string``
(default the literal ``26 Jul 2024``: this template has no clock).  Laid out like the template:
the variable defaults (lines 1-13), the system-message extraction (15-21), the system block
(23-43), the tools in the first user message (45-64), the message loop (66-106) and the
generation prompt (107-109).  ``Lnn`` comments cite template lines.

The blocks this text shares verbatim with Llama 3.2 and Llama 3.2 Vision (the tool list, the
first user message's tools, the single call's checks and JSON body, the ``ipython`` turn, the
headers) are :mod:`chatformats.ports._llama3`'s, and so is the message loop it shares with Llama
3.2 (``message_loop``); the tool-call branch of that loop (:func:`tool_call_turn`, with the
built-in calls) is this port's own.

Whitespace: every statement and comment strips what precedes it (``{%-``, ``{#-``, ``{{-``), so
the blank lines 14, 22, 44 and 65 emit nothing.

A caller variable named ``raise_exception`` shadows the template's global, as in jinja2 (the
render core applies that rule: ``chatformats._core.call_port``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, concat_error, contains, item, items, iterate, need_str, to_str, trim
from .._spans import Parts, Recorder
from ._llama3 import (
    ASSISTANT_HEAD,
    ENVIRONMENT,
    EOT,
    KNOWLEDGE,
    SYSTEM_HEAD,
    SYSTEM_TOOLS,
    Extend,
    first_user_tools,
    json_call,
    message_loop,
    path,
    single_call,
    tools_json,
)

EOM = "<|eom_id|>"  # L93
PYTHON_TAG = "<|python_tag|>"  # L76
DEFAULT_DATE = "26 Jul 2024"  # L9


def builtin_tools_line(builtin_tools: Any, spans: Recorder | None) -> str:
    """L29: ``builtin_tools | reject('equalto', 'code_interpreter') | join(", ")``: every item
    (a string's characters, a mapping's keys) that does not equal ``"code_interpreter"``, each
    as ``str()``, joined with ``", "``.  jinja2's ``reject`` iterates only a true value (``if
    value: for item in value``): a false one (``None``, ``0``, ``""``, ``[]``) rejects to
    nothing, a true one that is not iterable (``1``, ``true``) fails."""
    if not builtin_tools:
        return ""
    kept = [(position, tool) for position, tool in enumerate(iterate(builtin_tools, "builtin_tools"))
            if not tool == "code_interpreter"]
    texts = [to_str(tool) for _, tool in kept]
    joined = ", ".join(texts)
    if spans is not None:  # each item is the loop's builtin_tools[position]
        spans.line(Parts(((text, f"builtin_tools[{position}]") for text, (position, _) in zip(texts, kept)),
                         ", ").source(0, joined))
    return joined


def builtin_call(extend: Extend, name: Any, arguments: Any, index: int, spans: Recorder | None) -> None:
    """L76-83: ``"<|python_tag|>" + tool_call.name + ".call("``, then each argument as
    ``arg_name + '="' + arg_val + '"'`` (no escaping: a value that is not a string fails, and
    undefined arguments give none; string arguments fail in ``|items``), ``", "`` between them,
    and ``")"``."""
    if type(name) is not str:  # L76
        raise concat_error(name, path(index, ".tool_calls[0].function.name"))
    if spans is not None:
        spans.fields(index, ".tool_calls[0].function.name")
    extend((PYTHON_TAG, name, ".call("))  # L76
    pairs = list(items(arguments, path(index, ".tool_calls[0].function.arguments")))
    last = len(pairs) - 1
    for position, (arg_name, arg_val) in enumerate(pairs):  # L77
        if type(arg_name) is not str:  # L78: arg_name + '="'
            raise concat_error(arg_name, path(index, f".tool_calls[0].function.arguments[{position}]"))
        if type(arg_val) is not str:  # L78: ... + arg_val
            raise concat_error(arg_val, path(index, f".tool_calls[0].function.arguments[{arg_name!r}]"))
        if spans is not None:  # the key is the loop's arguments[position]
            spans.values((index, f".tool_calls[0].function.arguments[{position}]"),
                         (index, f".tool_calls[0].function.arguments[{arg_name!r}]"))
        extend((arg_name, '="', arg_val, '"'))  # L78
        if not position == last:  # L79-81: not loop.last
            extend((", ",))
    extend((")",))  # L83


def tool_call_turn(extend: Extend, message: Any, index: int, spans: Recorder | None,
                   builtin_tools: Any) -> None:
    """L69-96: a message with ``tool_calls`` (the message loop is :func:`._llama3.message_loop`);
    ``builtin_tools`` is the variable, ``MISSING`` when undefined.  With ``spans``, the turn is
    generated from after the assistant header through ``<|eom_id|>`` or ``<|eot_id|>``."""
    name, arguments = single_call(message, index)  # L70-73
    if spans is not None:
        spans.open(after=ASSISTANT_HEAD)
    # L74: builtin_tools is defined and tool_call.name in builtin_tools
    if builtin_tools is not MISSING and contains(builtin_tools, name, "builtin_tools"):
        extend((ASSISTANT_HEAD,))  # L75
        builtin_call(extend, name, arguments, index, spans)  # L76-83
    else:
        extend((ASSISTANT_HEAD,))  # L85
        json_call(extend, name, arguments, index, spans)  # L86-89
    if builtin_tools is not MISSING:  # L91-96: "ipython mode"
        extend((EOM,))
    else:
        extend((EOT,))
    if spans is not None:
        spans.close()


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, each assistant turn's generated range starts after its
    ``<|start_header_id|>assistant<|end_header_id|>\\n\\n`` and ends after its ``<|eot_id|>``
    (or ``<|eom_id|>``): the turns of role ``assistant`` (L68) and every tool-call turn (L69-96,
    which the template writes under the assistant header whatever the message's role)."""
    get = variables.get
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    if spans is not None:
        spans.source("bos_token")
    emit(to_str(get("bos_token", MISSING)))  # L1

    tools = get("tools", MISSING)
    custom_tools = get("custom_tools", MISSING)
    if custom_tools is not MISSING:  # L2-4
        tools = custom_tools
    tools_in_user_message = get("tools_in_user_message", MISSING)
    if tools_in_user_message is MISSING:  # L5-7
        tools_in_user_message = True
    date_string = get("date_string", MISSING)
    if date_string is MISSING:  # L8-10
        date_string = DEFAULT_DATE
    if tools is MISSING:  # L11-13
        tools = None
    builtin_tools = get("builtin_tools", MISSING)

    # L15-21: extract the system message.
    first = item(messages, 0, "messages")
    if item(first, "role", "messages[0]") == "system":
        system_message = trim(item(first, "content"))  # L17
        messages = messages[1:]  # L18
        offset = 1
    else:
        system_message = ""  # L20
        offset = 0

    # L23-43: the system block and the built-in tools
    emit(SYSTEM_HEAD)  # L24
    if builtin_tools is not MISSING or tools is not None:  # L25-27
        emit(ENVIRONMENT)
    if builtin_tools is not MISSING:  # L28-30
        extend(("Tools: ", builtin_tools_line(builtin_tools, spans), "\n\n"))
    emit(KNOWLEDGE)  # L31
    if spans is not None and "date_string" in variables:
        spans.line("date_string")
    extend(("Today Date: ", need_str(date_string, "date_string"), "\n\n"))  # L32
    if tools is not None and not tools_in_user_message:  # L33-41
        emit(SYSTEM_TOOLS)  # L34-36
        tools_json(extend, tools, variables, spans)  # L37-40
    if spans is not None and offset:
        spans.field(0, ".content")
    emit(system_message)  # L42
    emit(EOT)  # L43

    if tools_in_user_message and not tools is None:  # L46-64: tools in the first user message
        messages, offset = first_user_tools(extend, messages, offset, tools, variables, spans)

    message_loop(extend, messages, offset, spans, tool_call_turn, builtin_tools)  # L66-106

    if get("add_generation_prompt", MISSING):  # L107-109
        emit(ASSISTANT_HEAD)
    return "".join(out)
