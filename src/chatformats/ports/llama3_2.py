"""Port of ``reference_templates/llama3_2.jinja``.

Meta Llama 3.2 1B and 3B Instruct (text): the Llama 3.1 text without built-in tools (no
``Tools:`` line, no ``<|python_tag|>`` calls, no ``<|eom_id|>``), with the date taken from the
render's clock (``strftime_now("%d %b %Y")``), single JSON tool calls, the ``ipython`` role and
``tools_in_user_message``.  Laid out like the template: the variable defaults (lines 1-17), the
system-message extraction (19-25), the system block (27-44), the tools in the first user message
(46-65), the message loop (67-90) and the generation prompt (91-93).  ``Lnn`` comments cite
template lines.

The blocks this text shares verbatim with Llama 3.1 and Llama 3.2 Vision (the tool list, the
first user message's tools, the single call's checks and JSON body, the ``ipython`` turn, the
headers) are :mod:`chatformats.ports._llama3`'s, and so is the message loop it shares with Llama
3.1 (``message_loop``) but for the loop's tool-call branch (:func:`tool_call_turn`).

Whitespace: every statement and comment strips what precedes it (``{%-``, ``{#-``, ``{{-``), so
the blank lines 18, 26, 45 and 66 emit nothing.

A caller variable named like a global the template calls (``strftime_now``,
``raise_exception``) shadows it, as in jinja2 (the render core applies that rule:
``chatformats._core.call_port``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, item, need_str, strftime_now, to_str, trim
from .._spans import Recorder
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
    single_call,
    tools_json,
)


def tool_call_turn(extend: Extend, message: Any, index: int, spans: Recorder | None,
                   context: Any) -> None:
    """L70-80: a message with ``tool_calls`` (the message loop is :func:`._llama3.message_loop`;
    this branch reads nothing else, ``context`` is None).  With ``spans``, the turn is generated
    from after the assistant header through ``<|eot_id|>``."""
    name, arguments = single_call(message, index)  # L71-74
    if spans is not None:
        spans.open(after=ASSISTANT_HEAD)
    extend((ASSISTANT_HEAD,))  # L75
    json_call(extend, name, arguments, index, spans)  # L76-79
    extend((EOT,))  # L80
    if spans is not None:
        spans.close()


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, each assistant turn's generated range starts after its
    ``<|start_header_id|>assistant<|end_header_id|>\\n\\n`` and ends after its ``<|eot_id|>``:
    the turns of role ``assistant`` (L69) and every tool-call turn (L70-80, which the template
    writes under the assistant header whatever the message's role)."""
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
    if date_string is MISSING:  # L8-14
        # L9: `strftime_now is defined` is always true: the environment defines it, and a
        # caller's variable of that name (any JSON value, None included) is defined too.
        date_string = strftime_now(now, "%d %b %Y")  # L10
        # L12 (the "26 Jul 2024" fallback) is never reached.
    if tools is MISSING:  # L15-17
        tools = None

    # L19-25: extract the system message.
    first = item(messages, 0, "messages")
    if item(first, "role", "messages[0]") == "system":
        system_message = trim(item(first, "content"))  # L21
        messages = messages[1:]  # L22
        offset = 1
    else:
        system_message = ""  # L24
        offset = 0

    # L27-44: the system block
    emit(SYSTEM_HEAD)  # L28
    if tools is not None:  # L29-31
        emit(ENVIRONMENT)
    emit(KNOWLEDGE)  # L32
    if spans is not None and "date_string" in variables:  # the caller's; else the clock's
        spans.line("date_string")
    extend(("Today Date: ", need_str(date_string, "date_string"), "\n\n"))  # L33
    if tools is not None and not tools_in_user_message:  # L34-42
        emit(SYSTEM_TOOLS)  # L35-37
        tools_json(extend, tools, variables, spans)  # L38-41
    if spans is not None and offset:
        spans.field(0, ".content")
    emit(system_message)  # L43
    emit(EOT)  # L44

    if tools_in_user_message and not tools is None:  # L47-65: tools in the first user message
        messages, offset = first_user_tools(extend, messages, offset, tools, variables, spans)

    # L67-90 (the 3.1 text's L66-106 but for the tool-call branch, tool_call_turn)
    message_loop(extend, messages, offset, spans, tool_call_turn, None)

    if get("add_generation_prompt", MISSING):  # L91-93
        emit(ASSISTANT_HEAD)
    return "".join(out)
