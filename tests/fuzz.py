"""Inputs in any shape for the robustness tests: arbitrary JSON-like values (and values that are
not JSON-like), deep nesting, huge strings, cycles, every template variable with every type.

Built on the shared strategies (``tests/strategies.py``); nothing here is specific to one format.
"""

from __future__ import annotations

import collections
import decimal
import enum
from datetime import datetime
from typing import Any, Callable

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats._core import NESTING_LIMIT

from . import jinja_env
from . import strategies as s
from .parity import ERROR_CLASSES
from .parity import depth as nesting_depth

#: Values nested at most this deep render as Jinja renders them; ``NestingTooDeep`` is raised
#: exactly for a value nested deeper, before rendering (``docs/guarantees.md``, "Parity").
GUARANTEED_DEPTH = NESTING_LIMIT

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


def read_variables(name: Any, variables: dict[str, Any]) -> dict[str, Any]:
    """The variables format ``name``'s template reads (its spec's ``variables`` and ``calls``):
    the render core checks only these (``docs/guarantees.md``, "Only JSON-like data")."""
    import chatformats

    fmt = chatformats.get_format(name)
    return {k: v for k, v in variables.items() if k in fmt.variables or k in fmt.calls}


def is_foreign(messages: Any, variables: dict[str, Any], name: Any = None) -> bool:
    """Whether ``messages`` or a variable holds a value that is not JSON-like data (with
    ``name``, a variable that format's template reads)."""
    if name is not None:
        variables = read_variables(name, variables)
    return _is_foreign(messages) or any(_is_foreign(v) for v in variables.values())


def input_depth(messages: Any, variables: dict[str, Any], name: Any = None) -> int:
    """The deepest nesting among ``messages`` and the variables (with ``name``, those that
    format's template reads), as the render core measures it."""
    if name is not None:
        variables = read_variables(name, variables)
    return max([nesting_depth(messages)] + [nesting_depth(v) for v in variables.values()])


# ---------------------------------------------------------------- strategies

huge_texts = st.builds(
    lambda fragment, n: (fragment or "x") * n,
    s.fragments, st.integers(min_value=10_000, max_value=300_000),
)

_DEEP_MARK = "\ue000deep\ue000"


def deep(depth: int, shape: str) -> str:
    """A placeholder for ``nest(0, depth, shape)``: a short string that :func:`expand` replaces.
    Hypothesis prints its examples recursively, which a value thousands of levels deep would
    break; the placeholder keeps every printed example short and exact."""
    return f"{_DEEP_MARK}{depth}:{shape}"


def expand(value: Any) -> Any:
    """``value`` with every :func:`deep` placeholder replaced by the deep value it stands for
    (shared and cyclic containers stay shared and cyclic)."""
    memo: dict[int, Any] = {}

    def walk(obj: Any) -> Any:
        tp = type(obj)
        if tp is str:
            if obj.startswith(_DEEP_MARK):
                depth, shape = obj[len(_DEEP_MARK):].split(":")
                return nest(0, int(depth), shape)
            return obj
        if tp is not list and tp is not tuple and tp is not dict:
            return obj
        if id(obj) in memo:
            return memo[id(obj)]
        if tp is list:
            new_list: list[Any] = []
            memo[id(obj)] = new_list
            new_list.extend(walk(x) for x in obj)
            return new_list
        if tp is dict:
            new_dict: dict[Any, Any] = {}
            memo[id(obj)] = new_dict
            for key, sub in obj.items():
                new_dict[key] = walk(sub)
            return new_dict
        return tuple(walk(x) for x in obj)

    return walk(value)


deep_values = st.builds(
    deep,
    st.integers(min_value=GUARANTEED_DEPTH - 50, max_value=3_000),
    st.sampled_from(["list", "dict", "tuple", "mixed"]),
)

