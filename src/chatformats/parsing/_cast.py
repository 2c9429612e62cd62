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


# -- Qwen3-Coder: argument values converted as vLLM's Qwen3CoderToolParser converts them

#: A parameter type (``str(schema["type"]).strip().lower()``) whose value stays the text.
_TEXT_TYPES = ("string", "str", "text", "varchar", "char", "enum")
_INT_PREFIXES = ("int", "uint", "long", "short", "unsigned")


def qwen3_coder_config(tools: Any, name: Any) -> Any:
    """The parameters of the first tool named ``name``: its ``parameters.properties`` when
    ``parameters`` is a mapping holding ``properties``, else ``parameters`` itself when it is a
    mapping, else ``{}`` (vLLM ``Qwen3CoderToolParser._get_arguments_config``).  A tool is an
    OpenAI tool (``{"type": "function", "function": {...}}``) or, as for every format here, a
    bare function schema."""
    for tool in tools if isinstance(tools, (list, tuple)) else ():
        if not isinstance(tool, dict):
            continue
        if "function" in tool:
            if tool.get("type", "function") != "function":
                continue
            tool = tool["function"]
        if not isinstance(tool, dict) or tool.get("name") != name:
            continue
        parameters = tool.get("parameters")
        if isinstance(parameters, dict):
            return parameters["properties"] if "properties" in parameters else parameters
        return {}
    return {}


def _json_like(value: Any) -> Any:
    """``value`` as the client receives it from vLLM (which sends the arguments as
    ``json.dumps``'s text: a tuple becomes a list, a key a string); ``_KEEP`` where
    ``json.dumps`` fails (a set, bytes, a complex number: vLLM then returns no call at all)."""
    try:
        return json.loads(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError, OverflowError):
        return _KEEP


_KEEP = object()


def qwen3_coder_value(raw: str, name: str, config: Any) -> Any:
    """One parameter's value, converted by its declared type as vLLM's
    ``Qwen3CoderToolParser._convert_param_value`` converts it:

    1. ``null`` in any case is ``None``, whatever the type;
    2. a parameter the tool does not declare stays the text;
    3. the type is ``str(schema["type"]).strip().lower()`` (``string`` when the schema is no
       mapping or has no ``type``): a text type (``string``, ``str``, ``text``, ``varchar``,
       ``char``, ``enum``) stays the text; a type starting ``int``, ``uint``, ``long``,
       ``short`` or ``unsigned`` is ``int(text)``; one starting ``num`` or ``float`` is
       ``float(text)``, an ``int`` when it has no fraction; ``boolean``, ``bool``, ``binary``
       are ``text.lower() == "true"`` (any other text is ``False``); ``object``, ``array``,
       ``arr`` and types starting ``dict`` or ``list`` are ``json.loads(text)``; for those
       that fail and every other type (a list of types included: its ``str()`` matches none),
       ``ast.literal_eval(text)`` (:func:`._pyliteral.literal`: the same value, read without
       compiling); a text no rule converts stays the text.

    Where vLLM's conversion raises past its own handlers (``float`` of ``1e999`` then ``int``
    of infinity, a literal too deep to evaluate) or gives what its ``json.dumps`` refuses (a
    set, bytes, a complex number), vLLM returns the whole output as content with no call; here
    the value stays the text, and the call is kept.  The value is then what vLLM's JSON gives
    the client (a tuple a list, a mapping's keys strings)."""
    if raw.lower() == "null":
        return None
    if not isinstance(config, dict) or name not in config:
        return raw
    schema = config[name]
    kind = str(schema["type"]).strip().lower() if isinstance(schema, dict) and "type" in schema else "string"
    try:
        value = _convert(raw, kind)
    except (ValueError, TypeError, SyntaxError, OverflowError, RecursionError, MemoryError):
        return raw
    if value is raw or isinstance(value, (str, bool, int, float)) or value is None:
        return value
    value = _json_like(value)
    return raw if value is _KEEP else value


def _convert(raw: str, kind: str) -> Any:
    from ._pyliteral import literal

    if kind in _TEXT_TYPES:
        return raw
    if kind.startswith(_INT_PREFIXES):
        try:
            return int(raw)
        except (ValueError, TypeError):
            return raw
    if kind.startswith(("num", "float")):
        try:
            number = float(raw)
        except (ValueError, TypeError):
            return raw
        # int(nan) is a ValueError vLLM catches (the text stays); int(inf) an OverflowError
        # it does not (no call at all there: the text stays here, see above)
        try:
            whole = int(number)
        except ValueError:
            return raw
        return number if number - whole != 0 else whole
    if kind in ("boolean", "bool", "binary"):
        return raw.lower() == "true"
    if kind in ("object", "array", "arr") or kind.startswith(("dict", "list")):
        try:
            return json.loads(raw)
        except (ValueError, TypeError):
            pass
    try:
        return literal(raw)  # ast.literal_eval's value, read without compiling
    except ValueError:
        return raw


def qwen3_coder_caster(tools: Any) -> Any:
    """The Qwen3-Coder grammar's cast: ``None`` without ``tools`` (the arguments are the text
    the template wrote), else a function that converts one call's arguments in place
    (:func:`qwen3_coder_value`, each call's parameters by :func:`qwen3_coder_config`)."""
    if tools is None:
        return None
    if not isinstance(tools, (list, tuple)):
        raise TypeError(f"tools must be a list of tool schemas, not {type(tools).__name__}")

    def cast(call: Any) -> Any:
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("arguments"), dict):
            return call
        config = qwen3_coder_config(tools, fn.get("name"))
        arguments = fn["arguments"]
        for key, value in arguments.items():
            if isinstance(value, str):
                arguments[key] = qwen3_coder_value(value, key, config)
        return call

    return cast


#: The casts a grammar description may name (``"cast"``): ``tools -> caster or None``.
CASTS = {"qwen3_coder": qwen3_coder_caster}
