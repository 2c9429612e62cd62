"""One odd value at every path: a valid conversation (and its variables) with the value at one
path — any depth, any field, a whole message, a variable — replaced by a value from the full
JSON-like space, rendered at both layers for every format and compared with the references
(text, or the same error class)."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from . import budget
from . import golden
from . import strategies as s
from .parity import assert_parity
from .test_pipeline import assert_pipeline_parity

PORTED = golden.ported_formats()

#: Every JSON-like value: scalars (None, bools, big ints, NaN and infinities, texts built from the
#: templates' control tokens), lists, tuples and dicts nested anyhow, and the empty containers.
odd_values = st.one_of(
    s.scalars,
    st.sampled_from([None, "", [], {}, (), 0, -1, True, False, float("nan"), "None", "<|im_end|>"]),
    s.json_values(max_leaves=12),
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path into ``value`` (dict keys and list/tuple indexes), the value's own first."""
    yield prefix
    if type(value) is dict:
        for key, sub in value.items():
            yield from paths(sub, prefix + (key,))
    elif type(value) in (list, tuple):
        for index, sub in enumerate(value):
            yield from paths(sub, prefix + (index,))


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the value at ``path`` replaced by ``new`` (the rest shared)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if type(value) is dict:
        return {**value, head: replaced(value[head], rest, new)}
    items = list(value)
    items[head] = replaced(items[head], rest, new)
    return tuple(items) if type(value) is tuple else items


@st.composite
def one_odd_value(draw: st.DrawFn) -> tuple[list[Any], dict[str, Any]]:
    """A realistic conversation with tools and flags, and one value in it replaced."""
    messages = draw(s.realistic_conversation().filter(bool))
    variables: dict[str, Any] = draw(s.variables(tools=s.tools_realistic, add_generation_prompt=st.booleans(),
                                                 enable_thinking=st.booleans()))
    root = {"messages": messages, **variables}
    # Every path but the conversation itself (which must be a list: InvalidConversation).
    candidates = [p for p in paths(root) if p and p != ("messages",)]
    path = draw(st.sampled_from(candidates))
    root = replaced(root, path, draw(odd_values))
    return root.pop("messages"), root


@pytest.mark.parametrize("name", PORTED)
@settings(max_examples=budget.per_format(60))
@given(case=one_odd_value())
@example(case=([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "tool_calls": None}], {}))
@example(case=([{"role": "user", "content": "q"}], {"tools": [{"type": "function", "function": None}]}))
def test_one_odd_value_at_the_template_layer(name: str, case: tuple[list[Any], dict[str, Any]]) -> None:
    messages, variables = case
    assert_parity(name, messages, variables)


@pytest.mark.parametrize("name", PORTED)
@settings(max_examples=budget.per_format(40))
@given(case=one_odd_value())
@example(case=([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [1]}], {}))
def test_one_odd_value_at_the_pipeline_layer(name: str, case: tuple[list[Any], dict[str, Any]]) -> None:
    messages, variables = case
    assert_pipeline_parity(name, messages, variables)
