"""Hypothesis strategies and regressions for the Llama 3.2 Vision formats (Meta's templates and
the variant read the same variables and branch on the same message shapes).  Each format's
variables are drawn as its spec says (``tests.strategies.format_variables``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import strategies as st

from . import strategies as s

llama_tools = s.VARIABLE_STRATEGIES["llama_tools"]

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


#: Inputs of the shared any-shape property that pinned a behaviour of both of Meta's templates
#: (September and December 2024), each with what it shows (line numbers: September's;
#: December's are three lower from L43 on).
ANY_SHAPE_REGRESSIONS = [
    pytest.param([], {}, id="messages[0]['role'] of undefined"),
    pytest.param([{"role": "system", "content": "s"}], {"tools": []}, id="L70"),
    pytest.param([{"role": "tool"}], {}, id="tojson of undefined content"),
    pytest.param([{"role": "tool", "content": "x"}], {}, id="a string result quoted"),
    pytest.param([{"role": "user", "content": None}], {}, id="L30 iterates None"),
    pytest.param([{"role": "system", "content": ["a"]}, {"role": "user"}], {}, id="a list's repr"),
    pytest.param([{"role": "assistant", "tool_calls": None}], {}, id="|length of None"),
    pytest.param([{"role": "assistant", "tool_calls": {False: {"function": {"name": "f"}}}}], {},
                 id="False == 0: the key is found, arguments undefined"),
    pytest.param(["a tool_calls b"], {}, id="a substring test: the single tool-calls error"),
    pytest.param([None], {}, id="'tool_calls' in None fails"),
    pytest.param(["user"], {}, id="message['role'] undefined"),
    pytest.param([{"role": "u", "content": ["t", {"type": "text"}, {"type": "text", "text": None}]}],
                 {"date_string": 5}, id="text parts without a string text; date_string a number"),
    pytest.param([{"role": "tool", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}], {},
                 id="a tool message with tool_calls is a call; a JSON-string argument is quoted"),
    pytest.param([{"role": "ipython", "content": {"a": float("nan")}}],
                 {"custom_tools": "ab", "tools_in_user_message": 0}, id="tools iterated as characters"),
]