#: JSON-like values that stress a renderer: cyclic, deep (placeholders), huge.
odd_values = st.one_of(
    st.builds(cyclic, st.sampled_from(["list", "dict", "message"])),
    deep_values,
    huge_texts,
)

foreign_values = st.sampled_from(FOREIGN)


light_texts = st.one_of(s.fragments, st.text(max_size=10))
light_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.integers(),
                          st.floats(allow_nan=True, allow_infinity=True), light_texts, light_texts)


def any_values(max_leaves: int = 5) -> st.SearchStrategy[Any]:
    """Any JSON-like value, now and then a huge string, a deep or cyclic value, or a value that
    is not JSON-like at all — at the top or anywhere inside.  Kept light (the shared strategies
    already drive the parity tests through realistic shapes; these are the shapes beyond), so
    each format gets thousands of examples in CI."""
    leaves = st.one_of(*[light_scalars] * 10, odd_values)
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.lists(children, max_size=3),
            st.lists(children, max_size=2).map(tuple),
            st.dictionaries(st.one_of(light_texts, light_scalars), children, max_size=3),
        ),
        max_leaves=max_leaves,
    )


any_value = any_values()


def _field(realistic: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(realistic, realistic, any_value)


light_tool_call = st.one_of(
    st.fixed_dictionaries({}, optional={
        "id": _field(st.sampled_from(["call_1", "call_2"])),
        "type": _field(st.just("function")),
        "function": _field(st.fixed_dictionaries({}, optional={
            "name": _field(st.sampled_from(["get_weather", "search"])),
            "arguments": _field(st.one_of(st.just({"city": "Oslo"}), st.just('{"q": 1}'))),
        })),
        "name": any_value,
        "arguments": any_value,
    }),
    any_value,
)

light_message = st.one_of(
    st.fixed_dictionaries({}, optional={
        "role": _field(st.sampled_from(s.ROLES)),
        "content": _field(st.one_of(light_texts, st.lists(
            st.fixed_dictionaries({}, optional={"type": _field(s.part_types), "text": _field(light_texts),
                                                "image": any_value, "image_url": any_value,
                                                "video": any_value}), max_size=3))),
        "tool_calls": _field(st.lists(light_tool_call, max_size=2)),
        "reasoning_content": _field(light_texts),
        "reasoning": _field(light_texts),
        "tool_call_id": _field(st.sampled_from(["call_1", "call_2"])),
    }),
    any_value,
)

any_messages = st.one_of(
    st.lists(light_message, max_size=5),
    st.lists(light_message, max_size=5),
    st.lists(light_message, max_size=3).map(tuple),
    any_value,  # messages that are not a list at all (or a list of anything)
    # a value that is not JSON-like, as a message or inside one
    st.lists(st.one_of(light_message, foreign_values,
                       st.fixed_dictionaries({"role": st.just("user"), "content": foreign_values})),
             min_size=1, max_size=3),
)

light_tool = st.one_of(
    st.sampled_from(s.TOOL_SCHEMAS),
    st.fixed_dictionaries({}, optional={
        "type": _field(st.just("function")),
        "function": _field(st.fixed_dictionaries({}, optional={
            "name": _field(light_texts), "description": any_value, "parameters": any_value})),
    }),
    any_value,
)

#: Realistic or odd values for a template variable.
variable_values = st.one_of(
    st.sampled_from([True, False, None, 0, 1, "", "x", "low", "all", [], {}]),
    st.lists(light_tool, max_size=2),
    any_value,
    any_value,
)


def any_variables(names: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Some of the template variables ``names`` (a few at a time), each with any value."""
    return st.dictionaries(st.sampled_from(sorted(names)), variable_values, max_size=4)


#: Every global of transformers' environment: a caller variable of that name shadows it (and a
#: template that calls it then fails), so the variables drawn include these names.
ENVIRONMENT_GLOBALS = sorted(jinja_env.ENVIRONMENT_GLOBALS)


def template_variables(name: str) -> list[str]:
    """The template's own variable names (``jinja2.meta`` on the reference template), and every
    environment global's name (which a variable shadows)."""
    from . import jinja_env

    file = chatformats.get_format(name).template_file
    own = [v for v in jinja_env.template_variables(file) if v not in API_NAMES]
    return own + [g for g in ENVIRONMENT_GLOBALS if g not in own]


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
    how = chatformats.get_format(name).tests.variables  # as the format's spec draws them
    variables = st.fixed_dictionaries({}, optional={
        var: st.one_of(s.variable_strategy(how[var]) if var in how
                       else s.tools_any if var in ("tools", "custom_tools") else s.variable_values,
                       s.json_value)
        for var in template_variables(name)
    })
    strategy = st.tuples(st.one_of(s.realistic_conversation(), s.adversarial_messages), variables)
    return [(name, messages, variables_, now) for messages, variables_ in sample(strategy, n)]



# ---------------------------------------------------------------- deep nesting battery

#: (depth, shapes, spots) the battery renders: just within the nesting limit at every spot (the
#: deepest spot is 5 containers down), compared with the oracle; one level past it at the
#: shallowest spot and past Python's recursion limit, every shape at every spot; far past it,
#: the mixed shape at every spot; and a 200,000-deep tuple where a port might hash the value (an
#: id, a role, a name): hashing a tuple that deep recurses in C with no guard and crashes CPython
#: (from about 150,000 levels with an 8 MB stack), so the limit must refuse it before any port
#: could hash it.
ALL_SHAPES = ("list", "dict", "tuple", "mixed")
HASHED_SPOTS = ("messages[1].role", "messages[2].tool_calls[0].id", "messages[3].tool_call_id",
                "messages[2].tool_calls[0].function.name", "messages[1]")
DEEP_LEVELS: list[tuple[int, tuple[str, ...], tuple[str, ...] | None]] = [
    (GUARANTEED_DEPTH - 5, ALL_SHAPES, None),
    (GUARANTEED_DEPTH, ALL_SHAPES, None),
    (1_000, ALL_SHAPES, None),
    (2_000, ALL_SHAPES, None),
    (20_000, ("mixed",), None),
    (200_000, ("tuple",), HASHED_SPOTS),
]

_WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}


def _base() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "reasoning_content": "r",
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "cold"},
        {"role": "user", "content": "thanks"},
    ]
    return messages, {"tools": [_WEATHER], "add_generation_prompt": True}


