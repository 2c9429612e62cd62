"""Parity of the llama-3.2-vision-2024-09 port (Meta's September 2024 Llama 3.2 Vision
template) with its reference template.

The port shares its logic with the source-document variant's (``test_llama3_2_vision.py``,
which runs the same strategies at full size), so these properties run fewer examples each;
every line of this template is still exercised here, by this module's own renders.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats._registry import ALIASES

from . import strategies as s
from .llama_vision import (any_shape_examples, image_and_system, llama_conversation, llama_roles,
                           llama_variables, shadowing_variables, tool_call_messages)
from .parity import assert_parity, assert_template_lines_exercised

NAME = "llama-3.2-vision-2024-09"

# Every test of this module runs in one xdist worker, so the line-coverage check at the end
# sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

# Sized for the CI budget: the shared logic already runs at full size through the variant.
EXAMPLES = settings(max_examples=250)


@EXAMPLES
@given(messages=llama_conversation(), variables=llama_variables)
@example(messages=[{"role": "user", "content": "hi"}],
         variables={"bos_token": "<|begin_of_text|>", "add_generation_prompt": True})
@example(messages=[{"role": "system", "content": "  S \n"}, {"role": "user", "content": "hi"}],
         variables={"tools": [{"a": 1}]})  # L64-82: the tools in the first user message
@example(messages=[{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}],
         variables={"tools": [{"a": 1}], "tools_in_user_message": False})  # L50-58
@example(messages=[{"role": "user", "content": "hi"}], variables={"custom_tools": [{"b": 2}]})  # L2-4
def test_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@EXAMPLES
@given(messages=s.realistic_conversation(), variables=llama_variables)
def test_shared_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@EXAMPLES
@given(messages=s.adversarial_messages, variables=llama_variables)
@any_shape_examples
def test_any_shape(messages, variables):
    assert_parity(NAME, messages, variables)


@EXAMPLES
@given(messages=st.lists(s.message(roles=llama_roles), max_size=6), variables=llama_variables)
def test_role_sequences(messages, variables):
    assert_parity(NAME, messages, variables)


@EXAMPLES
@given(messages=image_and_system(), variables=llama_variables)
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={})  # L39
@example(messages=[{"role": "system", "content": " \n"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={"tools": [1]})  # system trims to "": no error, no system block
@example(messages=[{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image"}]}],
         variables={"add_generation_prompt": True})  # L91-94: no system block with an image
def test_images_and_system(messages, variables):
    assert_parity(NAME, messages, variables)


@EXAMPLES
@given(messages=tool_call_messages(), variables=llama_variables)
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}},
                                                        {"function": {"name": "g"}}]}],
         variables={})  # L101
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [{"name": "f"}]}],
         variables={})  # a flat call: .function undefined
def test_tool_calls(messages, variables):
    assert_parity(NAME, messages, variables)


@EXAMPLES
@given(messages=st.one_of(llama_conversation(), st.lists(s.message(roles=llama_roles), max_size=4)),
       variables=shadowing_variables)
@example(messages=[{"role": "user", "content": "hi"}], variables={"strftime_now": None})  # L10 fails
@example(messages=[], variables={"raise_exception": 1, "tools": []})
@example(messages=[{"role": "user", "content": "hi"}], variables={"namespace": 1})
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={"raise_exception": "f"})  # the L39 call fails as a TypeError instead
def test_shadowed_names(messages, variables):
    assert_parity(NAME, messages, variables)


def test_the_family_name_is_an_alias():
    """The plain family name, which the source-document variant had, now resolves to Meta's
    template; it is not listed as a format of its own."""
    assert chatformats.get_format("llama-3.2-vision") is chatformats.get_format(NAME)
    assert "llama-3.2-vision" not in chatformats.formats()
    assert "llama-3.2-vision-variant" in chatformats.formats()
    current, about = ALIASES["llama-3.2-vision"]
    assert current == NAME and "llama-3.2-vision-variant" in about


def test_template_lines_exercised():
    assert_template_lines_exercised(NAME, unreachable={
        12: "strftime_now is always defined: transformers' global, or a caller's variable "
            "of that name (any JSON value is defined; calling it fails at line 10)",
        115: "a tool/ipython message reaching the loop had its content iterated by the line 30 "
             "image scan, which fails for every non-iterable value (None, numbers, booleans)",
    })
