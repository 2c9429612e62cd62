"""Tool-call arguments cast by the calling tool's JSON schema, as transformers 5.24 casts them
(``transformers/utils/chat_parsing/response_parser.py``: ``_schema_types``, ``_coerce``,
``ResponseParser._coerce_tool_calls``).

The rule: for a tool call whose name is a tool's ``function.name`` (or a bare function
schema's ``name``) and whose arguments are a dict, each argument that the tool's
``parameters.properties`` declares with a type and whose value is a string is cast: to the
first of the declared types (``type``, a list of types, ``anyOf``/``oneOf`` choices, ``null``
when ``nullable``) that accepts it.  A list value of a parameter that is not an array has each
string item cast.  A string that no type accepts stays a string.
"""

from __future__ import annotations

import json
from typing import Any


def tool_parameters(tools: Any) -> dict[str, dict[str, Any]]:
    """Tool name -> its schema's ``properties`` (``{}`` when it declares none)."""
    params: dict[str, dict[str, Any]] = {}
    if tools is None:
        return params
    if not isinstance(tools, (list, tuple)):
        raise TypeError(f"tools must be a list of tool schemas, not {type(tools).__name__}")
    for tool in tools:
        fn = tool.get("function", tool) if isinstance(tool, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            parameters = fn.get("parameters")
            properties = parameters.get("properties") if isinstance(parameters, dict) else None
            params[fn["name"]] = properties if isinstance(properties, dict) else {}
    return params


def schema_types(schema: Any) -> tuple[str, ...]:
    if not isinstance(schema, dict):
        return ()
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else []
    if isinstance(declared, list):
        types.extend(t for t in declared if isinstance(t, str))
    for union_name in ("anyOf", "oneOf"):
        choices = schema.get(union_name) or []
        if isinstance(choices, list):
            for choice in choices:
                types.extend(schema_types(choice))
    if schema.get("nullable") and "null" not in types:
        types.append("null")
    return tuple(types)


def coerce(raw: str, types: tuple[str, ...]) -> Any:
    for type_name in types:
        try:
            if type_name == "integer":
                try:
                    return int(raw)
                except ValueError:
                    number = float(raw)
                    if not number.is_integer():
                        continue
                    return int(number)
            if type_name == "number":
                number = float(raw)
                if number != number or number in (float("inf"), float("-inf")):
                    continue
                return int(number) if number.is_integer() and "." not in raw else number
            if type_name == "boolean" and raw.strip().lower() in ("true", "1", "false", "0"):
                return raw.strip().lower() in ("true", "1")
            if type_name == "null" and raw.strip() in ("null", "None"):
                return None
            if type_name in ("object", "array"):
                decoded = json.loads(raw)
                if isinstance(decoded, dict if type_name == "object" else list):
                    return decoded
        except (ValueError, OverflowError, RecursionError):
            continue
    return raw


def cast_tool_call(call: Any, params: dict[str, dict[str, Any]]) -> Any:
    """``call`` (``{"type": "function", "function": {"name", "arguments"}, ...}``) with its
    arguments cast in place by ``params`` (see the module docstring)."""
    fn = call.get("function") if isinstance(call, dict) else None
    if not isinstance(fn, dict):
        return call
    name, arguments = fn.get("name"), fn.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return call
    properties = params.get(name)
    if properties:
        for key, argument in arguments.items():
            if key not in properties:
                continue
            types = schema_types(properties[key])
            if not types:
                continue
            if isinstance(argument, str):
                arguments[key] = coerce(argument, types)
            elif isinstance(argument, list) and "array" not in types:
                arguments[key] = [coerce(item, types) if isinstance(item, str) else item
                                  for item in argument]
    return call
