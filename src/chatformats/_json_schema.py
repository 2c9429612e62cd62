"""transformers' ``get_json_schema``: a Python function given as a tool, as a JSON schema.

A port of ``transformers.utils.chat_template_utils`` (5.24.0): ``get_json_schema``,
``parse_google_format_docstring``, ``_convert_type_hints_to_json_schema``, ``_parse_type_hint``
and their regular expressions, verbatim.  The schema comes from the type hints (basic types,
``Enum`` classes, ``Literal``, ``Union``/``X | Y``, ``list``/``tuple``/``dict`` of those) and
the Google-style docstring (a description, an ``Args:`` block with one description per
argument, optionally ``(choices: [...])``, and an optional ``Returns:`` block).
transformers' ``TypeHintParsingException`` and ``DocstringParsingException`` are raised as
:class:`~chatformats.errors.ToolSchemaError` with the same message.

Imported only when a tool is a function (it needs ``inspect``, ``re`` and ``typing``
introspection, which ``import chatformats`` does not load).
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import types
from enum import Enum
from typing import Any, Callable, Literal, Union, get_args, get_origin, get_type_hints

from .errors import ToolSchemaError

__all__ = ["get_json_schema", "parse_google_format_docstring"]

# transformers parses docstrings with regular expressions (kept below as the specification,
# verbatim) whose backtracking is quadratic on some inputs: a lazy ``(.*?)`` followed by
# ``[\n\s]*`` rescans every whitespace run, and ``\(choices:\s*(.*?)\)\s*$`` rescans the rest
# of the text from every "(choices:".  The functions below compute the same matches in one pass
# each (``tests/test_json_schema.py`` checks them against transformers on generated docstrings):
#
#   description_re = r"^(.*?)[\n\s]*(Args:|Returns:|Raises:|\Z)"                  (DOTALL)
#   args_re        = r"\n\s*Args:\n(.*?)[\n\s]*(Returns:|Raises:|\Z)"                (DOTALL)
#   args_split_re  = r"(?:^|\n)([ \t]*)(\w+)(?:[ \t]*\([^()\n]*\))?:\s*(.*?)\s*"
#                    r"(?=\n(?!\1[ \t])[ \t]*\w+(?:[ \t]*\([^()\n]*\))?:|\Z)"          (DOTALL)
#   returns_re     = r"\n\s*Returns:\n\s*(.*?)[\n\s]*(Raises:|\Z)"                  (DOTALL)
#   choices        = r"\(choices:\s*(.*?)\)\s*$"                              (IGNORECASE)
#   joined lines   = re.sub(r"\s*\n+\s*", " ", text)
#
# ``\s`` is ``str.isspace`` (the same set as ``str.strip``), ``\w`` a word character.

_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")
_CHOICES = re.compile(r"\(choices:", re.IGNORECASE)


def _space_end(text: str, start: int) -> int:
    """The end of the whitespace run that starts at ``start`` (``start`` if there is none)."""
    end = len(text)
    while start < end and text[start].isspace():
        start += 1
    return start


def _space_start(text: str, end: int, floor: int = 0) -> int:
    """The start of the whitespace run that ends at ``end``, not before ``floor``."""
    while end > floor and text[end - 1].isspace():
        end -= 1
    return end


def _first(text: str, words: tuple[str, ...], start: int) -> int:
    """The first position at or after ``start`` where one of ``words`` begins, else the end."""
    found = [at for at in (text.find(word, start) for word in words) if at >= 0]
    return min(found) if found else len(text)


def _lazy_until(text: str, start: int, words: tuple[str, ...]) -> int:
    r"""Where ``(.*?)[\n\s]*(word|...|\Z)`` ends its group when the group starts at
    ``start``: before the whitespace that precedes the first word (or the end)."""
    return _space_start(text, _first(text, words, start), start)


def _section(text: str, heading: str) -> int | None:
    r"""Where ``\n\s*<heading>`` (heading ending in a newline) matches first: the position
    after the heading, or ``None``.  The ``\n`` may be any newline in the whitespace before
    the heading, so the first heading with a newline in its whitespace wins."""
    at = text.find(heading)
    while at >= 0:
        if "\n" in text[_space_start(text, at):at]:
            return at + len(heading)
        at = text.find(heading, at + 1)
    return None


def _arg_header(text: str, at: int) -> tuple[int, int, int] | None:
    r"""``([ \t]*)(\w+)(?:[ \t]*\([^()\n]*\))?:`` at ``at``: (name start, name end, end)."""
    n = len(text)
    name = at
    while name < n and text[name] in " \t":
        name += 1
    word = _WORD.match(text, name)
    if word is None:
        return None
    name_end = word.end()
    paren = name_end
    while paren < n and text[paren] in " \t":
        paren += 1
    if paren < n and text[paren] == "(":
        close = paren + 1
        while close < n and text[close] not in "()\n":
            close += 1
        if close + 1 < n and text[close] == ")" and text[close + 1] == ":":
            return name, name_end, close + 2
    if name_end < n and text[name_end] == ":":
        return name, name_end, name_end + 1
    return None


def _split_args(text: str) -> list[tuple[str, str, str]]:
    """``args_split_re.findall(text)``: (indentation, name, description) of each argument."""
    n = len(text)
    out: list[tuple[str, str, str]] = []
    at = 0  # where the next match may begin: the start, or a newline
    while at < n or at == 0:
        header = _arg_header(text, at) if at == 0 else None
        if header is None and text.startswith("\n", at):
            header = _arg_header(text, at + 1)
            line = at + 1
        else:
            line = at
        if header is None:
            at = text.find("\n", at + 1)
            if at < 0:
                break
            continue
        name, name_end, end = header
        indent = text[line:name]
        start = _space_end(text, end)
        # The description ends before the whitespace preceding the first newline that starts a
        # "name:" line not indented deeper than this one, or at the end.
        stop = text.find("\n", start)
        while stop >= 0:
            after = stop + 1
            deeper = text.startswith(indent, after) and text[after + len(indent):after + len(indent) + 1] in (" ", "\t")
            if not deeper and _arg_header(text, after) is not None:
                break
            stop = text.find("\n", after)
        if stop < 0:
            stop = n
        out.append((indent, text[name:name_end], text[start:_space_start(text, stop, start)]))
        if stop >= n:
            break
        at = stop
    return out


def _join_lines(text: str) -> str:
    r"""``re.sub(r"\s*\n+\s*", " ", text)``: each whitespace run holding a newline becomes one
    space."""
    return _SPACES.sub(lambda m: " " if "\n" in m.group() else m.group(), text)


def _choices(desc: str) -> tuple[int, str] | None:
    r"""``re.search(r"\(choices:\s*(.*?)\)\s*$", desc, re.IGNORECASE)`` for a description
    without newlines (as argument descriptions are, once their lines are joined): (its start,
    its group), or ``None``.  The group can only end at the last non-space character, which
    must be ``)``; the first "(choices:" then matches."""
    last = len(desc.rstrip()) - 1
    if last < 0 or desc[last] != ")":
        return None
    found = _CHOICES.search(desc, 0, last)
    if found is None:
        return None
    return found.start(), desc[_space_end(desc, found.end()):last]


# ``X | Y`` hints (Python 3.10+)
_UNION_TYPE = getattr(types, "UnionType", None)

# The Python types that can be written directly as a JSON value (a schema "enum"), mapped to the
# name of their JSON schema type
JSON_SCALAR_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null"}


def _get_json_schema_type(param_type: Any) -> dict[str, Any] | None:
    type_mapping: dict[Any, dict[str, Any]] = {
        int: {"type": "integer"},
        float: {"type": "number"},
        str: {"type": "string"},
        bool: {"type": "boolean"},
        type(None): {"type": "null"},
        list: {"type": "array"},
        tuple: {"type": "array"},
        dict: {"type": "object"},
        Any: {},
    }
    # transformers maps PIL's Image to "image" and torch's Tensor to "audio" when those packages
    # are installed; a hint can only name them once they are imported, so look there.
    pil_image = sys.modules.get("PIL.Image")
    if pil_image is not None and hasattr(pil_image, "Image"):
        type_mapping[pil_image.Image] = {"type": "image"}
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "Tensor"):
        type_mapping[torch.Tensor] = {"type": "audio"}
    return type_mapping.get(param_type)


def _enum_values_to_json_schema(values: list[Any]) -> dict[str, Any]:
    # The "type" lists each JSON type that appears in the values once, in order of appearance
    value_types = list(dict.fromkeys(JSON_SCALAR_TYPES[type(value)] for value in values))
    return {"type": value_types[0] if len(value_types) == 1 else value_types, "enum": values}


def _parse_type_hint(hint: Any) -> dict[str, Any]:
    origin = get_origin(hint)
    args = get_args(hint)

    if origin is None and isinstance(hint, type) and issubclass(hint, Enum):
        values = [member.value for member in hint]
        if not values:
            raise ToolSchemaError(f"The Enum {hint.__name__} has no members, so no value could ever match it.")
        if any(type(value) not in JSON_SCALAR_TYPES for value in values):
            raise ToolSchemaError(
                f"The Enum {hint.__name__} has member values that cannot be written as JSON scalars.\n"
                f"Values: {values}\n"
                "Enum member values must be int, float, str, bool or None to be converted to a JSON schema."
            )
        return _enum_values_to_json_schema(values)

    elif origin is None:
        json_schema_type = _get_json_schema_type(hint)
        if json_schema_type is None:
            raise ToolSchemaError(
                f"Couldn't convert the type hint {hint!r} to a JSON schema, likely because it is a custom class "
                "or object. Supported type hints are basic types like int, float, str and bool, Enum classes, "
                "typing.Literal, and list, tuple, dict and Union types containing those. If you need a more complex "
                "schema than that, you can write the JSON schema for your tool by hand and pass that instead "
                "of the function."
            )
        return json_schema_type

    elif origin is Union or (_UNION_TYPE is not None and origin is _UNION_TYPE):
        subtypes = [_parse_type_hint(t) for t in args if t is not type(None)]
        if len(subtypes) == 1:
            return_dict = subtypes[0]
        elif all(subtype.keys() == {"type"} and isinstance(subtype["type"], str) for subtype in subtypes):
            subtype_names = sorted({subtype["type"] for subtype in subtypes})
            return_dict = {"type": subtype_names[0] if len(subtype_names) == 1 else subtype_names}
        else:
            return_dict = {"anyOf": subtypes}
        if type(None) in args:
            return_dict["nullable"] = True
        return return_dict

    elif origin is Literal and len(args) > 0:
        if any(type(arg) not in JSON_SCALAR_TYPES for arg in args):
            raise ToolSchemaError("Only the valid python literals can be listed in typing.Literal.")
        return _enum_values_to_json_schema(list(args))

    elif origin is list:
        if not args:
            return {"type": "array"}
        return {"type": "array", "items": _parse_type_hint(args[0])}

    elif origin is tuple:
        if not args:
            return {"type": "array"}
        if len(args) == 1:
            raise ToolSchemaError(
                f"The type hint {str(hint).replace('typing.', '')} is a Tuple with a single element, which "
                "we do not automatically convert to JSON schema as it is rarely necessary. If this input can contain "
                "more than one element, we recommend "
                "using a list[] type instead, or if it really is a single element, remove the tuple[] wrapper and just "
                "pass the element directly."
            )
        if ... in args:
            raise ToolSchemaError(
                "Conversion of '...' is not supported in Tuple type hints. "
                "Use list[] types for variable-length"
                " inputs instead."
            )
        return {"type": "array", "prefixItems": [_parse_type_hint(t) for t in args]}

    elif origin is dict:
        # JSON objects have string keys; the value type becomes "additionalProperties"
        out: dict[str, Any] = {"type": "object"}
        if len(args) == 2:
            out["additionalProperties"] = _parse_type_hint(args[1])
        return out

    # transformers raises this exception with two arguments: its message is their tuple's repr
    raise ToolSchemaError("Couldn't parse this type hint, likely due to a custom class or object: ", hint)


def _convert_type_hints_to_json_schema(func: Callable[..., Any]) -> dict[str, Any]:
    type_hints = get_type_hints(func)
    signature = inspect.signature(func)
    func_name = getattr(func, "__name__", "operation")
    # A first parameter named "self" or "cls" without a type hint is an implicit receiver
    first_param_name = next(iter(signature.parameters), None)
    if (
        first_param_name in {"self", "cls"}
        and signature.parameters[first_param_name].annotation == inspect.Parameter.empty
    ):
        implicit_arg_name = first_param_name
    else:
        implicit_arg_name = None
    required = []
    for param_name, param in signature.parameters.items():
        if param_name == implicit_arg_name:
            continue
        if param.annotation == inspect.Parameter.empty:
            raise ToolSchemaError(f"Argument {param.name} is missing a type hint in function {func_name}")
        if param.default == inspect.Parameter.empty:
            required.append(param_name)

    properties: dict[str, Any] = {}
    for param_name, param_type in type_hints.items():
        if param_name == implicit_arg_name:
            continue
        if param_name == "return":
            # A return hint that cannot be converted is left out rather than failing the tool
            try:
                properties[param_name] = _parse_type_hint(param_type)
            except ToolSchemaError:
                pass
        else:
            properties[param_name] = _parse_type_hint(param_type)

    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def parse_google_format_docstring(docstring: str) -> tuple[str | None, dict[str, str], str | None]:
    """The description, the argument descriptions and the return description of a
    Google-style docstring."""
    description = docstring[:_first(docstring, ("Args:", "Returns:", "Raises:"), 0)].strip()
    args_start = _section(docstring, "Args:\n")
    returns_start = _section(docstring, "Returns:\n")

    docstring_args = None
    if args_start is not None:
        docstring_args = docstring[args_start:_lazy_until(docstring, args_start, ("Returns:", "Raises:"))]
    returns = None
    if returns_start is not None:
        start = _space_end(docstring, returns_start)
        returns = docstring[start:_lazy_until(docstring, start, ("Raises:",))].strip()

    if docstring_args is not None:
        docstring_args = "\n".join([line for line in docstring_args.split("\n") if line.strip()])
        args_dict = {name: _join_lines(desc.strip()) for _, name, desc in _split_args(docstring_args)}
    else:
        args_dict = {}
    return description, args_dict, returns


def get_json_schema(func: Callable[..., Any]) -> dict[str, Any]:
    """The JSON schema transformers' ``get_json_schema(func)`` gives (name, description,
    parameters with types and descriptions, optional return)."""
    doc = inspect.getdoc(func)
    func_name = getattr(func, "__name__", "operation")

    if not doc:
        raise ToolSchemaError(f"Cannot generate JSON schema for {func_name} because it has no docstring!")
    doc = doc.strip()
    main_doc, param_descriptions, return_doc = parse_google_format_docstring(doc)

    json_schema = _convert_type_hints_to_json_schema(func)
    return_dict = json_schema["properties"].pop("return", None)
    if return_dict is not None:
        if return_doc is not None:  # a missing return docstring is allowed
            return_dict["description"] = return_doc
    for arg, schema in json_schema["properties"].items():
        if arg not in param_descriptions:
            raise ToolSchemaError(
                f"Cannot generate JSON schema for {func_name} because the docstring has no description for the argument '{arg}'"
            )
        desc = param_descriptions[arg]
        enum_choices = _choices(desc)
        if enum_choices is not None:
            start, choices = enum_choices
            schema["enum"] = [c.strip() if isinstance(c, str) else c for c in json.loads(choices)]
            desc = desc[:start].strip()
        schema["description"] = desc

    output: dict[str, Any] = {"name": func_name, "description": main_doc, "parameters": json_schema}
    if return_dict is not None:
        output["return"] = return_dict
    return {"type": "function", "function": output}
