"""Parity of the qwen3-instruct-2507 port with its reference template (Qwen3 Instruct-2507), at
the template layer (jinja2 oracle) and the pipeline layer (transformers)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from . import strategies as s
from .parity import assert_parity, assert_template_lines_exercised
from .test_pipeline import assert_pipeline_parity

NAME = "qwen3-instruct-2507"

# Every test of this module runs in one xdist worker, so the line-coverage check at the end
# sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)


def examples(ci: int) -> int:
    """``ci`` examples under the ``ci`` profile (sized for the suite's time budget), fewer under
    ``dev``, the profile's own count under ``deep``."""
    profile = settings.default.max_examples
    return min(profile, ci) if profile <= 2000 else profile


qwen3_variables = s.variables(
    tools=s.tools_any,
    add_generation_prompt=s.variable_values,
)


@settings(max_examples=examples(300))
@given(messages=s.realistic_conversation(), variables=qwen3_variables)
@example(messages=[{"role": "user", "content": "2+2?"},
                   {"role": "assistant", "content": "<think>\nsum\n</think>\n\n4", "reasoning_content": "r"}],
         variables={"add_generation_prompt": True})  # no </think> split, no reasoning: content as given
def test_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@settings(max_examples=examples(400))
@given(messages=s.adversarial_messages, variables=qwen3_variables)
@example(messages=[], variables={})  # messages[0] of an empty list: undefined.role fails
@example(messages=[], variables={"tools": [{"a": 1}]})
@example(messages=[{"role": "tool", "content": "x"}, {"role": "tool"}], variables={})
@example(messages=[{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f"}}, "x"]}],
         variables={})  # a first call after empty content: no newline; a string call: name undefined
@example(messages=[{"role": "assistant", "tool_calls": "ab"}], variables={})  # each character a call
@example(messages=[{"role": "assistant", "tool_calls": 3}], variables={})  # not iterable
@example(messages=[{"role": "system", "content": None}], variables={"tools": "ab"})  # None + '\n\n' fails
@example(messages=[{"role": "system", "content": ["a"]}], variables={})  # list + str fails
@example(messages=["user", {"role": "user", "content": ["x"]}, {"role": "system", "content": 1}],
         variables={"add_generation_prompt": True})  # non-string contents render as ''
def test_any_shape(messages, variables):
    assert_parity(NAME, messages, variables)


@settings(max_examples=examples(300))
@given(messages=st.lists(s.message(roles=st.sampled_from(["user", "assistant", "tool", "system"])), max_size=8),
       variables=qwen3_variables)
def test_role_sequences(messages, variables):
    assert_parity(NAME, messages, variables)


@settings(max_examples=examples(100))
@given(messages=s.conversations, tools=s.tools_any, add_generation_prompt=st.booleans())
def test_pipeline_layer(messages, tools, add_generation_prompt):
    assert_pipeline_parity(NAME, messages, {"tools": tools, "add_generation_prompt": add_generation_prompt})


def test_template_lines_exercised():
    assert_template_lines_exercised(NAME)
