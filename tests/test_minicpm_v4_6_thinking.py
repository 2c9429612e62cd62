"""Parity of the minicpm-v-4.6-thinking port with its reference template: what is this format's
own (its conversations, its template branches, assistant turns, tool sequences, variables, fixed
cases and spans).  The properties every format shares (realistic conversations, any shape, role
sequences, the pipeline layer, template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import chatformats

from . import budget, oracle
from . import strategies as s
from .parity import assert_parity

NAME = "minicpm-v-4.6-thinking"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py),
# so the line-coverage check sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

# ---------------------------------------------------------------- format-specific strategies

# The template's variables as its spec draws them (chatformats/specs/minicpm_v4_6_thinking.py):
# `enable_thinking is false` is identity with False, so 0, None, "" and "false" must not count.
minicpm_variables = s.format_variables(NAME)

# Parts aimed at render_content's tests: `'image' in item` on dicts, strings, lists and
# scalars, `item.type` and `item.text` on non-dicts.
odd_parts = st.one_of(
    s.content_part(),
    st.sampled_from([
        "image", "an image_url", "video", "text", "context", "plain", "", ["image"], ["video"],
        ["text"], [], ("image_url",), ("x",), None, 0, 1.5, True,
        {"type": "image"}, {"type": "video"}, {"type": "text"}, {"text": None}, {"text": ["a", 1]},
        {"text": {"a": 1}}, {"text": 3.0}, {"text": True}, {"video": None, "text": "t"},
        {"image_url": None}, {"type": "input_audio"}, {}, {"type": ["image"]},
    ]),
)

part_lists = st.one_of(
    st.lists(odd_parts, max_size=4),
    st.lists(odd_parts, max_size=3).map(tuple),
)

minicpm_contents = st.one_of(s.texts, part_lists, st.none(), s.json_value)

real_query = st.fixed_dictionaries({"role": st.just("user"), "content": st.one_of(
    s.texts, st.lists(st.builds(lambda t: {"type": "text", "text": t}, s.texts), max_size=2))})

wrapped = st.builds(lambda t: "<tool_response>" + t + "</tool_response>", s.texts)


@st.composite
def with_user_query(draw: st.DrawFn, messages: st.SearchStrategy[list[Any]]) -> list[Any]:
    """Conversations that usually hold a real user query, so the template gets past L69-71."""
    msgs = list(draw(messages))
    if draw(st.sampled_from([True, True, True, True, True, False])):
        msgs.insert(draw(st.integers(0, len(msgs))), draw(real_query))
    return msgs


@st.composite
def minicpm_message(draw: st.DrawFn) -> Any:
    """A message aimed at this template's branches: each key absent, realistic or odd."""
    if draw(st.integers(0, 25)) == 0:
        return draw(st.one_of(s.json_value, st.sampled_from([{}, None, "", 0, [], "x", {"x": 1}])))
    msg: dict[str, Any] = {}
    if draw(st.sampled_from([True] * 15 + [False])):
        msg["role"] = draw(st.sampled_from(["user", "assistant", "tool", "system"] * 5 + [None, "bot", 1]))
    if draw(st.sampled_from([True] * 6 + [False])):
        msg["content"] = draw(st.one_of(minicpm_contents, wrapped,
                                        st.lists(st.builds(lambda t: {"type": "text", "text": t}, wrapped),
                                                 min_size=1, max_size=2)))
    if draw(st.integers(0, 2)) == 0:
        msg["reasoning_content"] = draw(st.one_of(s.texts, s.json_value))
    if draw(st.integers(0, 2)) == 0:
        msg["tool_calls"] = draw(st.one_of(st.lists(tool_call_odd(), max_size=3), s.tool_calls))
    return msg


argument_values = st.one_of(
    s.json_value, s.texts, st.lists(s.scalars, max_size=2), st.lists(s.scalars, max_size=2).map(tuple),
    st.dictionaries(s.short_texts, s.scalars, max_size=2),
)


