"""Parity of the llama-3.2-vision port with its reference template."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from chatformats import ChatFormatError
from chatformats._jinja import MISSING, tojson_indented

from . import strategies as s
from .parity import assert_parity, assert_template_lines_exercised

NAME = "llama-3.2-vision"

# Every test of this module runs in one xdist worker, so the line-coverage check at the end
# sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

# ---------------------------------------------------------------- format-specific strategies

llama_tools = st.one_of(s.tools_any, st.lists(st.sampled_from(s.TOOL_SCHEMAS), min_size=1, max_size=2))

llama_variables = s.variables(
    bos_token=st.one_of(st.just("<|begin_of_text|>"), s.variable_values),
    tools=llama_tools,
    custom_tools=llama_tools,
    tools_in_user_message=s.variable_values,
    date_string=st.one_of(st.just("26 Jul 2024"), s.variable_values),
    add_generation_prompt=s.variable_values,
)
"""Every variable the template reads, each independently passed or not."""

shadowing_variables = s.variables(
    bos_token=st.just("<|begin_of_text|>"),
    tools=llama_tools,
    tools_in_user_message=s.variable_values,
    date_string=s.variable_values,
    strftime_now=s.variable_values,
    raise_exception=s.variable_values,
    namespace=s.variable_values,
    add_generation_prompt=s.variable_values,
    # names the template sets itself: a caller's value is overridden before it is read
    system_message=s.variable_values,
    first_user_message=s.variable_values,
    image_ns=s.variable_values,
    tool_call=s.variable_values,
)
"""Variables named like the template's globals (``strftime_now``, ``raise_exception``,
``namespace``) shadow them; names the template sets are overridden."""

image_parts = st.sampled_from([
    {"type": "image"}, {"type": "image", "url": "https://example.com/a.png"},
    {"type": "image", "image": "a.png"},
])


@st.composite
def llama_conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    """What Llama 3.2 Vision clients send: an optional system message, user turns with text and
    images, assistant turns with exactly one tool call, tool/ipython results of every shape."""
    msgs: list[dict[str, Any]] = []
    if draw(st.integers(0, 2)) == 0:
        msgs.append({"role": "system", "content": draw(st.one_of(s.texts, st.just("You are helpful.")))})
    for turn in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            user: Any = draw(s.texts)
        else:
            user = draw(st.lists(st.one_of(image_parts, st.builds(lambda t: {"type": "text", "text": t}, s.texts)),
                                 min_size=1, max_size=3))
        msgs.append({"role": "user", "content": user})
        for _ in range(draw(st.integers(0, 2))):
            args: Any = draw(st.dictionaries(st.sampled_from(["city", "query", "limit"]),
                                             st.one_of(s.texts, st.integers(), s.json_value), max_size=2))
            if draw(st.booleans()):
                args = json.dumps(args)
            call = {"function": {"name": draw(st.sampled_from(["get_weather", "search"])), "arguments": args}}
            if draw(st.booleans()):
                call = {"id": f"call_{turn}", "type": "function", **call}
            msgs.append({"role": "assistant", "content": draw(st.one_of(st.just(""), s.texts)), "tool_calls": [call]})
            result = draw(st.one_of(s.texts, st.just('{"temp": 21}'), st.dictionaries(s.short_texts, s.json_value,
                                                                                         max_size=2),
                                    st.lists(s.json_value, max_size=2)))
            msgs.append({"role": draw(st.sampled_from(["tool", "ipython"])), "content": result})
        if draw(st.integers(0, 3)) > 0:
            msgs.append({"role": "assistant", "content": draw(s.texts)})
    return msgs


llama_roles = st.sampled_from(["system", "user", "assistant", "tool", "ipython"])

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


@st.composite
def image_and_system(draw: st.DrawFn) -> list[Any]:
    """A system message (any content) followed by messages where images may appear anywhere."""
    msgs: list[Any] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(st.one_of(s.texts, st.just(" \n "), s.json_value,
                                                                 st.lists(image_parts, max_size=1)))})
    for _ in range(draw(st.integers(0, 3))):
        content = draw(st.one_of(
            st.lists(st.one_of(image_parts, s.content_part()), max_size=3),
            st.lists(st.one_of(image_parts, s.content_part()), max_size=3).map(tuple),
            s.texts, st.none(), s.json_value,
        ))
        msg: Any = {"role": draw(llama_roles), "content": content}
        if draw(st.integers(0, 5)) == 0:
            del msg["content"]
        msgs.append(msg)
    return msgs


@given(messages=image_and_system(), variables=llama_variables)
@example(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={})  # L44
@example(messages=[{"role": "system", "content": " \n"}, {"role": "user", "content": [{"type": "image"}]}],
         variables={"tools": [1]})  # system trims to "": no error, no system block
@example(messages=[{"role": "user", "content": ({"type": "image"}, {"type": "text", "text": "x"})}],
         variables={"tools": [], "tools_in_user_message": True})
def test_images_and_system(messages, variables):
    assert_parity(NAME, messages, variables)


@st.composite
def tool_call_messages(draw: st.DrawFn) -> list[Any]:
    """Assistant messages whose `tool_calls` is absent, None, empty, one call or several, in
    any shape, mixed with tool results of any shape."""
    msgs: list[Any] = [{"role": "user", "content": draw(s.texts)}]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 3))
        if kind <= 1:
            msgs.append({"role": "assistant", "tool_calls": draw(st.one_of(
                st.lists(s.tool_call(), min_size=1, max_size=1), s.tool_calls, s.texts))})
        elif kind == 2:
            msg: dict[str, Any] = {"role": draw(st.sampled_from(["tool", "ipython"]))}
            if draw(st.integers(0, 5)):
                msg["content"] = draw(st.one_of(s.texts, s.json_value))
            msgs.append(msg)
        else:
            msgs.append({"role": draw(s.roles), "content": draw(s.contents), "tool_calls": draw(s.tool_calls)})
    return msgs


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
