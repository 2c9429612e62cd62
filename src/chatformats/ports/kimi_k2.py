"""Port of ``reference_templates/kimi_k2.jinja`` (Moonshot AI Kimi K2 Instruct, July 2025).

Laid out like the template: the tool declaration (lines 1-3), the message loop (4-40) with the
default system message (5-7), the role header (8-16), the body in the template's order (17-38:
an assistant's tool calls, a tool result, string content, list content) and ``<|im_end|>``
(39), then the generation prompt (41-43).  ``Lnn`` comments cite template lines.  There is no
pre-pass: the template keeps no ``set`` state across messages.

Whitespace: the pinned file has CRLF line endings; jinja2 turns every line ending into ``\\n``
when it reads a template, so the text renders as its LF twin does.  Almost every tag strips on
both sides; the three that do not (L31 ``{% for``, L32 ``{% if``, L34 ``{% else``) have their
left whitespace stripped by ``lstrip_blocks``, so the one newline the body writes is the one
after ``<|media_end|>`` (L33), which the ``{% else -%}`` of L34 leaves in place.  The ``\\n`` of
L27 is template text outside any expression: two characters, a backslash and an ``n``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, concat_error, contains, item, iterate, to_str, tojson
from .._spans import Recorder
from ..errors import TemplateTypeError

_TOOL_DECLARE = "<|im_system|>tool_declare<|im_middle|>"  # L2
_END = "<|im_end|>"  # L2, L39
_DEFAULT_SYSTEM = "<|im_system|>system<|im_middle|>You are a helpful assistant<|im_end|>"  # L6
_SYSTEM_HEADER = "<|im_system|>system<|im_middle|>"  # L9
_USER_HEADER = "<|im_user|>user<|im_middle|>"  # L11
#: L13 and L42: an assistant turn's header, and the generation prompt.
ASSISTANT_HEADER = "<|im_assistant|>assistant<|im_middle|>"
_TOOL_HEADER = "<|im_system|>tool<|im_middle|>"  # L15
_HEADERS = {"system": _SYSTEM_HEADER, "user": _USER_HEADER, "assistant": ASSISTANT_HEADER,
            "tool": _TOOL_HEADER}  # L8-16
_SECTION_BEGIN = "<|tool_calls_section_begin|>"  # L19
#: L23 ``<|tool_call_begin|>`` and the start of L22's ``formatted_id``.
_CALL_BEGIN = "<|tool_call_begin|>functions."
_ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"  # L23
_CALL_END = "<|tool_call_end|>"  # L23
_SECTION_END = "<|tool_calls_section_end|>"  # L25
_RETURN_OF = "## Return of "  # L27
_RETURN_SEP = "\\n"  # L27: a backslash and an n, not a newline
_MEDIA = "<|media_start|>image<|media_content|><|media_pad|><|media_end|>\n"  # L33 and its newline


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    """The template.  With ``spans``, an assistant turn's generated range runs from after its
    ``<|im_assistant|>assistant<|im_middle|>`` through its ``<|im_end|>``."""
    out: list[str] = spans.pieces if spans is not None else []
    emit = out.append
    extend = out.extend

    tools = variables.get("tools", MISSING)
    if tools:  # L1-3
        if spans is not None:
            spans.line("tools")
        extend((_TOOL_DECLARE, tojson_at(tools, "tools"), _END))

    for index, message in enumerate(messages):  # L4
        # L5: loop.first and messages[0]['role'] != 'system' (messages[0] is this message)
        if index == 0 and item(message, "role") != "system":
            emit(_DEFAULT_SYSTEM)  # L6
        # message['role']: a dict's item; undefined for any other value (no JSON type has an
        # attribute ``role``)
        role = message.get("role", MISSING) if type(message) is dict else MISSING
        header = _HEADERS.get(role) if type(role) is str else None  # L8-16
        opened = spans is not None and role == "assistant"
        if header is not None:
            if opened:
                spans.open(after=header)  # type: ignore[union-attr]
            emit(header)

        # L17: message.get('tool_calls') runs only for a dict: the ``and`` stops at a role that
        # is not 'assistant', and only a dict has a role.
        if role == "assistant" and message.get("tool_calls"):
            content = message.get("content", MISSING)
            if content:  # L18
                if spans is not None:
                    spans.field(index, ".content")
                emit(to_str(content))
            emit(_SECTION_BEGIN)  # L19
            _tool_calls(out, message["tool_calls"], index, spans)  # L20-24
            emit(_SECTION_END)  # L25
        elif role == "tool":  # L26 (so message is a dict)
            tool_call_id = to_str(message.get("tool_call_id", MISSING))  # L27: message.tool_call_id
            content = to_str(message.get("content", MISSING))
            if spans is not None:
                spans.fields(index, ".tool_call_id", ".content")
            extend((_RETURN_OF, tool_call_id, _RETURN_SEP, content))  # L27
        else:
            content = message.get("content", MISSING) if type(message) is dict else MISSING
            if type(content) is str:  # L28-29: content is string
                if spans is not None:
                    spans.field(index, ".content")
                emit(content)
            elif content is not None:  # L30: is not none (undefined is not none)
                _content_parts(out, content, index, spans)  # L31-37

        if spans is not None:
            if opened:
                spans.close(after=_END)
        emit(_END)  # L39

    if variables.get("add_generation_prompt", MISSING):  # L41-43
        emit(ASSISTANT_HEADER)
    return "".join(out)


def _tool_calls(out: list[str], tool_calls: Any, index: int, spans: Recorder | None) -> None:
    """L20-24: each call as ``<|tool_call_begin|>functions.NAME:INDEX<|tool_call_argument_begin|>``,
    its arguments' JSON and ``<|tool_call_end|>``.  The id is rebuilt from the call's name and
    its position in this turn (``loop.index0``); the call's own ``id`` is never read."""
    extend = out.extend
    for k, tool_call in enumerate(iterate(tool_calls, f"messages[{index}].tool_calls")):  # L20
        path = f"messages[{index}].tool_calls[{k}].function"
        # L21: tool_call['function']['name'] (undefined['name'] fails)
        function = item(tool_call, "function")
        name = item(function, "name", path)
        # L22: 'functions.' + func_name + ':' + loop.index0|string
        if type(name) is not str:
            raise concat_error(name, path + ".name")
        # L23: tool_call['function']['arguments'] | tojson (function is a dict here: only a
        # dict has a string name)
        arguments = tojson_at(function.get("arguments", MISSING), path + ".arguments")
        if spans is not None:
            spans.line(path + ".name", path + ".arguments")  # the index is the template's
        extend((_CALL_BEGIN, name, f":{k}{_ARGUMENT_BEGIN}", arguments, _CALL_END))


def _content_parts(out: list[str], content: Any, index: int, spans: Recorder | None) -> None:
    """L31-37: ``for content in message['content']`` (a list's items, a dict's keys, a string
    never: L28 took it; nothing when undefined; a number fails); a part that is an image (its
    ``type`` is ``'image'``, or ``'image'`` or ``'image_url'`` is ``in`` it: a dict's key, a
    string's substring, a list's item) renders the media placeholder and a newline, any other
    its ``['text']`` (``""`` when it has none)."""
    emit = out.append
    path = f"messages[{index}].content"
    for k, part in enumerate(iterate(content, path)):  # L31
        where = f"{path}[{k}]"
        if (item(part, "type") == "image" or contains(part, "image", where)
                or contains(part, "image_url", where)):  # L32
            emit(_MEDIA)  # L33
        else:  # L34-35
            text = item(part, "text")
            if spans is not None and text is not MISSING:
                spans.source(where + ".text")
            emit(to_str(text))


def tojson_at(value: Any, path: str) -> str:
    """``value|tojson``, a failure naming ``path``."""
    try:
        return tojson(value)
    except TemplateTypeError as exc:
        raise TemplateTypeError(f"{path}: {exc}") from None
