"""Tool-call JSON read as transformers 5.24 reads a ``json`` region, and refused as it refuses
one: ``json parser could not parse region as JSON.\\nContent: {text!r}\\nError: {e}``
(``transformers/utils/chat_parsing/content_parsers.py``), here as a :class:`ParseError` whose
quotation of the text is bounded (:func:`._scan.excerpt`: a 10 MB region gives a message of
a few hundred characters, the same as transformers' for a short one).

The shape every tool call of either reading has (docs/parsing.md, "The shape of a tool call"):
``{"type": "function", "function": {"name": str, "arguments": ARGS, ...}, "id"?}`` where ARGS is
a mapping, or a string in a format whose convention is a string (``strings=True``)."""

from __future__ import annotations

import json
from typing import Any

from ..errors import ParseError
from ._scan import excerpt

class DuplicateKey(ValueError):
    """A JSON object that gives one key twice: ``json.loads`` would keep the last value and
    drop the others without a word, so it is no JSON this parser reads (the exact reading
    refuses it, the recovering one keeps its text as content: nothing is lost)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(f"a JSON object gives the key {excerpt(key)} twice")
            seen.add(key)
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_object)


def load(fmt: str, text: str) -> Any:
    """``json.loads(text)``; any failure (bad JSON, nesting too deep for Python, an integer too
    long to convert, a key given twice: :class:`DuplicateKey`) is a :class:`ParseError` in
    transformers' words, prefixed by the format."""
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as e:
        raise ParseError(
            f"{fmt}: json parser could not parse region as JSON.\nContent: {excerpt(text)}\nError: {e}"
        ) from None
    except (ValueError, RecursionError) as e:
        raise ParseError(
            f"{fmt}: json parser could not parse region as JSON.\nContent: {excerpt(text)}\n"
            f"Error: {type(e).__name__}: {str(e)[:200]}"
        ) from None


def decode(text: str, at: int) -> tuple[Any, int] | None:
    """The JSON value that begins at ``text[at]`` and where it ends, or None when there is none
    (bad JSON, too deep, a number too long, a key given twice)."""
    try:
        return _DECODER.raw_decode(text, at)
    except (ValueError, RecursionError):
        return None


def loads(text: str) -> Any:
    """``json.loads(text)``, or a value no decoding gives (:data:`BAD`) on any failure (a key
    given twice included)."""
    try:
        return _DECODER.decode(text)
    except (ValueError, RecursionError):
        return BAD


BAD: Any = object()


def function_call(fmt: str, obj: Any, text: str, key: str = "arguments",
                  strings: bool = False) -> dict[str, Any]:
    """The exact reading of a decoded tool call ``obj``: ``{"type": "function", "function": obj}``
    for an object with a string ``name`` and arguments under ``key`` (a mapping, or a string when
    ``strings``); anything else is a :class:`ParseError`."""
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        raise ParseError(f"{fmt}: a tool call must be a JSON object with a string \"name\"; "
                         f"got {excerpt(text)}")
    if key not in obj:
        raise ParseError(f"{fmt}: a tool call must have {key!r}; got {excerpt(text)}")
    if not (isinstance(obj[key], dict) or (strings and isinstance(obj[key], str))):
        kinds = "an object or a string" if strings else "an object"
        raise ParseError(f"{fmt}: a tool call's {key!r} must be {kinds}; got {excerpt(text)}")
    return {"type": "function", "function": obj}


#: What reading a JSON tool call consumes without putting it in the call (beside whitespace):
#: the envelope of :func:`recover_call` (its keys, braces, quotes, separators) and the
#: separators between calls of one block (:func:`._recover.json_calls`).
SYNTAX = ("{", "}", '"', ":", ",", ";", '"name"', '"arguments"', '"parameters"')


def recover_call(obj: Any, strings: bool = False) -> tuple[dict[str, Any] | None, list[str]]:
    """The recovering reading of a decoded tool call ``obj``: ``(call, notes)``, or ``(None,
    notes)`` when ``obj`` is no call (then its text is content).

    Rules (docs/parsing.md, "The recovering reading"): a string ``name`` is required; the
    arguments are ``"arguments"``, else ``"parameters"`` (vLLM's Llama3JsonToolParser and
    SGLang's ``parse_base_json`` both accept either), else ``{}`` (SGLang's
    ``act.get("arguments", {})``); a string that holds a JSON object is that object unless the
    format's convention is a string; any other value is no call."""
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None, ["no string \"name\""]
    notes = []
    fn = dict(obj)  # every other key stays in the function (nothing is lost)
    if "arguments" in obj:
        args = obj["arguments"]
    elif "parameters" in obj:
        args = fn.pop("parameters")
        notes.append("\"parameters\" read as the arguments")
    else:
        args = {}
        notes.append("no arguments: read as {}")
    if isinstance(args, str) and not strings:
        decoded = loads(args)
        if isinstance(decoded, dict):
            args = decoded
            notes.append("arguments given as a JSON string: decoded")
    if not (isinstance(args, dict) or (strings and isinstance(args, str))):
        return None, [f"arguments of type {type(args).__name__}"]
    fn["arguments"] = args
    fn["name"] = obj["name"]
    return {"type": "function", "function": fn}, notes
