"""The render core (``chatformats._core``): the input check with its nesting limit, the shadowed
globals, the clock and the safety net, at both layers."""

from __future__ import annotations

import sys
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import (
    ChatFormatError,
    InvalidConversation,
    NestingTooDeep,
    TemplateError,
    TemplateTypeError,
)
from chatformats import _core

from . import budget
from . import golden, jinja_env, oracle
from . import strategies as s
from .parity import assert_parity, depth
from .transformers_oracle import apply as transformers_apply

PORTED = golden.ported_formats()
LIMIT = _core.NESTING_LIMIT


def nest(value: Any, levels: int, shape: str = "mixed") -> Any:
    """``value`` inside ``levels`` containers (list, dict, tuple in turn for "mixed")."""
    for level in range(levels):
        kind = shape if shape != "mixed" else ("list", "dict", "tuple")[level % 3]
        value = [value] if kind == "list" else (value,) if kind == "tuple" else {"a": value}
    return value


# ------------------------------------------------------------------ the input check


def test_check_json_like_refuses_other_objects_with_a_path():
    from collections import OrderedDict

    with pytest.raises(InvalidConversation, match=r"messages\[1\]\.content\[0\]"):
        _core.check_json_like([{}, {"content": [object()]}], "messages")
    with pytest.raises(InvalidConversation):
        _core.check_json_like({"a": OrderedDict()}, "tools")
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    _core.check_json_like(cyclic, "x")  # terminates; a cycle is not deep
    deep = nest("leaf", 100_000, "list")
    with pytest.raises(NestingTooDeep, match=r"x(\[0\]){%d} is nested more than %d" % (LIMIT, LIMIT)):
        _core.check_json_like(deep, "x")  # iterative: no RecursionError


def test_check_json_like_on_shared_and_cyclic_references():
    # The tree walk goes on with a visited set after its budget: no second walk.
    shared: Any = "leaf"
    for _ in range(80):  # 2**80 paths, 161 containers deep, 161 containers
        shared = [shared, {"k": shared}]
    assert _core._is_json_like(shared)
    _core.check_json_like(shared, "x")
    bad_cycle: list[Any] = [{"a": object()}]
    bad_cycle.append(bad_cycle)
    assert not _core._is_json_like(bad_cycle)
    with pytest.raises(InvalidConversation, match=r"x\[0\]\.a is a builtins\.object"):
        _core.check_json_like(bad_cycle, "x")
    big_tree = [[i] for i in range(_core._TREE_BUDGET + 10)]  # over the budget, no sharing
    assert _core._is_json_like(big_tree)
    _core.check_json_like(big_tree, "x")
    big_tree[-1].append(1j)
    with pytest.raises(InvalidConversation, match=r"x\[100009\]\[1\] is a builtins\.complex"):
        _core.check_json_like(big_tree, "x")


_NOT_JSON = st.sampled_from([object(), 1j, b"b", {1, 2}, frozenset(), range(2)])
_KEYS = st.one_of(st.text(max_size=3), st.integers(), st.none(), st.booleans())


@st.composite
def _graphs(draw: Any) -> Any:
    """JSON-like trees with, sometimes, non-JSON values or keys, shared subtrees or a cycle."""
    leaves = st.one_of(st.text(max_size=3), st.integers(), st.floats(), st.booleans(), st.none(),
                       _NOT_JSON)
    tree = draw(st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                                st.dictionaries(st.one_of(_KEYS, st.just(1j)), inner, max_size=3)),
        max_leaves=12,
    ))
    kind = draw(st.sampled_from(["tree", "shared", "cycle"]))
    if kind == "shared":
        return [tree, {"again": tree}, tree]
    if kind == "cycle":
        outer: list[Any] = [tree]
        outer.append({"self": outer})
        return outer
    return tree


_JSON_LEAVES = (str, int, float, bool, type(None))


def _json_like(value: Any, seen: set[int]) -> bool:
    """The definition, written independently of ``_core``: exact JSON types all the way down
    (dict keys among the leaves), each container checked once."""
    if type(value) in _JSON_LEAVES:
        return True
    if type(value) not in (dict, list, tuple):
        return False
    if id(value) in seen:
        return True
    seen.add(id(value))
    if type(value) is dict:
        return all(type(k) in _JSON_LEAVES and _json_like(v, seen) for k, v in value.items())
    return all(_json_like(v, seen) for v in value)


