"""Parity of the llama-3.1 port (Meta Llama 3.1 Instruct, Llama 3.3 70B Instruct) with its
reference template: what is this format's own (built-in tools, its regressions).  The
properties every format shares run in ``test_format_parity.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from . import budget
from . import strategies as s
from .llama_vision import ANY_SHAPE_REGRESSIONS
from .parity import assert_parity

NAME = "llama-3.1"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

#: Inputs that pinned a behaviour of this template (found by the properties, or written to show
#: a branch), each with what it shows.
REGRESSIONS = [
    *(p for p in ANY_SHAPE_REGRESSIONS if p.id not in (
        "L30 iterates None",  # no image scan here: a None content renders as "None"
        "text parts without a string text; date_string a number")),
    pytest.param([{"role": "user", "content": None}], {}, id="a None content renders None"),
    pytest.param([{"role": "user", "content": ""}], {"builtin_tools": None},
                 id="reject of a false value is empty: 'Tools: ' with nothing after it"),
    pytest.param([{"role": "user", "content": ""}], {"builtin_tools": 1}, id="reject iterates a true number: fails"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [
        {"function": {"name": "brave", "arguments": {"q": "x"}}}]}], {"builtin_tools": "brave_search"},
        id="a string builtin_tools: `in` is a substring test; its characters are the Tools line"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [
        {"function": {"name": "brave_search", "arguments": '{"q": "x"}'}}]}], {"builtin_tools": ["brave_search"]},
        id="a built-in call with string arguments fails in |items"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [
        {"function": {"name": "brave_search", "arguments": {"n": 2}}}]}], {"builtin_tools": ["brave_search"]},
        id="a built-in call's value that is not a string fails"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [
        {"function": {"name": "brave_search"}}]}], {"builtin_tools": ["brave_search"]},
        id="a built-in call without arguments: .call()"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [
        {"function": {"arguments": {}}}]}], {"builtin_tools": "abc"},
        id="undefined in a string fails"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [
        {"function": {"name": "f", "arguments": {}}}]}], {"builtin_tools": None},
        id="`in` None fails at the call"),
    pytest.param([{"role": "user", "content": "q"}], {"builtin_tools": [1, None, {"a": 1}, "code_interpreter"]},
                 id="items joined as str()"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)


BUILTIN_NAMES = st.sampled_from(["brave_search", "wolfram_alpha", "code_interpreter", "get_weather"])

builtin_tools = st.one_of(
    st.lists(BUILTIN_NAMES, max_size=3),
    st.just(["brave_search", "wolfram_alpha"]),
    s.texts, s.json_value,
)


@st.composite
def builtin_conversation(draw: st.DrawFn) -> list[Any]:
    """A user turn, then tool-call turns naming built-in tools (or not), with arguments whose
    values are mostly strings, and their results."""
    msgs: list[Any] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(s.texts)})
    msgs.append({"role": "user", "content": draw(s.texts)})
    for _ in range(draw(st.integers(1, 3))):
        args: Any = draw(st.one_of(
            st.dictionaries(st.one_of(st.sampled_from(["query", "code"]), s.short_texts),
                            st.one_of(s.texts, s.texts, s.json_value), max_size=3),
            s.json_value))
        if draw(st.integers(0, 4)) == 0:
            args = json.dumps(args)
        function: dict[str, Any] = {"name": draw(st.one_of(BUILTIN_NAMES, BUILTIN_NAMES, s.json_value))}
        if draw(st.integers(0, 5)):
            function["arguments"] = args
        msgs.append({"role": "assistant", "content": draw(s.texts), "tool_calls": [{"type": "function",
                                                                                    "function": function}]})
        msgs.append({"role": draw(st.sampled_from(["tool", "ipython"])),
                     "content": draw(st.one_of(s.texts, s.json_value))})
    return msgs


@budget.own(NAME)
@given(messages=builtin_conversation(),
       variables=s.variables(builtin_tools=builtin_tools, tools=s.VARIABLE_STRATEGIES["llama_tools"],
                             tools_in_user_message=s.variable_values, bos_token=st.just("<|begin_of_text|>"),
                             add_generation_prompt=st.booleans()))
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [
    {"function": {"name": "brave_search", "arguments": {"query": "a \"b\"", "n": "1"}}}]}],
    variables={"builtin_tools": ["brave_search", "code_interpreter"]})  # no escaping of the value
def test_builtin_tool_calls(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