@st.composite
def tool_call_odd(draw: st.DrawFn) -> Any:
    """Tool calls aimed at L97-118: `function` defined or not (even None), names of any type,
    arguments a mapping (keys of any JSON type, values of every kind), a JSON string, or junk."""
    arguments = draw(st.one_of(
        st.dictionaries(st.one_of(s.short_texts, s.short_texts, st.none(), st.integers(-2, 2), st.booleans()),
                        argument_values, max_size=3),
        st.dictionaries(s.short_texts, argument_values, max_size=3),
        st.dictionaries(s.short_texts, s.json_value, max_size=2).map(json.dumps),
        s.json_value,
    ))
    name = draw(st.one_of(st.sampled_from(["get_weather", "search"]), s.texts, s.json_value))
    body = draw(st.fixed_dictionaries({}, optional={"name": st.just(name), "arguments": st.just(arguments)}))
    kind = draw(st.integers(0, 5))
    if kind <= 2:
        return {"id": "call_1", "type": "function", "function": body}
    if kind == 3:
        return body
    if kind == 4:
        return {"function": draw(st.one_of(st.none(), s.json_value)), **body}
    return draw(s.json_value)


minicpm_conversations = with_user_query(st.lists(minicpm_message(), max_size=7))

good_parts = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, s.texts),
    st.sampled_from([{"type": "image", "url": "https://example.com/a.png"}, {"type": "image"},
                     {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                     {"type": "video", "video": "v.mp4"}, {"image": "a.png"}, {"video": "v.mp4"}]),
)
good_contents = st.one_of(s.texts, s.texts, st.lists(good_parts, min_size=1, max_size=3))
good_arguments = st.dictionaries(
    st.sampled_from(["city", "query", "limit", "x", ""]),
    st.one_of(s.texts, st.integers(), st.floats(), st.booleans(), st.none(),
              st.lists(s.scalars, max_size=2), st.dictionaries(s.short_texts, s.scalars, max_size=2)),
    max_size=3)


@st.composite
def minicpm_realistic(draw: st.DrawFn) -> list[dict[str, Any]]:
    """What MiniCPM clients send: an optional system prompt (text or text parts), user turns
    with images and videos, assistant turns with reasoning (a `reasoning_content` field or
    `<think>` in the content), tool rounds with dict arguments and their responses."""
    msgs: list[dict[str, Any]] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(st.one_of(
            s.texts, st.lists(st.builds(lambda t: {"type": "text", "text": t}, s.texts), max_size=2)))})
    for _turn in range(draw(st.integers(1, 3))):
        msgs.append({"role": "user", "content": draw(good_contents)})
        for _round in range(draw(st.sampled_from([0, 1, 1, 2]))):
            calls = [
                draw(st.sampled_from([
                    lambda n, a: {"id": "call_1", "type": "function", "function": {"name": n, "arguments": a}},
                    lambda n, a: {"function": {"name": n, "arguments": a}},
                    lambda n, a: {"name": n, "arguments": a},
                    lambda n, a: {"name": n},
                ]))(draw(st.sampled_from(["get_weather", "search"])), draw(good_arguments))
                for _ in range(draw(st.integers(1, 2)))
            ]
            assistant: dict[str, Any] = {"role": "assistant", "tool_calls": calls, "content": draw(st.one_of(
                st.just(""), s.texts, st.builds(lambda r, c: f"<think>\n{r}\n</think>\n\n{c}", s.texts, s.texts)))}
            if draw(st.booleans()):
                assistant["reasoning_content"] = draw(s.texts)
            msgs.append(assistant)
            for _call in calls:
                msgs.append({"role": "tool", "content": draw(st.one_of(s.texts, st.just('{"temp": 21}')))})
        if draw(st.sampled_from([True, True, True, False])):
            final: dict[str, Any] = {"role": "assistant", "content": draw(st.one_of(
                s.texts, st.builds(lambda r, c: f"<think>{r}</think>{c}", s.texts, s.texts)))}
            if draw(st.booleans()):
                final["reasoning_content"] = draw(s.texts)
            msgs.append(final)
    return msgs