@settings(max_examples=300)
@given(_graphs(), st.sampled_from([2, 3, 4, LIMIT]))  # levels 1-2 are never too deep
@example([{"a": "x"}, {"b": object()}], LIMIT)
@example([[["x"]]], 2)
@example([[["x"]]], 3)
def test_the_check_accepts_exactly_json_like_values_within_the_limit(value, limit):
    """Both walks (the tree walk, within and beyond its budget, and the slow walk) against the
    definition: JSON-like, and no deeper than the limit; each refusal of the right class."""
    json_like = _json_like(value, set())
    within = depth(value) <= limit
    for budget in (1_000, 5):  # a cycle runs out of either; a small tree out of the second only
        with mock.patch.object(_core, "_TREE_BUDGET", budget), mock.patch.object(_core, "NESTING_LIMIT", limit):
            if _core._is_json_like(value):
                assert json_like and within
            try:
                _core.check_json_like(value, "v")
            except NestingTooDeep:
                assert not within
            except InvalidConversation:
                assert not json_like
            else:
                assert json_like and within


@pytest.mark.parametrize("shape", ["list", "dict", "tuple", "mixed"])
def test_the_limit_counts_containers(shape):
    # messages is level 1, a message level 2: a content nested LIMIT - 2 deep is at the limit.
    at_limit = [{"role": "user", "content": nest("x", LIMIT - 2, shape)}]
    beyond = [{"role": "user", "content": nest("x", LIMIT - 1, shape)}]
    assert depth(at_limit) == LIMIT and depth(beyond) == LIMIT + 1
    def check(messages: Any, variables: dict[str, Any]) -> None:  # the core with a port that renders ""
        assert _core.render("any", lambda m, v, now: "", frozenset(), frozenset({"tools"}), messages,
                            None, variables) == ""

    check(at_limit, {})
    with pytest.raises(NestingTooDeep):
        check(beyond, {})
    check([], {"tools": nest("x", LIMIT, shape)})
    with pytest.raises(NestingTooDeep):
        check([], {"tools": nest("x", LIMIT + 1, shape)})


# ------------------------------------------------------------------ the nesting limit, both layers


def _stack_depth() -> int:
    frame, frames = sys._getframe(), 0
    while frame is not None:
        frame, frames = frame.f_back, frames + 1
    return frames


def _run_with_stack(frames: int, fn: Any) -> Any:
    """``fn()`` called ``frames`` Python frames deeper than here (a caller's deep stack)."""
    if frames <= 0:
        return fn()
    return _run_with_stack(frames - 1, fn)


def _spots(total: int) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """A value whose deepest container is ``total`` levels down (messages, or the variable, is
    level 1), where each template reads it, and where none does."""

    def deep(prefix: int) -> Any:  # prefix: the containers above the value
        return nest("leaf", total - prefix, "mixed")

    return {
        "content": ([{"role": "user", "content": deep(2)}], {}),
        "extra key": ([{"role": "user", "content": "q", "x": deep(2)}], {}),
        "tool arguments": ([{"role": "user", "content": "q"},
                            {"role": "assistant", "content": "",
                             "tool_calls": [{"id": "call_1", "type": "function",
                                             "function": {"name": "f", "arguments": deep(5)}}]}], {}),
        "tools": ([{"role": "user", "content": "q"}],
                  {"tools": [{"type": "function", "function": {"name": "f", "parameters": deep(3)}}]}),
    }


@pytest.mark.parametrize("name", PORTED)
def test_both_sides_of_the_limit_at_both_layers(name):
    """At the limit both layers render what the references render; one level beyond it both
    raise NestingTooDeep before rendering, even from a caller's stack too deep for any render."""
    for spot, (messages, variables) in _spots(LIMIT).items():
        assert max([depth(messages)] + [depth(v) for v in variables.values()]) == LIMIT, spot
        assert_parity(name, messages, variables)
        want = transformers_apply(name, messages, **variables)
        try:
            got: Any = chatformats.apply_chat_template(name, messages, now=oracle.FIXED_NOW, **variables)
        except ChatFormatError as exc:
            assert not want.ok and want.exc_type != "RecursionError", (spot, want, exc)
        else:
            assert want.ok and got == want.text, (spot, want)
    deep_stack = sys.getrecursionlimit() - _stack_depth() - 30
    fmt = chatformats.get_format(name)
    for spot, (messages, variables) in _spots(LIMIT + 1).items():
        for layer in (chatformats.render, chatformats.apply_chat_template):
            if layer is chatformats.render and not set(variables) <= set(fmt.variables):
                # A variable the template never reads (DeepSeek's tools) is not checked at the
                # template layer: it renders as the template renders without it.  (The pipeline
                # converts every variable, as transformers does, and so measures it.)
                got = _run_with_stack(deep_stack, lambda: layer(name, messages, now=oracle.FIXED_NOW,
                                                                **variables))
                assert got == layer(name, messages, now=oracle.FIXED_NOW), spot
                continue
            with pytest.raises(NestingTooDeep):
                _run_with_stack(deep_stack, lambda: layer(name, messages, now=oracle.FIXED_NOW, **variables))


