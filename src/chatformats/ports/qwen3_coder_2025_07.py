"""Port of ``reference_templates/qwen3_coder_2025_07.jinja`` (Qwen3-Coder, the July 2025 text).

The text Qwen3-Coder was released with.  Its tools differ from the August text's: the description
is written whether defined or not (L44), ``tool.parameters.properties`` is read whether defined or
not (L46: an undefined ``parameters`` fails), ``enum`` and ``required`` are lists written by the
macro ``render_item_list`` (L1-16: ``[`a`, `b`]``, strings in backticks), a parameter's other keys
are tags whose names have ``-`` and `` `` turned into ``_`` and ``$`` removed (L56-64), and the
tool's ``return`` is written (L70-76); its call arguments are written with ``|string`` (L103).
The rest of the template is :func:`._qwen3_coder.render`; the ``Lnn`` comments here cite this text.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Sequence

from .._jinja import MISSING, attr, is_iterable, items, iterate, length, to_str, tojson, trim
from .._spans import Recorder
from ..errors import UndefinedValueError
from . import _qwen3_coder
from ._qwen3_coder import FUNCTIONS_HEAD, Emit, key_path

#: L56: the keys of a parameter L57-64 does not write.
HANDLED_KEYS = ("type", "description", "enum", "required")


def render_item_list(emit: Emit, item_list: Any, tag_name: str, path: str,
                     spans: Recorder | None) -> None:
    """L1-16, the macro ``render_item_list(item_list, tag_name)``: ``\\n<tag>[`a`, 1]</tag>``
    for a defined, iterable, non-empty value (a string's characters, a mapping's keys), each
    string item in backticks, any other with ``{{ item }}``."""
    # L2: defined, iterable and not empty
    if item_list is MISSING or not is_iterable(item_list) or length(item_list) <= 0:
        return
    emit("\n<")  # L3
    emit(tag_name)
    emit(">")
    emit("[")  # L4
    for position, entry in enumerate(iterate(item_list)):  # L5
        if position > 0:  # L6
            emit(", ")
        if type(entry) is str:  # L7-8
            emit("`")
            if spans is not None:
                spans.source(f"{path}[{position}]")
            emit(entry)
            emit("`")
        else:  # L9-10
            if spans is not None:
                spans.source(f"{path}[{position}]")
            emit(to_str(entry))
    emit("]")  # L13
    emit("</")  # L14
    emit(tag_name)
    emit(">")


def normed_key(json_key: Any) -> str:
    """L58: ``json_key | replace("-", "_") | replace(" ", "_") | replace("$", "")``."""
    return to_str(json_key).replace("-", "_").replace(" ", "_").replace("$", "")


def _normed_pieces(emit: Emit, json_key: Any, source: str, spans: Recorder) -> None:
    """With spans: :func:`normed_key` as pieces, each run of the key's own characters sourced
    by the key (``source``), each ``_`` that replaces ``-`` or `` `` the template's (the
    ``replace`` argument).  A removed ``$`` ends a run; where the next run follows at once
    (``a$b`` is written ``ab``), it is sourced by the same key with its path spelled the other
    way (``...['properties']...``), so that each run is a span of its own and each span's text
    is a substring of the key."""
    run: list[str] = []
    sources = (source, _respelled(source))
    turn = 0  # which spelling the next run takes
    for character in to_str(json_key):
        if character in "- $":
            if run:
                spans.source(sources[turn])
                emit("".join(run))
                run.clear()
                turn = 1 - turn if character == "$" else 0
            if character != "$":
                emit("_")
                turn = 0
        else:
            run.append(character)
    if run:
        spans.source(sources[turn])
        emit("".join(run))


def _respelled(path: str) -> str:
    """``path`` with its last ``.properties`` step written ``['properties']`` (the same value)."""
    head, dot, tail = path.rpartition(".properties")
    return head + "['properties']" + tail if dot else path


def _tool_body(emit: Emit, tool: Any, path: str, spans: Recorder | None = None) -> None:
    """L44-76: a tool after its name line."""
    if spans is not None:
        spans.line(path + ".description")
    emit("\n<description>")  # L44
    emit(trim(attr(tool, "description")))
    emit("</description>")
    emit("\n<parameters>")  # L45
    parameters = attr(tool, "parameters")
    properties = attr(parameters, "properties", path + ".parameters")  # undefined parameters fail
    properties_path = path + ".parameters.properties"
    for position, (param_name, param_fields) in enumerate(items(properties, properties_path)):  # L46
        fields_path = key_path(properties_path, param_name)
        emit("\n<parameter>")  # L47
        if spans is not None:
            spans.line(f"{properties_path}[{position}]")
        emit("\n<name>")  # L48
        emit(to_str(param_name))
        emit("</name>")
        param_type = attr(param_fields, "type")
        if param_type is not MISSING:  # L49-51
            if spans is not None:
                spans.line(fields_path + ".type")
            emit("\n<type>")
            emit(to_str(param_type))
            emit("</type>")
        param_description = attr(param_fields, "description")
        if param_description is not MISSING:  # L52-54
            if spans is not None:
                spans.line(fields_path + ".description")
            emit("\n<description>")
            emit(trim(param_description))
            emit("</description>")
        render_item_list(emit, attr(param_fields, "enum"), "enum", fields_path + ".enum", spans)  # L55
        if type(param_fields) is not dict:  # L57: param_fields.keys() of a value without keys()
            raise UndefinedValueError(
                f"{fields_path} is {type(param_fields).__name__}: it has no attribute 'keys'")
        for key_position, json_key in enumerate(param_fields):  # L57: keys() | reject("in", ...)
            if json_key in HANDLED_KEYS:
                continue
            normed = normed_key(json_key)  # L58
            value = param_fields[json_key]
            # L59-63: a mapping as JSON, anything else with |string
            text = tojson(value) if type(value) is dict else to_str(value)
            if spans is None:
                emit("\n<" + normed + ">" + text + "</" + normed + ">")
                continue
            key_source = f"{fields_path}[{key_position}]"
            emit("\n<")
            _normed_pieces(emit, json_key, key_source, spans)
            emit(">")
            spans.source(key_path(fields_path, json_key))
            emit(text)
            emit("</")
            _normed_pieces(emit, json_key, key_source, spans)
            emit(">")
        render_item_list(emit, attr(param_fields, "required"), "required",
                         fields_path + ".required", spans)  # L65
        emit("\n</parameter>")  # L66
    render_item_list(emit, attr(parameters, "required"), "required",
                     path + ".parameters.required", spans)  # L68
    emit("\n</parameters>")  # L69
    returns = attr(tool, "return")
    if returns is not MISSING:  # L70-76
        if spans is not None:
            spans.line(path + ".return")
        emit("\n<return>")
        emit(tojson(returns) if type(returns) is dict else to_str(returns))
        emit("</return>")


def argument_text(value: Any) -> str:
    """L103: ``args_value if args_value is string else args_value | string``."""
    return value if type(value) is str else to_str(value)


def render(messages: Sequence[Any], variables: Mapping[str, Any], now: datetime,
           spans: Recorder | None = None) -> str:
    return _qwen3_coder.render(messages, variables, FUNCTIONS_HEAD, _tool_body, argument_text, spans)
