"""Tool-call JSON read as transformers 5.24 reads a ``json`` region, and refused as it refuses
one: ``json parser could not parse region as JSON.\\nContent: {text!r}\\nError: {e}``
(``transformers/utils/chat_parsing/content_parsers.py``), here as a :class:`ParseError`."""

from __future__ import annotations

import json
from typing import Any

from ..errors import ParseError


def load(fmt: str, text: str) -> Any:
    """``json.loads(text)``; any failure (bad JSON, nesting too deep for Python, an integer too
    long to convert) is a :class:`ParseError` in transformers' words, prefixed by the format."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ParseError(
            f"{fmt}: json parser could not parse region as JSON.\nContent: {text!r}\nError: {e}"
        ) from None
    except (ValueError, RecursionError) as e:
        raise ParseError(
            f"{fmt}: json parser could not parse region as JSON.\nContent: {text[:200]!r}\n"
            f"Error: {type(e).__name__}: {e}"
        ) from None


def function_call(fmt: str, obj: Any, text: str) -> dict[str, Any]:
    """``{"type": "function", "function": obj}`` for a decoded tool call ``obj``, which must be
    an object with a string ``name``."""
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        raise ParseError(f"{fmt}: a tool call must be a JSON object with a string \"name\"; "
                         f"got {text[:200]!r}")
    return {"type": "function", "function": obj}
