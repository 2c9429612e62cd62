"""Parity of the qwen3-tool-agent port with its reference template."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from . import strategies as s
from .parity import assert_parity, assert_template_lines_exercised

NAME = "qwen3-tool-agent"

# Every test of this module runs in one xdist worker, so the line-coverage check at the end
# sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

qwen3_variables = s.variables(
    tools=s.tools_any,
    add_generation_prompt=s.variable_values,
)


#: One conversation that runs every line of the template (tools with a system message, a later
#: system message, reasoning from ``reasoning_content`` and from a ``</think>`` split, turns before
#: and after the last user query, tool calls with dict and string arguments after content,
#: consecutive tool responses, the generation prompt) and one without tools, with a content that is not a string.  Every property below
#: starts from these, so whichever worker runs the line-coverage check has seen every line.
COVERING = [
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "q1"},
      {"role": "assistant", "content": "<think>\nr\n</think>\n\na",
       "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
                      {"type": "function", "function": {"name": "g", "arguments": "{\"y\": 2}"}}]},
      {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
      {"role": "user", "content": "q2"}, {"role": "system", "content": "s2"},
      {"role": "assistant", "content": "b", "reasoning_content": "rc"},
      {"role": "assistant", "content": "c"}, {"role": "assistant", "content": "d"}],
     {"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
      "add_generation_prompt": True}),
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "<tool_response>x</tool_response>"},
      {"role": "user", "content": [{"type": "text", "text": "a list content renders as ''"}]}],
     {"add_generation_prompt": True}),
]


def covering(test):  # type: ignore[no-untyped-def]
    """``@example`` for each case of :data:`COVERING`."""
    for messages, variables in reversed(COVERING):
        test = example(messages=messages, variables=variables)(test)
    return test


@given(messages=s.realistic_conversation(), variables=qwen3_variables)
@covering
def test_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@given(messages=s.adversarial_messages, variables=qwen3_variables)
@example(messages=[], variables={})
@example(messages=[], variables={"tools": [{"a": 1}]})
@example(messages=[{"role": "tool", "content": "x"}, {"role": "tool"}], variables={})
@example(messages=[{"role": "assistant", "content": "a</think>b", "tool_calls": [{"function": {"name": "f"}}]}],
         variables={})
@example(messages=[{"role": "assistant", "tool_calls": "ab"}], variables={})
@example(messages=[{"role": "assistant", "tool_calls": 3}], variables={})
@example(messages=[{"role": "system", "content": None}], variables={"tools": "ab"})
@example(messages=["user", {"role": "user", "content": "<tool_response>x</tool_response>"},
                   {"role": "assistant", "content": "<think>r</think>\n\nok"}],
         variables={"add_generation_prompt": True})
@covering
def test_any_shape(messages, variables):
    assert_parity(NAME, messages, variables)


@given(messages=st.lists(s.message(roles=st.sampled_from(["user", "assistant", "tool", "system"])), max_size=8),
       variables=qwen3_variables)
@covering
def test_role_sequences(messages, variables):
    assert_parity(NAME, messages, variables)


def test_template_lines_exercised():
    assert_template_lines_exercised(NAME)