# ---------------------------------------------------------------- regressions

#: Inputs that pinned a behaviour of this template (found by the shared properties, or written to
#: show a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},
                  {"role": "assistant", "content": "<think>r</think>\n\nok"}],
                 {"add_generation_prompt": True}, id="a think split in the last turn"),
    pytest.param([], {}, id="no messages: no user query"),
    pytest.param([], {"tools": [{"a": 1}]}, id="tools and no messages"),
    pytest.param([{"role": "tool", "content": "x"}], {}, id="a tool response alone: no user query"),
    pytest.param([{"role": "user", "content": "<tool_response>x</tool_response>"}], {},
                 id="a wrapped tool response is not a query"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)


# ---------------------------------------------------------------- properties


@budget.own(NAME)
@given(messages=minicpm_realistic(), variables=minicpm_variables)
def test_minicpm_conversations(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=with_user_query(s.adversarial_messages), variables=minicpm_variables)
def test_any_shape_with_a_query(messages, variables):
    """Messages of any shape that usually hold a real user query, so the template gets past
    L69-71 (the shared any-shape property mostly stops there)."""
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=minicpm_conversations, variables=minicpm_variables)
@example(messages=[{"role": "user", "content": ["an image", "video", "text", {"text": None}]}], variables={})
@example(messages=[{"role": "user", "content": [5]}], variables={})
@example(messages=[{"role": "user", "content": [None]}], variables={})
@example(messages=[{"role": "user", "content": [["image"], [], ("x",)]}], variables={})
@example(messages=[{"role": "user", "content": ("plain",)}], variables={})
@example(messages=[{"role": "user", "content": {"text": "x"}}], variables={})
@example(messages=[{"role": "user", "content": 3}], variables={})
@example(messages=[{"role": "system", "content": [{"type": "image"}]}, {"role": "user", "content": "q"}],
         variables={})
@example(messages=[{"role": "system", "content": ["video"]}, {"role": "user", "content": "q"}],
         variables={"tools": [{"a": 1}]})
@example(messages=[{"role": "system", "content": "  "}, {"role": "user", "content": "q"}],
         variables={"tools": "ab"})
@example(messages=[{"role": "user", "content": "q"}, {"role": "system", "content": "late"}], variables={})
@example(messages=[{"role": "user", "content": "q"}, {"role": "bot", "content": [7]}], variables={})
@example(messages=[{"role": "user", "content": "q"}, {"role": "bot"}], variables={})
@example(messages=[{"role": "user", "content": "q"}, "junk"], variables={})
def test_template_branches(messages, variables):
    assert_parity(NAME, messages, variables)


@pytest.mark.parametrize("messages", [
    [{"role": "user", "content": "q"}, {"role": "system", "content": "late"}],  # L76
    [{"role": "user", "content": "q"}, {"role": "bot", "content": "x"}],  # L135
])
def test_the_templates_own_errors(messages):
    """The template's ``raise_exception`` lines, each by a case of its own (the properties above
    reach them too, but only among many other inputs)."""
    assert_parity(NAME, messages, {})