def deep_spots(name: str) -> dict[str, Callable[[Any], tuple[Any, dict[str, Any]]]]:
    """Where a deep value goes: every message field the templates read, the tool schema, and
    each template variable."""

    def at(path: tuple[Any, ...]) -> Callable[[Any], tuple[Any, dict[str, Any]]]:
        def place(deep: Any) -> tuple[Any, dict[str, Any]]:
            messages, variables = _base()
            target: Any = messages
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = deep
            return messages, variables
        return place

    spots: dict[str, Callable[[Any], tuple[Any, dict[str, Any]]]] = {
        "messages[0].content": at((0, "content")),
        "messages[1].content": at((1, "content")),
        "messages[1].role": at((1, "role")),
        "messages[2].content": at((2, "content")),
        "messages[2].reasoning_content": at((2, "reasoning_content")),
        "messages[2].tool_calls": at((2, "tool_calls")),
        "messages[2].tool_calls[0].id": at((2, "tool_calls", 0, "id")),
        "messages[2].tool_calls[0].function.name": at((2, "tool_calls", 0, "function", "name")),
        "messages[2].tool_calls[0].function.arguments": at((2, "tool_calls", 0, "function", "arguments")),
        "messages[3].content": at((3, "content")),
        "messages[3].tool_call_id": at((3, "tool_call_id")),
        "messages[1]": at((1,)),
        "messages": lambda deep: (deep if type(deep) in (list, tuple) else [deep], _base()[1]),
    }

    def tools_schema(deep: Any) -> tuple[Any, dict[str, Any]]:
        messages, variables = _base()
        variables["tools"] = [{"type": "function", "function": {"name": "f", "parameters": deep}}]
        return messages, variables

    spots["tools[0].function.parameters"] = tools_schema
    for var in template_variables(name):
        def variable(deep: Any, var: str = var) -> tuple[Any, dict[str, Any]]:
            messages, variables = _base()
            variables[var] = deep
            return messages, variables
        spots[f"variable {var}"] = variable
    return spots


