"""Parity of the llama-3.2-vision-2024-09 port (Meta's September 2024 Llama 3.2 Vision
template) with its reference template: what is this format's own (the Llama strategies of
``tests/llama_vision.py``, its regressions, its alias).  The properties every format shares run
in ``test_format_parity.py``.

The port shares its logic with the source-document variant's (``test_llama3_2_vision.py``), so
its spec gives it half a format's weight in the example budget (``tests/budget.py``).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import chatformats
from chatformats._registry import ALIASES

from . import budget
from . import strategies as s
from .llama_vision import (ANY_SHAPE_REGRESSIONS, image_and_system, llama_conversation, llama_roles,
                           shadowing_variables, tool_call_messages)
from .parity import assert_parity

NAME = "llama-3.2-vision-2024-09"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py),
# so the line-coverage check sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

# The template's variables as its spec draws them (chatformats/specs/llama3_2_vision_2024_09.py).
llama_variables = s.format_variables(NAME)

#: Inputs that pinned a behaviour of this template (found by the shared properties, or written to
#: show a branch), each with what it shows.
REGRESSIONS = [*ANY_SHAPE_REGRESSIONS]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
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


@budget.own(NAME)
@given(messages=image_and_system(), variables=llama_variables)
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={})  # L39
@example(messages=[{"role": "system", "content": " \n"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={"tools": [1]})  # system trims to "": no error, no system block
@example(messages=[{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image"}]}],
         variables={"add_generation_prompt": True})  # L91-94: no system block with an image
def test_images_and_system(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=tool_call_messages(), variables=llama_variables)
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}},
                                                        {"function": {"name": "g"}}]}],
         variables={})  # L101
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [{"name": "f"}]}],
         variables={})  # a flat call: .function undefined
def test_tool_calls(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
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