@budget.own(NAME)
@given(messages=with_user_query(st.lists(st.fixed_dictionaries(
    {"role": st.just("assistant")},
    optional={"content": st.one_of(s.texts, s.texts, minicpm_contents),
              "reasoning_content": st.one_of(s.texts, s.json_value),
              "tool_calls": st.one_of(st.lists(tool_call_odd(), max_size=3), s.tool_calls)}),
    max_size=3)), variables=minicpm_variables)
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "content": "", "tool_calls": [
                       {"function": {"name": "f", "arguments": {"a": [1, "x"], "b": {"c": None}, "d": None,
                                                                "e": 1.5, "f": "s", "g": (1,), "h": True}}},
                       {"name": "g", "arguments": {}}]}],
         variables={})
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}],
         variables={})
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {1: "x"}}}]}],
         variables={})
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "tool_calls": [{"function": None, "name": "f"}]}],
         variables={})
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": "ab"}], variables={})
@example(messages=[{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": 3}], variables={})
@example(messages=[{"role": "user", "content": "q"},
                   {"role": "assistant", "content": "x\n</think>\n  ", "reasoning_content": None,
                    "tool_calls": [{"name": "f"}]}],
         variables={})
def test_assistant_turns(messages, variables):
    assert_parity(NAME, messages, variables)


tool_sequence_messages = st.one_of(
    st.sampled_from([{}, None, "", 0, [], "x", {"role": "tool"}, {"role": "assistant", "content": "a"}]),
    st.fixed_dictionaries({"role": st.sampled_from(["user", "tool", "tool", "assistant"])},
                          optional={"content": st.one_of(s.texts, wrapped, minicpm_contents)}),
)


@budget.own(NAME)
@given(messages=with_user_query(st.lists(tool_sequence_messages, max_size=8)), variables=minicpm_variables)
@example(messages=[{"role": "tool", "content": "r"}, {"role": "user", "content": "q"}], variables={})
@example(messages=[{"role": "user", "content": "q"}, {}, {"role": "tool", "content": "r"}], variables={})
@example(messages=[{"role": "user", "content": "q"}, {"role": "tool"}, {"role": "tool"}, "x"], variables={})
@example(messages=[{"role": "user", "content": "q"}, {"role": "user", "content": "<tool_response>r</tool_response>"},
                   {"role": "assistant", "content": "a"}],
         variables={"add_generation_prompt": True, "enable_thinking": False})
def test_tool_sequences(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(variables=minicpm_variables)
@example(variables={"add_generation_prompt": True, "enable_thinking": 0})
@example(variables={"add_generation_prompt": True, "enable_thinking": None})
@example(variables={"add_generation_prompt": True, "enable_thinking": False})
@example(variables={"add_generation_prompt": True})
def test_variables(variables):
    assert_parity(NAME, [{"role": "user", "content": "hi"}], variables)


def _cyclic_list() -> list[Any]:
    cycle: list[Any] = []
    cycle.append(cycle)
    return cycle


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


_Q = {"role": "user", "content": "q"}


def _call(arguments: Any) -> dict[str, Any]:
    return {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": arguments}}]}


FIXED_CASES = [
    # a tuple conversation: `messages[::-1]`, `loop.previtem` and `loop.nextitem` on a tuple
    ((_Q, {"role": "tool", "content": "r"}, {"role": "tool", "content": "s"}, _Q), {}),
    # cyclic values: `in` by equality, str() as `[[...]]`, tojson's circular-reference failure
    ([{"role": "user", "content": [_cyclic_list()]}], {}),
    ([{"role": "user", "content": [{"text": _cyclic_list()}]}], {}),
    ([_Q, _call({"a": _cyclic_list()})], {}),
    ([_Q, _call({"a": 1})], {"tools": [_cyclic_list()]}),
    # values nested deeper than str()/json.dumps can recurse
    ([{"role": "user", "content": [{"text": _deep(5000)}]}], {}),
    ([_Q, _call({"a": _deep(5000)})], {}),
    ([_Q, _call({"a": 1})], {"tools": [_deep(5000)]}),
]


@budget.own(NAME)
@given(case=st.sampled_from(FIXED_CASES))
def test_fixed_cases(case):
    """Inputs Hypothesis does not build (every case runs: sampled_from is exhausted)."""
    messages, variables = case
    assert_parity(NAME, messages, variables)


# ---------------------------------------------------------------- spans: one example per branch
#
# The shared laws (every format) check that each sourced span is a slice of the value its path
# names; these check what they cannot: which part of a list content, and which message field,
# each slice is attributed to, and that the roles in the headers are sourced.  Each expected
# text is a slice of the input (not of a rendering); the rendering itself is the oracle's.

_TOOL = {"type": "function", "function": {"name": "f", "parameters": {}}}

SPANS_CASES = {
    "system parts, tools": (
        [{"role": "system", "content": [{"type": "text", "text": " Be brief. "}, {"type": "text", "text": "Cite."}]},
         {"role": "user", "content": "q"}],
        {"tools": [_TOOL]},
        [("tools[0]", json.dumps(_TOOL)), ("messages[0].content[0].text", "Be brief. "),
         ("messages[0].content[1].text", "Cite."), ("messages[1].role", "user"), ("messages[1].content", "q")],
    ),
    "user parts with pads": (
        [{"role": "user", "content": [{"type": "text", "text": "\n a"}, {"type": "image"}, {"video": "v.mp4"},
                                      {"type": "text", "text": "b \n"}]}],
        {},
        [("messages[0].role", "user"), ("messages[0].content[0].text", "a"), ("messages[0].content[3].text", "b")],
    ),
    "reasoning split across parts": (
        [{"role": "user", "content": "q"},
         {"role": "assistant", "content": [{"type": "text", "text": "x</think>"}, {"type": "text", "text": "<think>\nr"},
                                           {"type": "image"}, {"type": "text", "text": "s\n</think>\n\nans "}]}],
        {},
        [("messages[0].role", "user"), ("messages[0].content", "q"), ("messages[1].role", "assistant"),
         ("messages[1].content[0].text", "x"), ("messages[1].content[3].text", "ans")],
    ),
    "a text that is not a string, split": (
        # the template splits the joined text, so a span may be a slice of a part's str()
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "text", "text": ["a</think>b"]}]}],
        {},
        [("messages[0].role", "user"), ("messages[0].content", "q"), ("messages[1].role", "assistant"),
         ("messages[1].content[0].text", "['a"), ("messages[1].content[0].text", "b']")],
    ),
    "reasoning after the last query": (
        [{"role": "user", "content": "q"},
         {"role": "assistant", "content": "<think>\n r \n</think>\n\n a", "reasoning_content": " field "}],
        {"add_generation_prompt": True},
        [("messages[0].role", "user"), ("messages[0].content", "q"), ("messages[1].role", "assistant"),
         # a string reasoning_content wins: the content is not split (L82-88)
         ("messages[1].reasoning_content", "field"), ("messages[1].content", "<think>\n r \n</think>\n\n a")],
    ),
    "tool calls and responses": (
        [{"role": "user", "content": "q"},
         {"role": "assistant", "content": "", "tool_calls": [
             {"function": {"name": "f", "arguments": {"city": "Oslo", "a b": [1], "n": None}}}, {"name": "g"}]},
         {"role": "tool", "content": " 21 C "}, {"role": "user", "content": "q2"},
         {"role": "assistant", "content": "<think>old</think>new"}],
        {},
        [("messages[0].role", "user"), ("messages[0].content", "q"), ("messages[1].role", "assistant"),
         ("messages[1].tool_calls[0].function.name", "f"),
         ("messages[1].tool_calls[0].function.arguments[0]", "city"),
         ("messages[1].tool_calls[0].function.arguments.city", "Oslo"),
         ("messages[1].tool_calls[0].function.arguments[1]", "a b"),
         ("messages[1].tool_calls[0].function.arguments['a b']", "[1]"),
         ("messages[1].tool_calls[0].function.arguments[2]", "n"),
         ("messages[1].tool_calls[0].function.arguments.n", "None"),
         ("messages[1].tool_calls[1].name", "g"), ("messages[2].content", "21 C"),
         ("messages[3].role", "user"), ("messages[3].content", "q2"), ("messages[4].role", "assistant"),
         ("messages[4].content", "old"), ("messages[4].content", "new")],
    ),
}


@pytest.mark.parametrize("case", list(SPANS_CASES))
def test_spans_sources(case):
    messages, variables, expected = SPANS_CASES[case]
    reference = oracle.render(NAME, messages, record_coverage=False, **variables)
    rendering = chatformats.render_spans(NAME, messages, now=oracle.FIXED_NOW, **variables)
    assert rendering.text == reference.text
    assert [(s.source, rendering.text[s.start:s.end]) for s in rendering.spans if s.source] == expected