# ------------------------------------------------------------------ shadowed globals


@pytest.mark.parametrize("name", PORTED)
def test_the_registry_lists_the_globals_each_template_calls(name):
    """``ChatFormat.calls`` is exactly the set of environment globals the template calls, read
    from its syntax tree; every ``raise_exception`` call's argument is a literal (so the core
    may turn the port's TemplateError into the shadowed call's TypeError)."""
    from jinja2 import nodes

    from .jinja_env import ENVIRONMENT_GLOBALS

    fmt = chatformats.get_format(name)
    tree = jinja_env.parse(fmt.template_file)
    called = set()
    for call in tree.find_all(nodes.Call):
        if isinstance(call.node, nodes.Name) and call.node.name in ENVIRONMENT_GLOBALS:
            called.add(call.node.name)
            if call.node.name == "raise_exception":
                assert [type(a) for a in call.args] == [nodes.Const] and not call.kwargs
    assert fmt.calls == called
    assert "self" not in called


#: Every global of transformers' environment (jinja2's own included).
ENVIRONMENT_GLOBALS = sorted(jinja_env.ENVIRONMENT_GLOBALS)
shadowing_values = st.one_of(st.sampled_from([None, 0, 1, "", "x", True, [], {}]), s.json_value)


@pytest.mark.parametrize("name", PORTED)
@settings(max_examples=budget.per_format(150))
@given(messages=s.conversations, add_generation_prompt=st.booleans(),
       shadowed=st.dictionaries(st.sampled_from(ENVIRONMENT_GLOBALS), shadowing_values, min_size=1))
@example(messages=[{"role": "user", "content": "hi"}], shadowed={"namespace": 1}, add_generation_prompt=True)
@example(messages=[{"role": "user", "content": "hi"}], shadowed={"strftime_now": "x"}, add_generation_prompt=True)
@example(messages=[{"role": "system", "content": [{"type": "image"}]}, {"role": "user", "content": "q"}],
         shadowed={"raise_exception": 1}, add_generation_prompt=False)
@example(messages=[{"role": "user", "content": [{"type": "text", "text": "a"}]}],
         shadowed={"namespace": None}, add_generation_prompt=False)
def test_a_variable_shadows_the_global_of_its_name(name, messages, shadowed, add_generation_prompt):
    """At the template layer: the port and jinja2 agree, error class included."""
    assert_parity(name, messages, {**shadowed, "add_generation_prompt": add_generation_prompt})


@pytest.mark.parametrize("name", PORTED)
@pytest.mark.parametrize("global_", ["namespace", "raise_exception", "strftime_now"])
def test_shadowed_globals_in_the_pipeline(name, global_):
    from .test_pipeline import assert_pipeline_parity

    cases = [
        [{"role": "user", "content": "hi"}],
        [{"role": "system", "content": [{"type": "image"}]}, {"role": "user", "content": [{"type": "image"}]}],
        [{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}, {"function": {"name": "g"}}]}],
    ]
    for messages in cases:
        for value in (1, None, "x"):
            assert_pipeline_parity(name, messages, {global_: value})


def test_a_shadowed_call_is_a_template_type_error():
    with pytest.raises(TemplateTypeError, match="'int' object is not callable"):
        chatformats.render("solar-open", [{"role": "user", "content": "q"}], namespace=1)
    with pytest.raises(TemplateTypeError, match="'str' object is not callable"):
        chatformats.render("solar-open", [{"role": "user", "content": "q"}], strftime_now="x")
    with pytest.raises(TemplateTypeError, match="raise_exception is int"):
        chatformats.render("minicpm-v-4.6-thinking", [], raise_exception=1)
    with pytest.raises(TemplateError, match="No messages provided"):
        chatformats.render("minicpm-v-4.6-thinking", [], strftime_now=1)  # not called there


# ------------------------------------------------------------------ keyword clashes


@pytest.mark.parametrize("name", PORTED)
def test_keyword_clashes_fail_as_in_the_references(name):
    messages = [{"role": "user", "content": "hi"}]
    assert_parity(name, messages, {"self": 1})
    want = transformers_apply(name, messages, self=1)
    assert want.exc_type == "TypeError" and "multiple values for argument 'self'" in (want.message or "")
    with pytest.raises(TypeError) as info:
        chatformats.apply_chat_template(name, messages, self=1)
    assert not isinstance(info.value, ChatFormatError)
    assert str(info.value) == "apply_chat_template() got multiple values for argument 'self'"
    assert (want.message or "").endswith(str(info.value))
