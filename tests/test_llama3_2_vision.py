"""Parity of the llama-3.2-vision-variant port with its reference template."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from chatformats import ChatFormatError
from chatformats._jinja import MISSING, tojson_indented

from . import strategies as s
from .llama_vision import (image_and_system, llama_conversation, llama_roles, llama_variables,
                           shadowing_variables, tool_call_messages)
from .parity import assert_parity, assert_template_lines_exercised

NAME = "llama-3.2-vision-variant"

# Every test of this module runs in one xdist worker, so the line-coverage check at the end
# sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

# ---------------------------------------------------------------- properties


@given(messages=llama_conversation(), variables=llama_variables)
@example(messages=[{"role": "user", "content": "hi"}],
         variables={"bos_token": "<|begin_of_text|>", "add_generation_prompt": True})
@example(messages=[{"role": "system", "content": "  S \n"}, {"role": "user", "content": "hi"}],
         variables={"tools": [{"a": 1}]})
@example(messages=[{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}],
         variables={"tools": [{"a": 1}], "tools_in_user_message": False})
def test_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@given(messages=s.realistic_conversation(), variables=llama_variables)
def test_shared_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@given(messages=s.adversarial_messages, variables=llama_variables)
@example(messages=[], variables={})  # messages[0]['role'] of undefined
@example(messages=[{"role": "system", "content": "s"}], variables={"tools": []})  # L76
@example(messages=[{"role": "tool"}], variables={})  # tojson of undefined content
@example(messages=[{"role": "tool", "content": "x"}], variables={})  # string result quoted
@example(messages=[{"role": "user", "content": None}], variables={})  # L35 iterates None
@example(messages=[{"role": "system", "content": None}, {"role": "user"}], variables={})  # system not scanned
@example(messages=[{"role": "system", "content": ["a"]}, {"role": "user"}], variables={})  # list repr
@example(messages=[{"role": "user", "content": [{"type": "image"}]}, {"role": "user", "content": 3}],
         variables={})  # the scan goes on after an image
@example(messages=[{"role": "assistant", "tool_calls": None}], variables={})  # |length of None
@example(messages=[{"role": "assistant", "tool_calls": "f"}], variables={})  # one character
@example(messages=[{"role": "assistant", "tool_calls": {0: {"function": {"name": "f", "arguments": 1}}}}],
         variables={})  # a one-key mapping indexed by 0
@example(messages=[{"role": "assistant", "tool_calls": {False: {"function": {"name": "f"}}}}],
         variables={})  # False == 0: the key is found, arguments undefined
@example(messages=["a tool_calls b"], variables={})  # substring test: single tool-calls error
@example(messages=[["tool_calls"]], variables={})
@example(messages=[None], variables={})  # 'tool_calls' in None fails
@example(messages=["user"], variables={})  # message['role'] undefined
@example(messages=[{"role": "user", "content": {"type": "image"}}], variables={})  # mapping: keys only
@example(messages=[{"role": "user", "content": "image"}], variables={"tools": None, "custom_tools": [1]})
@example(messages=[{"role": "user", "content": "x"}], variables={"bos_token": 10**5000})  # str() fails
@example(messages=[{"role": "user", "content": "x"}], variables={"tools": [{"n": 10**5000}]})
@example(messages=[{"role": "u", "content": ["t", {"type": "text"}, {"type": "text", "text": None}]}],
         variables={"date_string": 5})
@example(messages=({"role": "system", "content": "s"}, {"role": "user", "content": ("a", {"type": "text", "text": "t"})}),
         variables={})  # tuples: messages[1:] and a tuple content
@example(messages=[{"role": "tool", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}],
         variables={})  # a tool message with tool_calls is a call; a JSON-string argument is quoted
@example(messages=[{"role": "ipython", "content": {"a": float("nan")}}],
         variables={"custom_tools": "ab", "tools_in_user_message": 0})  # tools iterated as characters
def test_any_shape(messages, variables):
    assert_parity(NAME, messages, variables)


@given(messages=st.lists(s.message(roles=llama_roles), max_size=6), variables=llama_variables)
def test_role_sequences(messages, variables):
    assert_parity(NAME, messages, variables)


@given(messages=image_and_system(), variables=llama_variables)
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={})  # L44
@example(messages=[{"role": "system", "content": " \n"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={"tools": [1]})  # system trims to "": no error, no system block
@example(messages=[{"role": "user", "content": ({"type": "image"}, {"type": "text", "text": "x"})}],
         variables={"tools": [], "tools_in_user_message": True})
def test_images_and_system(messages, variables):
    assert_parity(NAME, messages, variables)


@given(messages=tool_call_messages(), variables=llama_variables)
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}},
                                                        {"function": {"name": "g"}}]}],
         variables={})  # L109
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [{"name": "f"}]}],
         variables={})  # a flat call: .function undefined
def test_tool_calls(messages, variables):
    assert_parity(NAME, messages, variables)


@given(messages=st.one_of(llama_conversation(), st.lists(s.message(roles=llama_roles), max_size=4)),
       variables=shadowing_variables)
@example(messages=[{"role": "user", "content": "hi"}], variables={"strftime_now": None})  # L14 fails
@example(messages=[{"role": "user", "content": "hi"}], variables={"strftime_now": "x", "date_string": "d"})
@example(messages=[], variables={"raise_exception": 1, "tools": []})
@example(messages=[{"role": "user", "content": "hi"}], variables={"namespace": 1})
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={"raise_exception": "f"})  # the L44 call fails as a TypeError instead
def test_shadowed_names(messages, variables):
    assert_parity(NAME, messages, variables)


@given(value=st.one_of(s.json_values(max_leaves=20), st.sampled_from(s.TOOL_SCHEMAS)),
       indent=st.integers(0, 4))
@example(value={1: [], 1.5: {}, True: (), False: "x", None: float("nan"), "k": [float("-inf"), 10**30]},
         indent=4)
@example(value=[[[]], {}, [{"a": {"b": [1, 2.5e-8]}}]], indent=0)
def test_tojson_indented(value, indent):
    """The fast ``tojson(indent=n)`` primitive is ``json.dumps(..., indent=n)`` byte for byte."""
    assert tojson_indented(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent)


def test_tojson_indented_failures():
    cyclic: list = [1]
    cyclic.append({"a": cyclic})
    for bad in (cyclic, [10**5000], {"a": {"b": [MISSING]}}):
        with pytest.raises(ChatFormatError):
            tojson_indented(bad, 4)
    with pytest.raises(ChatFormatError):
        tojson_indented(MISSING, 4)


def test_template_lines_exercised():
    assert_template_lines_exercised(NAME, unreachable={
        16: "strftime_now is always defined: transformers' global, or a caller's variable "
            "of that name (any JSON value is defined; calling it fails at line 14)",
        122: "a tool/ipython message reaching the loop had its content iterated by the line 35 "
             "image scan, which fails for every non-iterable value (None, numbers, booleans)",
    })
