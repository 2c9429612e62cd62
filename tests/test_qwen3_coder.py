"""What is the Qwen3-Coder formats' own (``qwen3-coder``, ``qwen3-coder-2025-07``,
``qwen3-coder-6211``): their regressions, parity on tool-call turns and on tools whose schemas
take any shape (every key of a schema is a tag in these templates), and the spans laws on the
same inputs.  The properties every format shares run in ``test_format_parity.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from . import budget
from . import strategies as s
from .parity import assert_parity
from .test_spans import assert_template_laws

NAMES = ["qwen3-coder", "qwen3-coder-2025-07", "qwen3-coder-6211"]


def _params(names: list[str]) -> list[Any]:
    # each format's tests share one xdist worker with its shared properties
    return [pytest.param(name, marks=pytest.mark.xdist_group("format-" + name)) for name in names]


#: A call argument's values: a string, a mapping, a list (JSON in the 6,211-byte text only), a
#: scalar (``|string``: ``True``, ``None``), text that looks like the format's own tags.
argument_values = st.one_of(s.texts, s.scalars, st.lists(s.scalars, max_size=3),
                            st.dictionaries(s.short_texts, s.scalars, max_size=2), s.json_value,
                            st.sampled_from(["</parameter>", "a\n</parameter>\n<parameter=b>\nc",
                                             "<function=x>", "</tool_call>", "  "]))


@st.composite
def call_turns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A conversation around assistant turns with calls: arguments as a mapping (the only shape
    these templates take; a JSON string fails in ``|items``) of any values, content or none,
    tool results after."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": draw(s.texts)}]
    for _ in range(draw(st.integers(1, 2))):
        calls = []
        for _ in range(draw(st.integers(1, 3))):
            function = {"name": draw(st.one_of(st.sampled_from(["get_weather", "search"]), s.texts)),
                        "arguments": draw(st.one_of(
                            st.dictionaries(st.one_of(st.sampled_from(["city", "query", "n"]), s.short_texts),
                                            argument_values, max_size=3),
                            st.dictionaries(s.short_texts, s.json_value, max_size=2).map(json.dumps)))}
            calls.append(draw(st.sampled_from([{"type": "function", "function": function}, function])))
        turn: dict[str, Any] = {"role": "assistant", "tool_calls": calls}
        content = draw(st.one_of(st.none(), st.just(""), s.texts))
        if content is not None or draw(st.booleans()):
            turn["content"] = content
        messages.append(turn)
        for _ in range(draw(st.integers(0, len(calls)))):
            messages.append({"role": "tool", "content": draw(st.one_of(s.texts, s.json_value))})
    return messages


coder_variables = st.fixed_dictionaries({}, optional={
    "tools": s.tag_schema_tools, "add_generation_prompt": st.booleans(),
    "system_message": st.one_of(s.texts, s.json_value)})


@pytest.mark.parametrize("name", _params(NAMES))
def test_call_turns_and_schema_tools(name: str) -> None:
    @budget.own(name)
    @given(messages=st.one_of(call_turns(), s.adversarial_messages), variables=coder_variables)
    def check(messages: Any, variables: dict[str, Any]) -> None:
        assert_parity(name, messages, variables)

    check()


@pytest.mark.parametrize("name", _params(NAMES))
def test_spans_laws_on_schema_tools(name: str) -> None:
    """The spans laws (``tests/test_spans.py``) where the tools' schemas take any shape: every
    name, key and value of a schema the template writes is sourced by its path."""
    @budget.own(name, cost=2)
    @given(messages=call_turns(), variables=coder_variables)
    def check(messages: Any, variables: dict[str, Any]) -> None:
        assert_template_laws(name, messages, variables)

    check()


_TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
    "p": {"type": "array", "items": {"type": "string"}, "enum": [True, None], "x-y": [1, "a"]}}}}}

#: Inputs that pinned a behaviour of these templates, each with what it shows (every format).
REGRESSIONS = [
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{\"a\": 1}"}}]}],
                 {}, id="string arguments fail in |items"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": "  ", "tool_calls": [
                      {"function": {"name": "f", "arguments": {"l": [True, None], "m": {"a": [1]}, "b": False}}}]}],
                 {}, id="argument values: list repr or JSON, mapping JSON, bool repr; blank content dropped"),
    pytest.param([{"role": "system"}, {"role": "user", "content": "q"}], {"system_message": "V"},
                 id="a system message without content: system_message is undefined, not the variable"),
    pytest.param([{"role": "user", "content": "q"}], {"system_message": None},
                 id="system_message None: concatenation fails"),
    pytest.param([{"role": "tool", "content": "t"}, {"role": "tool", "content": {"a": 1}}], {},
                 id="a first tool message has no user header; content written with str()"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "tool", "content": "t"}, 0,
                  {"role": "tool", "content": "u"}], {},
                 id="a tool message after a falsy message has no header"),
    pytest.param([{"role": "user", "content": "q"}], {"tools": "ab"},
                 id="tools a string: each character a tool without a name"),
    pytest.param([{"role": "user", "content": "q"}], {"tools": [_TOOL, {"function": None}]},
                 id="schema lists: enum and extra keys; a tool whose function is None"),
    pytest.param([{"role": "user", "content": "q"}],
                 {"tools": [{"name": "f", "parameters": {"properties": {"p": "text"}}}]},
                 id="a parameter that is a string: keys() fails in July, nothing in August"),
    pytest.param([{"role": "user", "content": "q"}],
                 {"tools": [{"name": "f", "parameters": {"properties": {"a$b-c d": {"$x": 1}}, "required": "xy"}}]},
                 id="key names normalised in July; required a string: its characters"),
    pytest.param([{"role": "critic"}], {}, id="another role without content fails"),
    pytest.param([{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {1: "x"}}}]}], {},
                 id="an argument name that is not a string fails"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
@pytest.mark.parametrize("name", _params(NAMES))
def test_regressions(name: str, messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(name, messages, variables)


#: Inputs that pinned a spans behaviour: a July parameter key whose ``$`` is removed between two
#: kept characters (``a$b`` written ``ab``: two runs, two spans), and ``-``/`` `` turned into ``_``.
SPANS_REGRESSIONS = [
    ([{"role": "user", "content": "q"}],
     {"tools": [{"name": "f", "parameters": {"properties": {
         "p": {"a$b": 1, "a$$b-c d": 2, "$ref": 3}, "q r": {"a$b$c": [1]}}}}]}),
]


@pytest.mark.parametrize("messages, variables", SPANS_REGRESSIONS)
@pytest.mark.parametrize("name", _params(NAMES))
def test_spans_regressions(name: str, messages: Any, variables: dict[str, Any]) -> None:
    assert_template_laws(name, messages, variables)
