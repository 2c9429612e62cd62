"""The parity properties every format shares, run for every registered format from its spec
(``chatformats.get_format(name).tests``, :class:`chatformats._spec.Tests`): realistic
conversations, messages of any shape, any sequence of roles, the pipeline layer, and the check
that every line of the template ran.  Each format's own module (``tests/test_<format>.py``)
keeps only what is its own: its strategies, its format-specific properties, its spans cases and
its regressions.

What the properties read from a spec: ``variables`` (how each template variable is drawn,
:func:`tests.strategies.format_variables`), ``covering`` (conversations that together run every
template line), ``unreachable`` (the lines no input reaches, with the reason), ``weight`` (the
format's share of the example budget, ``tests/budget.py``) and ``pipeline`` (whether the
pipeline-layer property runs).  A spec that states none of them still gets every property.

Every test of a format, here and in its own module, runs in one xdist worker (the group
``format-<name>``; pyproject: ``--dist loadgroup``) and the line-coverage checks run last
(``conftest.py``), so a check sees what all of the format's parity tests executed; the covering
cases run in the check itself, so it holds in any selection of tests.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import _spec

from . import budget
from . import strategies as s
from .parity import assert_parity, assert_template_lines_exercised
from .test_pipeline import assert_pipeline_parity


def _params(names: Any) -> list[Any]:
    return [pytest.param(name, marks=pytest.mark.xdist_group("format-" + name)) for name in names]


NAMES = _params(chatformats.formats())
WITH_PIPELINE = _params(name for name in chatformats.formats() if chatformats.get_format(name).tests.pipeline)

#: The roles of the role-sequence property: every role some template names (the Llama-based
#: templates' ``ipython`` and Cogito's ``tool_results`` too).
SEQUENCE_ROLES = st.sampled_from(["user", "assistant", "tool", "system", "ipython", "tool_results"])


@pytest.mark.parametrize("name", NAMES)
def test_realistic_conversations(name: str) -> None:
    @settings(max_examples=budget.examples(name, "realistic"))
    @given(messages=s.realistic_conversation(), variables=s.format_variables(name))
    def check(messages: Any, variables: dict[str, Any]) -> None:
        assert_parity(name, messages, variables)

    check()


@pytest.mark.parametrize("name", NAMES)
def test_any_shape(name: str) -> None:
    @settings(max_examples=budget.examples(name, "any_shape"))
    @given(messages=s.adversarial_messages, variables=s.format_variables(name))
    @example(messages=[], variables={})  # messages[0] of an empty list: undefined.role fails
    @example(messages=[], variables={"tools": [{"a": 1}]})
    @example(messages=[{"role": "tool", "content": "x"}, {"role": "tool"}], variables={})
    @example(messages=[{"role": "assistant", "tool_calls": "ab"}], variables={})  # each character a call
    @example(messages=[{"role": "assistant", "tool_calls": 3}], variables={})  # not iterable
    @example(messages=[{"role": "system", "content": None}], variables={"tools": "ab"})  # None + str fails
    def check(messages: Any, variables: dict[str, Any]) -> None:
        assert_parity(name, messages, variables)

    check()


@pytest.mark.parametrize("name", NAMES)
def test_role_sequences(name: str) -> None:
    @settings(max_examples=budget.examples(name, "role_sequences"))
    @given(messages=st.lists(s.message(roles=SEQUENCE_ROLES), max_size=8), variables=s.format_variables(name))
    def check(messages: Any, variables: dict[str, Any]) -> None:
        assert_parity(name, messages, variables)

    check()


@pytest.mark.parametrize("name", WITH_PIPELINE)
def test_pipeline_layer(name: str) -> None:
    @settings(max_examples=budget.examples(name, "pipeline"))
    @given(messages=s.conversations, tools=s.tools_any, add_generation_prompt=st.booleans())
    def check(messages: Any, tools: Any, add_generation_prompt: bool) -> None:
        assert_pipeline_parity(name, messages, {"tools": tools, "add_generation_prompt": add_generation_prompt})

    check()


@pytest.mark.parametrize("name", NAMES)
def test_template_lines_exercised(name: str) -> None:
    """The covering cases, then: every template line ran (here and in the format's other parity
    tests in this worker), but the spec's ``unreachable`` lines, which must never have run."""
    tests = chatformats.get_format(name).tests
    for messages, variables in tests.covering:
        assert_parity(name, messages, variables)
    assert_template_lines_exercised(name, dict(tests.unreachable))


def test_a_spec_without_test_facts_draws_every_variable() -> None:
    """A format whose spec states no test facts (a new one) still gets every variable its
    template reads, with the shared odd values."""
    fmt = chatformats.get_format("solar-open")._replace(tests=_spec.Tests())
    drawn: set[str] = set()

    @settings(max_examples=200, derandomize=True, database=None)
    @given(variables=s.format_variables(fmt))
    def collect(variables: dict[str, Any]) -> None:
        drawn.update(variables)

    collect()
    assert set(fmt.variables) <= drawn
