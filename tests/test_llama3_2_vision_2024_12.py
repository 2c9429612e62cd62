"""Parity of the llama-3.2-vision-2024-12 port (Meta's December 2024 Llama 3.2 Vision template: a
system message renders alongside images) with its reference template, at the template layer
(jinja2 oracle) and the pipeline layer (transformers), and its assistant ranges: what is this
format's own.  The properties every format shares run in ``test_format_parity.py``.

The template is the September 2024 one with one rule changed, so the properties reuse that
format's strategies (``tests/llama_vision.py``).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats

from . import budget
from . import strategies as s
from .llama_vision import (ANY_SHAPE_REGRESSIONS, image_and_system, llama_conversation, llama_roles,
                           shadowing_variables, tool_call_messages)
from .oracle import FIXED_NOW
from .parity import assert_parity
from .test_pipeline import assert_pipeline_parity

NAME = "llama-3.2-vision-2024-12"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py),
# so the line-coverage check sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

# The template's variables as its spec draws them (chatformats/specs/llama3_2_vision_2024_12.py).
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
         variables={"tools": [{"a": 1}]})  # L61-79: the tools in the first user message
@example(messages=[{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}],
         variables={"tools": [{"a": 1}], "tools_in_user_message": False})  # L47-55
@example(messages=[{"role": "user", "content": "hi"}], variables={"custom_tools": [{"b": 2}]})  # L2-4
def test_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=image_and_system(), variables=llama_variables)
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={})  # L40: a supplied system message renders alongside an image
@example(messages=[{"role": "system", "content": " \n"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={"tools": [1]})  # a system message that trims to "" is still supplied
@example(messages=[{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image"}]}],
         variables={"add_generation_prompt": True})  # L88-91: no system block with an image alone
@example(messages=[{"role": "system", "content": [{"type": "image"}]}, {"role": "user", "content": "q"}],
         variables={})  # the system message's own image is not scanned (L22 drops it first)
def test_images_and_system(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=tool_call_messages(), variables=llama_variables)
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}},
                                                        {"function": {"name": "g"}}]}],
         variables={})  # L98
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
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": []}],
         variables={"raise_exception": "f"})  # the L98 call fails as a TypeError instead
def test_shadowed_names(messages, variables):
    assert_parity(NAME, messages, variables)


@settings(max_examples=budget.examples(NAME, "pipeline", floor=budget.FLOOR))  # images: its own inputs
@given(messages=st.one_of(llama_conversation(), image_and_system()), tools=s.tools_any,
       add_generation_prompt=st.booleans())
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         tools=None, add_generation_prompt=True)
def test_pipeline_layer_images(messages, tools, add_generation_prompt):
    """The pipeline layer on Llama conversations, images and system messages."""
    assert_pipeline_parity(NAME, messages, {"tools": tools, "add_generation_prompt": add_generation_prompt})


# ------------------------------------------------------------------ spans
# (the laws every format shares are tests/test_spans.py's)


def test_assistant_turns_each_get_one_range():
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"},
                {"role": "user", "content": "q2"},
                {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]},
                {"role": "tool", "content": "r"}, {"role": "assistant", "content": "done"}]
    rendering = chatformats.render_spans(NAME, messages, now=FIXED_NOW)
    assert len(rendering.assistant_spans) == 3
    assert [rendering.text[a:b] for a, b in rendering.assistant_spans] == [
        "a<|eot_id|>", '{"name": "f", "parameters": {}}<|eot_id|>', "done<|eot_id|>"]


# ------------------------------------------------------------------ the revisions


def test_the_september_text_raises_where_this_one_renders():
    """The one rule that differs: a system message with images raises in the September 2024
    template and renders its system block in this one (both checked against the oracle)."""
    messages = [{"role": "system", "content": "Describe tersely."},
                {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "What is it?"}]}]
    assert assert_parity("llama-3.2-vision-2024-09", messages).exc_type is not None
    rendered = assert_parity(NAME, messages, {"add_generation_prompt": True}).text
    assert rendered is not None and "Describe tersely.<|eot_id|>" in rendered

