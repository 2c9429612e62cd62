"""Inputs in any shape for the robustness tests: arbitrary JSON-like values (and values that are
not JSON-like), deep nesting, huge strings, cycles, every template variable with every type.

Built on the shared strategies (``tests/strategies.py``); nothing here is specific to one format.
"""

from __future__ import annotations

import collections
import decimal
import enum
from datetime import datetime
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from chatformats import _reference

from . import strategies as s

#: Values nested at most this deep render as Jinja renders them; ``NestingTooDeep`` is raised
#: only for a value nested deeper (README, "Guarantees").  ``json.dumps``/``repr`` fail, in
#: transformers as in the port, once a value nests past what Python's recursion limit leaves at
#: the call (``sys.getrecursionlimit()``, 1000 by default, minus the caller's stack on CPython
#: 3.9-3.11; the C recursion limit on 3.12+).
GUARANTEED_DEPTH = 500

#: Names ``chatformats.render`` itself takes: not template variables.
API_NAMES = frozenset({"name", "messages", "now"})


# ---------------------------------------------------------------- building blocks


def nest(value: Any, depth: int, shape: str) -> Any:
    """``value`` wrapped in ``depth`` lists, tuples or dicts (or all three in turn), built
    iteratively so any depth can be built."""
    for level in range(depth):
        kind = shape if shape != "mixed" else ("list", "dict", "tuple")[level % 3]
        if kind == "list":
            value = [value]
        elif kind == "tuple":
            value = (value,)
        else:
            value = {"a": value}
    return value


def cyclic(kind: str) -> Any:
    """A value that contains itself (check_json_like accepts shared and cyclic references)."""
    if kind == "list":
        value: Any = ["x"]
        value.append(value)
        return value
    if kind == "dict":
        d: dict[str, Any] = {"role": "user", "content": "c"}
        d["self"] = d
        return d
    msg: dict[str, Any] = {"role": "assistant", "content": "x"}
    msg["tool_calls"] = [{"function": {"name": "f", "arguments": msg}}]
    return msg


class _Color(enum.IntEnum):
    RED = 1


class _Str(str):
    pass


#: Values that are not JSON-like data: ``render`` must refuse each with ``InvalidConversation``.
FOREIGN = [
    {1, 2}, frozenset(), b"bytes", bytearray(b"x"), object(), collections.OrderedDict(a=1),
    _Str("role"), _Color.RED, decimal.Decimal("1.5"), 1 + 2j, range(3), datetime(2020, 1, 1),
    {("tuple", "key"): 1}, {b"bytes-key": 1},
]


def _is_foreign(value: Any) -> bool:
    """True if ``value`` holds something that is not JSON-like data (iterative, cycle-safe)."""
    seen: set[int] = set()
    stack = [value]
    scalars = (str, int, float, bool, type(None))
    while stack:
        obj = stack.pop()
        tp = type(obj)
        if tp in scalars:
            continue
        if tp is dict:
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            for key, sub in obj.items():
                if type(key) not in scalars:
                    return True
                stack.append(sub)
        elif tp is list or tp is tuple:
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            stack.extend(obj)
        else:
            return True
    return False


def is_foreign(messages: Any, variables: dict[str, Any]) -> bool:
    return _is_foreign(messages) or any(_is_foreign(v) for v in variables.values())


def max_depth(value: Any) -> float:
    """How many containers deep ``value`` nests (``inf`` for a cyclic value); iterative."""
    deepest = 0
    on_path: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(value, 0, False)]
    while stack:
        obj, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(obj))
            continue
        tp = type(obj)
        if tp is dict or tp is list or tp is tuple:
            if id(obj) in on_path:
                return float("inf")
            on_path.add(id(obj))
            stack.append((obj, depth, True))
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth, False) for child in (obj.values() if tp is dict else obj))
    return deepest


def input_depth(messages: Any, variables: dict[str, Any]) -> float:
    return max([max_depth(messages)] + [max_depth(v) for v in variables.values()])


# ---------------------------------------------------------------- strategies

huge_texts = st.builds(
    lambda fragment, n: (fragment or "x") * n,
    s.fragments, st.integers(min_value=10_000, max_value=300_000),
)

deep_values = st.builds(
    nest,
    st.one_of(s.scalars, st.just([]), st.just({})),
    st.integers(min_value=GUARANTEED_DEPTH - 50, max_value=3_000),
    st.sampled_from(["list", "dict", "tuple", "mixed"]),
)

odd_values = st.one_of(
    st.sampled_from(FOREIGN),
    st.builds(cyclic, st.sampled_from(["list", "dict", "message"])),
    deep_values,
    huge_texts,
)


def any_values(max_leaves: int = 10) -> st.SearchStrategy[Any]:
    """Any JSON-like value, now and then a huge string, a deep or cyclic value, or a value that
    is not JSON-like at all — at the top or anywhere inside."""
    leaves = st.one_of(s.scalars, s.scalars, s.scalars, s.scalars, s.scalars, s.scalars, odd_values)
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(st.one_of(s.short_texts, s.scalars), children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


any_value = any_values()

#: Messages whose keys carry the odd values too (the shared message strategy, then each key
#: maybe replaced by anything).
odd_message = st.builds(
    lambda msg, key, value, replace: {**msg, key: value} if replace and type(msg) is dict else msg,
    s.message(),
    st.sampled_from(s.MESSAGE_KEYS + ("type", "function", "arguments", "id")),
    any_value,
    st.booleans(),
)

any_messages = st.one_of(
    s.realistic_conversation(),
    s.adversarial_messages,
    st.lists(odd_message, max_size=6),
    st.lists(odd_message, max_size=4).map(tuple),
    st.lists(any_value, max_size=4),
    any_value,  # messages that are not a list at all
)


def any_variables(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Every variable the reference template of ``name`` reads, each independently absent or
    any value at all (realistic ones included)."""
    per_name: dict[str, st.SearchStrategy[Any]] = {}
    for var in template_variables(name):
        realistic = s.tools_any if var in ("tools", "custom_tools") else s.variable_values
        per_name[var] = st.one_of(realistic, any_value)
    return st.fixed_dictionaries({}, optional=per_name)


def template_variables(name: str) -> list[str]:
    """The template's own variable names (``jinja2.meta`` on the reference template)."""
    return [v for v in _reference.template_variables(name) if v not in API_NAMES]


# ---------------------------------------------------------------- drawing without a test


def sample(strategy: st.SearchStrategy[Any], n: int) -> list[Any]:
    """``n`` values drawn from ``strategy``, reproducibly (derandomized), outside a test body."""
    drawn: list[Any] = []

    @settings(max_examples=n, derandomize=True, database=None, phases=[Phase.generate],
              deadline=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: Any) -> None:
        drawn.append(value)

    collect()
    return drawn[:n]


def generated_cases(name: str, n: int, now: datetime) -> list[tuple[Any, ...]]:
    """``n`` reproducible any-shape cases (JSON-like, picklable, moderately sized) of format
    ``name`` as ``(name, messages, variables, now)``."""
    variables = st.fixed_dictionaries({}, optional={
        var: st.one_of(s.tools_any if var in ("tools", "custom_tools") else s.variable_values,
                       s.json_value)
        for var in template_variables(name)
    })
    strategy = st.tuples(st.one_of(s.realistic_conversation(), s.adversarial_messages), variables)
    return [(name, messages, variables_, now) for messages, variables_ in sample(strategy, n)]