def deep_battery(name: str, with_oracle: bool) -> list[dict[str, Any]]:
    """Render format ``name`` with a deep value at every spot, shape and depth; report each
    problem (an escape that is not a ChatFormatError, an InternalError, NestingTooDeep for an
    input within :data:`GUARANTEED_DEPTH` or any other outcome beyond it, or — with the oracle,
    within the limit — an outcome that differs from it)."""
    import sys

    import chatformats

    from . import oracle

    problems: list[dict[str, Any]] = []
    spots = deep_spots(name)
    renders = 0
    for depth, shapes, only in DEEP_LEVELS:
        for shape in shapes:
            deep = nest("leaf", depth, shape)
            for spot, place in spots.items():
                if only is not None and spot not in only:
                    continue
                messages, variables = place(deep)
                where = {"format": name, "spot": spot, "shape": shape, "depth": depth}
                print(f"rendering {where}", file=sys.stderr, flush=True)
                renders += 1
                try:
                    text: str | None = chatformats.render(name, messages, now=oracle.FIXED_NOW, **variables)
                    got = "ok"
                except chatformats.InternalError as exc:
                    problems.append({**where, "problem": f"InternalError: {exc}"})
                    continue
                except chatformats.ChatFormatError as exc:
                    text, got = None, type(exc).__name__
                    message = str(exc)
                except BaseException as exc:  # noqa: BLE001 — exactly what must never happen
                    problems.append({**where, "problem": f"escaped {type(exc).__name__}: {exc}"})
                    continue
                total = input_depth(messages, variables, name)  # an unread variable is not checked
                if total > GUARANTEED_DEPTH:
                    if got != "NestingTooDeep":
                        problems.append({**where, "problem": f"{got} for an input {total} deep"})
                    continue
                if got == "NestingTooDeep":
                    problems.append({**where, "problem": f"NestingTooDeep at depth {total}: {message}"})
                if type(messages) in (list, tuple) and messages and type(messages[0]) in (list, tuple):
                    # A batch given to render (deliberate difference 6 in docs/guarantees.md):
                    # refused, whatever the template would make of it.
                    if got != "InvalidConversation" or not message.startswith("messages is a batch"):
                        problems.append({**where, "problem": f"a batch given to render: {got}"})
                    continue
                if not with_oracle:
                    continue
                want = oracle.render(name, messages, now=oracle.FIXED_NOW, **variables)
                if want.ok:
                    if got != "ok" or text != want.text:
                        problems.append({**where, "problem": f"oracle rendered, port gave {got}"
                                         + ("" if got != "ok" else " a different text")})
                elif got == "ok":
                    problems.append({**where, "problem": f"oracle {want.describe()}, port rendered"})
                elif got != ERROR_CLASSES.get(want.exc_type or "") or (
                        want.kind == "raise_exception" and message != want.message):
                    problems.append({**where, "problem": f"oracle {want.describe()}, port {got}: {message}"})
            del deep
    problems.append({"format": name, "renders": renders})
    return problems


def deep_battery_main() -> None:
    """``python -c 'from tests.fuzz import deep_battery_main; deep_battery_main()' NAME``:
    the battery in a subprocess (a crash shows as the exit status, the last line on stderr
    names the input); prints the problems as JSON."""
    import json
    import sys

    name = sys.argv[1]
    print(json.dumps(deep_battery(name, with_oracle=True)))
