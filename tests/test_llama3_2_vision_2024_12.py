"""Parity of the llama-3.2-vision-2024-12 port (Meta's December 2024 Llama 3.2 Vision template: a
system message renders alongside images) with its reference template, at the template layer
(jinja2 oracle) and the pipeline layer (transformers), and the spans laws on its renders.

The template is the September 2024 one with one rule changed, so the properties reuse that
format's strategies (``tests/llama_vision.py``) at a size for the CI budget; every line of this
template is exercised here, by this module's own renders.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats

from . import strategies as s
from .llama_vision import (any_shape_examples, image_and_system, llama_conversation, llama_roles,
                           llama_variables, shadowing_variables, tool_call_messages)
from .oracle import FIXED_NOW
from .parity import assert_parity, assert_template_lines_exercised
from .test_pipeline import assert_pipeline_parity

NAME = "llama-3.2-vision-2024-12"

# Every test of this module runs in one xdist worker, so the line-coverage check at the end
# sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)


def examples(ci: int) -> int:
    """``ci`` examples under the ``ci`` profile (sized for the suite's time budget), fewer under
    ``dev``, the profile's own count under ``deep``."""
    profile = settings.default.max_examples
    return min(profile, ci) if profile <= 2000 else profile


@settings(max_examples=examples(150))
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


@settings(max_examples=examples(100))
@given(messages=s.realistic_conversation(), variables=llama_variables)
def test_shared_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@settings(max_examples=examples(200))
@given(messages=s.adversarial_messages, variables=llama_variables)
@any_shape_examples
def test_any_shape(messages, variables):
    assert_parity(NAME, messages, variables)


@settings(max_examples=examples(100))
@given(messages=st.lists(s.message(roles=llama_roles), max_size=6), variables=llama_variables)
def test_role_sequences(messages, variables):
    assert_parity(NAME, messages, variables)


@settings(max_examples=examples(250))
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


@settings(max_examples=examples(100))
@given(messages=tool_call_messages(), variables=llama_variables)
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}},
                                                        {"function": {"name": "g"}}]}],
         variables={})  # L98
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [{"name": "f"}]}],
         variables={})  # a flat call: .function undefined
def test_tool_calls(messages, variables):
    assert_parity(NAME, messages, variables)


@settings(max_examples=examples(100))
@given(messages=st.one_of(llama_conversation(), st.lists(s.message(roles=llama_roles), max_size=4)),
       variables=shadowing_variables)
@example(messages=[{"role": "user", "content": "hi"}], variables={"strftime_now": None})  # L10 fails
@example(messages=[], variables={"raise_exception": 1, "tools": []})
@example(messages=[{"role": "user", "content": "hi"}], variables={"namespace": 1})
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": []}],
         variables={"raise_exception": "f"})  # the L98 call fails as a TypeError instead
def test_shadowed_names(messages, variables):
    assert_parity(NAME, messages, variables)


@settings(max_examples=examples(100))
@given(messages=st.one_of(llama_conversation(), image_and_system()), tools=s.tools_any,
       add_generation_prompt=st.booleans())
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         tools=None, add_generation_prompt=True)
def test_pipeline_layer(messages, tools, add_generation_prompt):
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


def test_template_lines_exercised():
    assert_template_lines_exercised(NAME, unreachable={
        12: "strftime_now is always defined: transformers' global, or a caller's variable "
            "of that name (any JSON value is defined; calling it fails at line 10)",
        112: "a tool/ipython message reaching the loop had its content iterated by the line 32 "
             "image scan, which fails for every non-iterable value (None, numbers, booleans)",
    })
