"""Tool docstring parsing: transformers' regular expressions against chatformats' one-pass
parser, on docstrings that make the expressions backtrack.

    python -m benchmarks.docstrings

For each adversarial shape and size, the CPU time of ``get_json_schema`` of a function with that
docstring (transformers' and chatformats'; both give the same schema, checked first).  A run is
skipped at the next size once transformers takes over ``CAP`` seconds.  transformers' time grows
with the square of the size; chatformats' in proportion to it.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable

os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

CAP = 5.0

#: name -> the docstring of ``size`` characters, roughly.
SHAPES: dict[str, Callable[[int], str]] = {
    "many (choices:": lambda n: "Tool.\n\nArgs:\n    x: " + "(choices: " * (n // 10),
    "(choices: then a space run": lambda n: "Tool.\n\nArgs:\n    x: (choices: [1]" + " " * n + "x)",
    "long space run in a description": lambda n: "Tool.\n\nArgs:\n    x: a" + " " * n + "b",
    "long space run before Args": lambda n: "Tool." + " " * n + "\nArgs:\n    x: a",
    "many argument-like lines": lambda n: "Tool.\n\nArgs:\n    x: a\n" + "      y: b\n" * (n // 12),
}


def _function(doc: str) -> Any:
    def tool(x: int) -> None:
        pass

    tool.__doc__ = doc
    return tool


def _time(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def _outcome(get: Callable[[Any], Any], tool: Any) -> Any:
    try:
        return get(tool)
    except Exception as exc:  # noqa: BLE001 — both sides must fail alike
        return (type(exc).__name__ in ("ToolSchemaError", "DocstringParsingException",
                                       "JSONDecodeError"), str(exc))


def main() -> None:
    from transformers.utils import get_json_schema as reference

    from chatformats._json_schema import get_json_schema

    print(f"{'shape':34} {'size':>8} {'transformers s':>15} {'chatformats s':>14}")
    for shape, make in SHAPES.items():
        slow = False
        for size in (1_000, 4_000, 16_000, 64_000):
            tool = _function(make(size))
            ours = _time(lambda: _outcome(get_json_schema, tool))
            if slow:
                theirs_text = "(skipped)"
            else:
                theirs = _time(lambda: _outcome(reference, tool))
                theirs_text = f"{theirs:15.4f}"
                slow = theirs > CAP
                assert _outcome(get_json_schema, tool) == _outcome(reference, tool), shape
            print(f"{shape:34} {size:8} {theirs_text:>15} {ours:14.4f}")


if __name__ == "__main__":
    main()
