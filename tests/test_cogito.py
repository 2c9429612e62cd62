"""Parity of the cogito port with its reference template: what is this format's own (its tool
roles, tool-call turns, tool responses, system block, tool-list cache, cyclic values).  The
properties every format shares (realistic conversations, any shape, role sequences, the pipeline
layer, template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from . import budget
from . import strategies as s
from .parity import assert_parity

NAME = "cogito"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py),
# so the line-coverage check sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

# Each variable the template reads, independently passed or not, realistic and odd values, as
# its spec draws them (chatformats/specs/cogito.py).
cogito_variables = s.format_variables(NAME)

tool_roles = st.sampled_from(["tool", "ipython", "tool_results"])


@st.composite
def cogito_tool_call(draw: st.DrawFn) -> Any:
    """A tool call aimed at L88-101: ``function`` of every JSON type (its JSON is cut by
    ``out[:-1]`` whatever it is), ``id`` absent, a string, empty, or not a string."""
    call: dict[str, Any] = {}
    if draw(st.integers(0, 5)) > 0:
        call["id"] = draw(st.one_of(
            st.sampled_from(["call_1", "call_2", ""]), s.short_texts, st.none(), st.integers(), s.json_value))
    if draw(st.integers(0, 6)) > 0:
        call["function"] = draw(st.one_of(
            st.fixed_dictionaries({"name": st.sampled_from(["get_weather", "search"])},
                                  optional={"arguments": st.one_of(
                                      st.dictionaries(s.short_texts, s.json_value, max_size=2),
                                      st.dictionaries(s.short_texts, s.json_value, max_size=2).map(json.dumps),
                                      s.json_value)}),
            s.json_value,
        ))
    if draw(st.integers(0, 4)) == 0:
        call["type"] = "function"
    if draw(st.integers(0, 12)) == 0:
        return draw(s.json_value)
    return call


cogito_tool_calls = st.one_of(
    st.lists(cogito_tool_call(), min_size=1, max_size=3),
    st.lists(cogito_tool_call(), max_size=3).map(tuple),
    st.sampled_from([[], (), "", {}, None, 0, False, "a", {"function": {"name": "f"}}]),
    s.json_value,
)


@st.composite
def cogito_message(draw: st.DrawFn) -> Any:
    """A message aimed at the three cases of L53-114: any role (the tool roles often),
    ``tool_calls`` absent, None or present whatever the role, content a string, a list of
    parts, None, absent or anything, ``tool_call_id`` absent, empty, a string or not."""
    if draw(st.integers(0, 25)) == 0:
        return draw(s.json_value)
    msg: dict[str, Any] = {}
    if draw(st.integers(0, 15)) > 0:
        msg["role"] = draw(st.one_of(tool_roles, st.sampled_from(["user", "assistant", "system"]), s.roles))
    if draw(st.integers(0, 6)) > 0:
        msg["content"] = draw(s.contents)
    if draw(st.integers(0, 2)) == 0:
        msg["tool_calls"] = draw(cogito_tool_calls)
    if draw(st.integers(0, 2)) == 0:
        msg["tool_call_id"] = draw(st.one_of(
            st.sampled_from(["call_1", ""]), s.short_texts, st.none(), st.integers(-1, 1), s.json_value))
    return msg


@st.composite
def cogito_conversation(draw: st.DrawFn) -> list[Any]:
    """A system message first (content of any kind) or not, then cogito-aimed messages."""
    msgs: list[Any] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(st.one_of(s.texts, s.contents, s.json_value))})
    msgs.extend(draw(st.lists(cogito_message(), max_size=5)))
    return msgs


@st.composite
def realistic_cogito(draw: st.DrawFn) -> list[dict[str, Any]]:
    """What a client of a Llama-3 tool model sends: the shared realistic conversation with the
    tool results under one of the three tool roles the template accepts."""
    msgs = draw(s.realistic_conversation())
    role = draw(tool_roles)
    return [dict(m, role=role) if m.get("role") == "tool" else m for m in msgs]


realistic_variables = s.variables(
    bos_token=st.just("<|begin_of_text|>"),
    tools=s.tools_realistic,
    enable_thinking=st.booleans(),
    add_generation_prompt=st.booleans(),
)


@budget.own(NAME)
@given(messages=realistic_cogito(), variables=realistic_variables)
@example(messages=[{"role": "system", "content": " Be brief. "}, {"role": "user", "content": " hi "}],
         variables={"bos_token": "<|begin_of_text|>", "enable_thinking": True, "add_generation_prompt": True})
@example(messages=[{"role": "user", "content": "hi"}], variables={"tools": [], "enable_thinking": True})
def test_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


# ---------------------------------------------------------------- regressions

#: Inputs that pinned a behaviour of this template (found by the shared properties, or written to
#: show a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([], {}, id="messages[0]['role'] of an empty list: undefined['role'] fails"),
    pytest.param(["x"], {}, id="a non-dict message has no role to concatenate (L54)"),
    pytest.param([{"role": "user"}], {"bos_token": None}, id="bos_token None renders 'None'"),
    pytest.param([{"role": "user", "content": None}], {}, id="iterating None content (L60)"),
    pytest.param([{"role": "system", "content": None}], {}, id="None|trim is 'None'"),
    pytest.param([{"role": "system", "content": ["a"]}], {"enable_thinking": 1}, id="a list system content"),
    pytest.param([{"role": 1, "content": "x"}], {}, id="a non-string role (L54)"),
    pytest.param([{"role": "system", "content": 10**5000}], {}, id="str() of a too-long int fails"),
    pytest.param([{"role": "assistant", "tool_calls": [{"function": [10**5000]}]}], {},
                 id="so does tojson of one"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=cogito_conversation(), variables=cogito_variables)
@example(messages=[{"role": "assistant", "content": "x", "tool_calls": []}], variables={})  # unclosed [
@example(messages=[{"role": "user", "content": "x", "tool_calls": ""}], variables={})  # unclosed [, any role
@example(messages=[{"role": "tool", "tool_calls": {}}], variables={})  # tool_calls beats the tool role
@example(messages=[{"role": "assistant", "tool_calls": [{"function": "f", "id": "i"}]}],
         variables={})  # "f" JSON-quoted, its closing quote cut by out[:-1]
@example(messages=[{"role": "assistant", "tool_calls": [{"function": [1], "id": "i"}, {"function": 12}]}],
         variables={})
@example(messages=[{"role": "assistant", "tool_calls": [{"function": {"name": "f"}, "id": 7}]}],
         variables={})  # a non-string id fails the concatenation
@example(messages=[{"role": "assistant", "tool_calls": [{"id": "i"}]}], variables={})  # undefined|tojson
@example(messages=[{"role": "assistant", "tool_calls": ["ab"]}], variables={})
@example(messages=[{"role": "assistant", "tool_calls": 0}], variables={})  # 0 is not iterable
@example(messages=[{"role": "assistant", "content": [{"type": "text", "text": " a "}, {"type": "text", "text": " "}],
                    "tool_calls": [{"function": {}}]}], variables={})  # "\n\n" only after non-empty text
@example(messages=[{"role": "assistant", "content": None, "tool_calls": [{"function": {}}]}], variables={})
@example(messages=[{"role": "tool", "content": {"a": 1}, "tool_call_id": "c"}], variables={})
@example(messages=[{"role": "ipython", "content": "x", "tool_call_id": ""}], variables={})  # '' drops call_id
@example(messages=[{"role": "tool_results", "content": "x", "tool_call_id": None}], variables={})  # None != ''
@example(messages=[{"role": "tool", "content": "x", "tool_call_id": 0}], variables={})
@example(messages=[{"role": "tool"}], variables={})  # undefined content|tojson fails
@example(messages=[{"role": "tool", "content": None, "tool_calls": None}], variables={})  # None: not case 2
@example(messages=[{"role": "user", "content": "x"}], variables={"tools": "ab"})  # each character as JSON
@example(messages=[{"role": "user", "content": "x"}], variables={"tools": 5})  # not iterable
@example(messages=[{"role": "user", "content": "x"}], variables={"tools": {"a": 1, "2": 3}})  # the keys
@example(messages=[{"role": "user", "content": "x"}], variables={"tools": None, "enable_thinking": 0})
@example(messages=[{"role": "system", "content": "  "}], variables={"tools": None, "enable_thinking": "no"})
def test_message_cases(messages, variables):
    assert_parity(NAME, messages, variables)


text_contents = st.one_of(s.texts, st.lists(s.content_part(), max_size=3))


renderable_tool_call = st.fixed_dictionaries(
    {"function": st.one_of(st.fixed_dictionaries({"name": st.sampled_from(["get_weather", "search"]),
                                                  "arguments": s.json_value}), s.json_value)},
    optional={"id": st.one_of(st.sampled_from(["call_1", ""]), s.short_texts), "type": st.just("function")},
)
"""A tool call that renders: its ``function`` any JSON value, its ``id`` absent or a string."""


@st.composite
def tool_call_turn(draw: st.DrawFn) -> list[Any]:
    """One tool-call turn (L69-101) between renderable turns: any role, string or list content,
    the tool calls of :func:`cogito_tool_call` (mostly with a ``function``)."""
    turn = {"role": draw(st.one_of(st.sampled_from(["assistant", "user", "tool", "ipython"]), s.roles)),
            "content": draw(text_contents),
            "tool_calls": draw(st.one_of(st.lists(renderable_tool_call, min_size=1, max_size=4),
                                         st.lists(renderable_tool_call, min_size=1, max_size=4),
                                         cogito_tool_calls))}
    msgs: list[Any] = [{"role": "user", "content": draw(s.texts)}] if draw(st.booleans()) else []
    return msgs + [turn]


@budget.own(NAME)
@given(messages=tool_call_turn(), variables=realistic_variables)
def test_tool_call_turns(messages, variables):
    assert_parity(NAME, messages, variables)


@st.composite
def tool_response_turn(draw: st.DrawFn) -> list[Any]:
    """Tool responses (L104-113): any JSON content through ``tojson``, ``tool_call_id``
    absent, empty, a string or any value, ``tool_calls`` absent or None."""
    msgs: list[Any] = []
    for _ in range(draw(st.integers(1, 3))):
        msg: dict[str, Any] = {"role": draw(tool_roles), "content": draw(st.one_of(s.texts, s.json_value))}
        if draw(st.integers(0, 3)) > 0:
            msg["tool_call_id"] = draw(st.one_of(st.sampled_from(["call_1", ""]), s.short_texts, s.json_value))
        if draw(st.integers(0, 5)) == 0:
            msg["tool_calls"] = None
        msgs.append(msg)
    return msgs


@budget.own(NAME)
@given(messages=tool_response_turn(), variables=realistic_variables)
def test_tool_responses(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(
    system=st.one_of(st.none(), s.texts, s.json_value, st.lists(s.content_part(), max_size=2)),
    has_system=st.integers(0, 3),
    variables=s.variables(
        bos_token=st.one_of(st.just("<|begin_of_text|>"), s.variable_values),
        tools=st.one_of(s.tools_realistic, st.sampled_from([None, [], "", "ab", {}, {"a": 1}, (), 0, 1.5, True]),
                        st.lists(s.json_value, max_size=2), s.json_value),
        enable_thinking=s.variable_values,
        add_generation_prompt=s.variable_values,
    ),
)
def test_system_block_and_variables(system, has_system, variables):
    """L1-47 and L116-123: the system message (any content, or a ``system`` message with its
    content key absent) against every variable independently passed or not."""
    messages: list[Any] = [{"role": "user", "content": "hi"}]
    if has_system == 1:
        messages.insert(0, {"role": "system"})
    elif has_system >= 2:
        messages.insert(0, {"role": "system", "content": system})
    assert_parity(NAME, messages, variables)


# Tool lists whose compact JSON is equal or nearly so (tuple/list, 1/1.0/True, "1"/1): the port
# caches each rendered tool list under its compact JSON, so these must hit and miss it correctly.
_LOOKALIKE_TOOLS = [
    [{"a": [1, 2]}], [{"a": (1, 2)}], [{"a": [1.0, 2]}], [{"a": [True, 2]}], [{"a": ["1", 2]}],
    [{"a": [1, 2]}, {}], [{"1": 1}], [{1: 1}], [{True: 1}], [{"true": 1}], [{1.0: 1}],
    [["a"]], [("a",)], ["a"], [float("nan")], [float("inf")], [10**5000], [[]], [{}], [],
]


@budget.own(NAME)
@given(tools=st.lists(st.sampled_from(_LOOKALIKE_TOOLS), min_size=1, max_size=4))
def test_tool_list_cache(tools):
    for variant in tools:
        assert_parity(NAME, [{"role": "user", "content": "x"}], {"tools": variant})


def _cyclic_cases() -> list[tuple[list[Any], dict[str, Any]]]:
    loop: list[Any] = ["x"]
    loop.append(loop)
    looped: dict[str, Any] = {"name": "f"}
    looped["self"] = looped
    return [
        ([{"role": "system", "content": loop}, {"role": "user", "content": loop}], {}),
        ([{"role": "user", "content": "x"}], {"tools": [looped]}),
        ([{"role": "assistant", "tool_calls": [{"function": looped}]}], {}),
        ([{"role": "tool", "content": loop, "tool_call_id": "c"}], {}),
        ([{"role": "assistant", "content": loop, "tool_calls": [{"function": {}}]}], {}),
    ]


@budget.own(NAME)
@given(case=st.sampled_from(_cyclic_cases()))
def test_cyclic_values(case):
    """Cyclic data is JSON-like to chatformats: ``|trim`` renders its repr (``[[...]]``),
    ``tojson`` fails on it, iterating it terminates."""
    messages, variables = case
    assert_parity(NAME, messages, variables)
