"""Parity of the llama-3.2-vision-variant port with its reference template: what is this format's
own (its conversations, images and the system message, tool calls, shadowed names, the indented
``tojson``).  The properties every format shares (realistic conversations, any shape, role
sequences, the pipeline layer, template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from chatformats import ChatFormatError
from chatformats._jinja import MISSING, tojson_indented

from . import budget
from . import strategies as s
from .llama_vision import (image_and_system, llama_conversation, llama_roles, shadowing_variables,
                           tool_call_messages)
from .parity import assert_parity

NAME = "llama-3.2-vision-variant"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py),
# so the line-coverage check sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

# The template's variables as its spec draws them (chatformats/specs/llama3_2_vision.py).
llama_variables = s.format_variables(NAME)

# ---------------------------------------------------------------- regressions

#: Inputs that pinned a behaviour of this template (found by the shared properties, or written to
#: show a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([], {}, id="messages[0]['role'] of undefined"),
    pytest.param([{"role": "system", "content": "s"}], {"tools": []}, id="L76"),
    pytest.param([{"role": "tool"}], {}, id="tojson of undefined content"),
    pytest.param([{"role": "tool", "content": "x"}], {}, id="a string result quoted"),
    pytest.param([{"role": "user", "content": None}], {}, id="L35 iterates None"),
    pytest.param([{"role": "system", "content": None}, {"role": "user"}], {}, id="the system message not scanned"),
    pytest.param([{"role": "system", "content": ["a"]}, {"role": "user"}], {}, id="a list's repr"),
    pytest.param([{"role": "user", "content": [{"type": "image"}]}, {"role": "user", "content": 3}], {},
                 id="the scan goes on after an image"),
    pytest.param([{"role": "assistant", "tool_calls": None}], {}, id="|length of None"),
    pytest.param([{"role": "assistant", "tool_calls": "f"}], {}, id="tool_calls one character"),
    pytest.param([{"role": "assistant", "tool_calls": {0: {"function": {"name": "f", "arguments": 1}}}}], {},
                 id="a one-key mapping indexed by 0"),
    pytest.param([{"role": "assistant", "tool_calls": {False: {"function": {"name": "f"}}}}], {},
                 id="False == 0: the key is found, arguments undefined"),
    pytest.param(["a tool_calls b"], {}, id="a substring test: the single tool-calls error"),
    pytest.param([["tool_calls"]], {}, id="a list message holding 'tool_calls'"),
    pytest.param([None], {}, id="'tool_calls' in None fails"),
    pytest.param(["user"], {}, id="message['role'] undefined"),
    pytest.param([{"role": "user", "content": {"type": "image"}}], {}, id="a mapping content: its keys only"),
    pytest.param([{"role": "user", "content": "image"}], {"tools": None, "custom_tools": [1]},
                 id="a string content holding 'image'; custom_tools when tools is None"),
    pytest.param([{"role": "user", "content": "x"}], {"bos_token": 10**5000}, id="str() of a too-long int fails"),
    pytest.param([{"role": "user", "content": "x"}], {"tools": [{"n": 10**5000}]}, id="so does tojson of one"),
    pytest.param([{"role": "u", "content": ["t", {"type": "text"}, {"type": "text", "text": None}]}],
                 {"date_string": 5}, id="text parts without a string text; date_string a number"),
    pytest.param(({"role": "system", "content": "s"}, {"role": "user", "content": ("a", {"type": "text", "text": "t"})}),
                 {}, id="tuples: messages[1:] and a tuple content"),
    pytest.param([{"role": "tool", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}], {},
                 id="a tool message with tool_calls is a call; a JSON-string argument is quoted"),
    pytest.param([{"role": "ipython", "content": {"a": float("nan")}}],
                 {"custom_tools": "ab", "tools_in_user_message": 0}, id="tools iterated as characters"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages, variables):
    assert_parity(NAME, messages, variables)


# ---------------------------------------------------------------- properties


@budget.own(NAME)
@given(messages=llama_conversation(), variables=llama_variables)
@example(messages=[{"role": "user", "content": "hi"}],
         variables={"bos_token": "<|begin_of_text|>", "add_generation_prompt": True})
@example(messages=[{"role": "system", "content": "  S \n"}, {"role": "user", "content": "hi"}],
         variables={"tools": [{"a": 1}]})
@example(messages=[{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}],
         variables={"tools": [{"a": 1}], "tools_in_user_message": False})
def test_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=image_and_system(), variables=llama_variables)
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={})  # L44
@example(messages=[{"role": "system", "content": " \n"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={"tools": [1]})  # system trims to "": no error, no system block
@example(messages=[{"role": "user", "content": ({"type": "image"}, {"type": "text", "text": "x"})}],
         variables={"tools": [], "tools_in_user_message": True})
def test_images_and_system(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=tool_call_messages(), variables=llama_variables)
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}},
                                                        {"function": {"name": "g"}}]}],
         variables={})  # L109
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [{"name": "f"}]}],
         variables={})  # a flat call: .function undefined
def test_tool_calls(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
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


@budget.own(NAME)
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

