"""Allocation failures injected into renders (run by ``tests/test_fault_injection.py`` in a
subprocess of its own, so that no other thread of the test run meets a failed allocation).

    python -m tests.fault_injection [--golden]

For every ported format and both layers, a conversation that takes every main branch (system
prompt, tools, a tool call with arguments, a tool result, reasoning, the generation prompt) —
with ``--golden``, every golden case too — is rendered once normally; then, for every
allocation index ``i`` of that render, CPython's ``_testcapi.set_nomemory(i, i + 1)`` makes
exactly the ``i+1``-th allocation after the call fail, and the render runs again.  Each outcome
must be the normal one (the same text, or the same error), or ``MemoryError`` itself (not a
``ChatFormatError``, not another exception, not a ``MemoryError`` raised while handling another
error).  Prints one JSON report.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from datetime import datetime
from typing import Any, Callable, Dict, Tuple

import _testcapi  # type: ignore[import-not-found]

import chatformats

NOW = datetime(2026, 3, 7, 14, 5, 9)
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
MESSAGES = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "What's the weather in Seoul?"},
    {"role": "assistant", "content": "", "reasoning_content": "Call the tool.",
     "tool_calls": [{"id": "c1", "type": "function",
                     "function": {"name": "get_weather", "arguments": {"city": "Seoul"}}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"temp_c\": 21}"},
    {"role": "assistant", "content": "<think>ok</think>21 °C."},
    {"role": "user", "content": "Thanks!"},
]


#: A render: its input (copied fresh for each run) and the function of that input.
Call = Tuple[Tuple[Any, Dict[str, Any]], Callable[[Any, Dict[str, Any]], str]]


def _calls(name: str, messages: Any, variables: dict[str, Any], now: datetime) -> dict[str, Call]:
    return {
        "template": ((messages, variables),
                     lambda m, v: chatformats.render(name, m, now=now, **v)),
        "pipeline": ((messages, variables),
                     lambda m, v: chatformats.apply_chat_template(name, m, now=now, **v)),
    }


#: What CPython raises when an allocation fails while it raises another exception (the
#: exception is lost on the way): an interpreter fault, passed through unchanged.
_LOST_EXCEPTION = ("error return without exception set", "returned NULL without setting an exception")


def _inject(call: Call, start: int, stop: int) -> tuple[Any, ...]:
    """The render with allocations ``start+1``..``stop`` (counted from the call) failing:
    ``("ok", text)``, ``("MemoryError", wrapped)`` or ``("error", type name, message)``.

    Each run renders a fresh copy of the input: CPython 3.11's ``repr`` of a dict or list whose
    allocation failed can leave that object in the interpreter's recursion guard
    (``Py_ReprLeave`` ignores its own allocation failure), and every later ``repr`` of the same
    object in that thread prints ``{...}``; a fresh copy keeps one injection from reaching
    into the next."""
    (messages, variables), render = call
    messages, variables = copy.deepcopy(messages), copy.deepcopy(variables)
    _testcapi.set_nomemory(start, stop)
    try:
        text = render(messages, variables)
    except MemoryError as exc:
        _testcapi.remove_mem_hooks()
        return ("MemoryError", exc.__cause__ is not None)  # raised from another: converted
    except BaseException as exc:  # noqa: BLE001 — every other outcome is reported
        _testcapi.remove_mem_hooks()
        return ("error", f"{type(exc).__module__}.{type(exc).__name__}", str(exc)[:300])
    _testcapi.remove_mem_hooks()
    return ("ok", text)


#: Allocations failed in a row while counting (failing every allocation from some point on
#: can keep CPython itself from ever finishing raising the MemoryError).
_WINDOW = 100


def _allocations(call: Call, expected: tuple[Any, ...]) -> int:
    """How many allocations one render makes: the least ``n`` for which failing the
    :data:`_WINDOW` allocations after the ``n``-th still gives the expected outcome."""
    low, high = 0, 1
    while _inject(call, high, high + _WINDOW) != expected:
        low, high = high, high * 2
    while low < high:
        middle = (low + high) // 2
        if _inject(call, middle, middle + _WINDOW) == expected:
            high = middle
        else:
            low = middle + 1
    return low


def _cases(name: str, golden: bool) -> list[tuple[str, Any, dict[str, Any], datetime]]:
    cases = [("every branch", MESSAGES, {"tools": TOOLS, "add_generation_prompt": True}, NOW)]
    if golden:
        from tests import golden as golden_cases

        cases += [(c.name, c.messages, c.variables, c.now) for c in golden_cases.load(name)]
    return cases


def run(golden: bool) -> dict[str, Any]:
    """Every allocation index of every case of every ported format, at both layers."""
    report: dict[str, Any] = {}
    for name in chatformats.formats():
        for case, messages, variables, now in _cases(name, golden):
            for layer, call in _calls(name, messages, variables, now).items():
                expected = _inject(call, 10**9, 10**9)  # nothing fails: the outcome to keep
                if expected[0] == "MemoryError" or expected[1] == "builtins.TypeError":
                    continue  # a pipeline-only variable the template layer refuses
                total = _allocations(call, expected)
                counts = {"same": 0, "MemoryError": 0, "SystemError": 0}
                bad: list[Any] = []
                for index in range(total):
                    got = _inject(call, index, index + 1)
                    if got == expected:
                        counts["same"] += 1
                    elif got == ("MemoryError", False):
                        counts["MemoryError"] += 1
                    elif got[:2] == ("error", "builtins.SystemError") and any(
                            lost in got[2] for lost in _LOST_EXCEPTION):
                        counts["SystemError"] += 1
                    else:
                        bad.append([index, got[0], got[1:] if got[0] != "ok" else "different text"])
                report[f"{name}/{layer}/{case}"] = {"allocations": total, **counts, "bad": bad}
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--golden", action="store_true", help="every golden case too")
    args = parser.parse_args()
    sys.stdout.write(json.dumps(run(args.golden)) + "\n")


if __name__ == "__main__":
    main()
