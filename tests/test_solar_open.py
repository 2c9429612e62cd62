"""Parity of the solar-open port with its reference template: what is this format's own (its
conversations, its tool-name lookup, its thinking options, its clock, its spans).  The properties
every format shares (realistic conversations, any shape, role sequences, the pipeline layer,
template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats

from . import budget
from . import strategies as s
from .parity import assert_parity

NAME = "solar-open"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py),
# so the line-coverage check sees what all of them executed (pyproject: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

# ---------------------------------------------------------------- format-specific strategies

# The template's variables as its spec draws them (chatformats/specs/solar_open.py).
solar_variables = s.format_variables(NAME)
_HOW = chatformats.get_format(NAME).tests.variables
reasoning_efforts = s.variable_strategy(_HOW["reasoning_effort"])
think_render_options = s.variable_strategy(_HOW["think_render_option"])

# Ids and names drawn from small pools so that tool responses meet calls: the same id on several
# calls, ids that equal each other under Python's == across types (1, 1.0, True), undefined ids.
call_ids = st.one_of(
    st.sampled_from(["call_1", "call_2", "a1b2c3d4e5", "", "1"]),
    st.sampled_from([1, 1.0, True, None, 0, False, ["call_1"], {"id": "call_1"}, ("call_1",)]),
    s.short_texts,
)
NO_ID = object()  # marker: the key is left out


def _deep(depth: int = 5000) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


DEEP = _deep()  # str() and json.dumps of it exceed the recursion limit


@st.composite
def solar_tool_call(draw: st.DrawFn) -> Any:
    """A call as Solar's clients send it (str id, str name, dict or JSON-string arguments),
    or one with an odd id, name, function or arguments."""
    kind = draw(st.integers(0, 9))
    arguments = draw(st.one_of(
        st.dictionaries(s.short_texts, s.json_value, max_size=3),
        st.dictionaries(s.short_texts, s.json_value, max_size=3).map(json.dumps),
        s.json_value,
    ))
    if kind <= 6:
        call_id = draw(st.sampled_from(["call_1", "call_2", "a1b2c3d4e5", "", "1"]))
        name = draw(st.sampled_from(["get_weather", "search", "", "calc"]))
        return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    call: dict[str, Any] = {}
    call_id = draw(st.one_of(call_ids, st.just(NO_ID)))
    if call_id is not NO_ID:
        call["id"] = call_id
    function = draw(st.one_of(
        st.fixed_dictionaries({}, optional={"name": st.one_of(st.sampled_from(["get_weather", "x"]),
                                                              s.json_value),
                                            "arguments": s.json_value}),
        s.json_value,
        st.just(NO_ID),
    ))
    if function is not NO_ID:
        call["function"] = function
    if kind == 9:
        return draw(st.one_of(s.json_value, st.just(call)))
    return call


@st.composite
def solar_conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    """What Solar's clients send: system messages (several, anywhere), user turns, assistant
    turns with ``reasoning``, tool rounds whose responses match the calls' ids, final answers."""
    msgs: list[dict[str, Any]] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(s.texts)})
    call_counter = 0
    for _turn in range(draw(st.integers(0, 4))):
        if draw(st.integers(0, 5)) == 0:
            msgs.append({"role": "system", "content": draw(s.texts)})
        msgs.append({"role": "user", "content": draw(s.texts)})
        for _round in range(draw(st.integers(0, 2))):
            calls = []
            for _k in range(draw(st.integers(1, 3))):
                call_counter += 1
                call_id = draw(st.one_of(st.just(f"c{call_counter:09d}"), st.sampled_from(["call_1", "call_2"])))
                args: Any = draw(st.dictionaries(st.sampled_from(["city", "query", "limit"]),
                                                 st.one_of(s.texts, st.integers(), st.booleans()), max_size=2))
                if draw(st.booleans()):
                    args = json.dumps(args)
                calls.append({"id": call_id, "type": "function",
                              "function": {"name": draw(st.sampled_from(["get_weather", "search"])),
                                           "arguments": args}})
            assistant: dict[str, Any] = {"role": "assistant", "tool_calls": calls}
            if draw(st.booleans()):
                assistant["content"] = draw(st.one_of(st.just(""), st.none(), s.texts))
            if draw(st.booleans()):
                assistant["reasoning"] = draw(s.texts)
            msgs.append(assistant)
            for call in draw(st.permutations(calls)):
                msgs.append({"role": "tool", "tool_call_id": call["id"],
                             "content": draw(st.one_of(s.texts, st.just('{"temp": 21}')))})
        if draw(st.integers(0, 4)) > 0:
            final: dict[str, Any] = {"role": "assistant", "content": draw(s.texts)}
            if draw(st.booleans()):
                final["reasoning"] = draw(st.one_of(s.texts, st.none()))
            if draw(st.integers(0, 3)) == 0:
                final["reasoning_content"] = draw(s.texts)
            msgs.append(final)
    return msgs


@st.composite
def tool_trace(draw: st.DrawFn) -> list[Any]:
    """Assistant calls and tool responses interleaved in any order, ids from small pools of any
    type, so one response can match many calls (before or after it) or none."""
    msgs: list[Any] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 5))
        if kind <= 1:
            msg: dict[str, Any] = {"role": "assistant",
                                   "tool_calls": draw(st.one_of(st.lists(solar_tool_call(), max_size=3),
                                                                s.tool_calls))}
            if draw(st.integers(0, 3)) == 0:
                msg["reasoning"] = draw(st.one_of(s.texts, s.json_value))
            msgs.append(msg)
        elif kind <= 3:
            msg = {"role": "tool", "content": draw(st.one_of(s.texts, s.json_value))}
            tool_call_id = draw(st.one_of(st.sampled_from(["call_1", "call_2", "a1b2c3d4e5", "", "1"]),
                                          call_ids, st.just(NO_ID)))
            if tool_call_id is not NO_ID:
                msg["tool_call_id"] = tool_call_id
            msgs.append(msg)
        elif kind == 4:
            msgs.append({"role": draw(st.sampled_from(["user", "system"])), "content": draw(s.texts)})
        else:
            msgs.append(draw(s.message()))
    return msgs


# ---------------------------------------------------------------- properties


@budget.own(NAME)
@given(messages=solar_conversation(), variables=solar_variables)
def test_realistic_conversations(messages, variables):
    assert_parity(NAME, messages, variables)



# ---------------------------------------------------------------- regressions

#: Inputs that pinned a behaviour of this template (found by the shared properties, or written to
#: show a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([], {}, id="no messages"),
    pytest.param([], {"default_system_prompt": False, "add_generation_prompt": False},
                 id="no default system prompt, no generation prompt"),
    pytest.param([{"role": "system"}, {"role": "system", "content": None},
                  {"role": "system", "content": {"a": [1]}}], {},
                 id="system messages without a string content"),
    pytest.param([{"role": "user"}], {}, id="a user turn without content"),
    pytest.param([{"role": "user", "content": None}], {}, id="a user turn with None content"),
    pytest.param([{"role": "assistant", "content": None}], {}, id="an assistant turn with None content"),
    pytest.param([{"role": "assistant", "tool_calls": 3}], {}, id="tool_calls not iterable"),
    pytest.param([{"role": "assistant", "tool_calls": "ab"}], {}, id="tool_calls a string: each character a call"),
    pytest.param([{"role": "assistant", "tool_calls": [{"id": "a"}]}], {}, id="a call without a function"),
    pytest.param([{"role": "assistant", "tool_calls": [{"id": "a", "function": "f"}]}], {},
                 id="a call whose function is a string"),
    pytest.param([{"role": "assistant", "reasoning": ["r"], "content": "x"}], {}, id="reasoning a list"),
    pytest.param(["user", 3, None, {"role": "developer", "content": None}], {},
                 id="messages that are not dicts; an unknown role"),
    pytest.param([], {"tools": [{}]}, id="a tool without a function"),
    pytest.param([], {"tools": "ab"}, id="tools a string"),
    pytest.param([], {"tools": 5}, id="tools not iterable"),
    pytest.param([], {"tools": [{"function": None}], "response_format": {"a": None}},
                 id="a None function; a response_format mapping"),
    pytest.param([], {"response_format": 10**5000}, id="str() of a response_format int fails (4300 digits)"),
    pytest.param([{"role": "tool", "tool_call_id": "x", "content": [10**5000]}], {},
                 id="str() of a tool content with a too-long int fails"),
    pytest.param(({"role": "user", "content": "a"}, {"role": "tool", "tool_call_id": "x"},
                  {"role": "tool", "tool_call_id": "y", "content": 1}), {},
                 id="a tuple conversation; tool responses without a string content"),
    pytest.param([], {"add_generation_prompt": None, "default_system_prompt": None, "tools": "<think>"},
                 id="tojson of an undefined tool.function is a TypeError (json.dumps), not UndefinedError"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)


DEEP_CASES: list[tuple[Any, dict[str, Any]]] = [
    ([], {"response_format": DEEP}),
    ([], {"tools": [{"function": DEEP}]}),
    ([{"role": "tool", "tool_call_id": "a", "content": DEEP}], {}),
    ([{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": {"a": DEEP}}}]}], {}),
    ([{"role": "tool", "tool_call_id": "a", "content": "r"},
      {"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": DEEP}}]}], {}),
]


@budget.own(NAME)
@given(case=st.sampled_from(range(len(DEEP_CASES))))  # an index: Hypothesis would print the value
def test_nested_too_deep(case):
    """Values nested past the recursion limit fail in str() and tojson on both sides."""
    messages, variables = DEEP_CASES[case]
    assert not assert_parity(NAME, messages, variables).ok


@budget.own(NAME)
@given(messages=tool_trace(), variables=s.variables(think_render_option=think_render_options,
                                                    default_system_prompt=s.variable_values))
# All matches, in order, concatenated — calls before and after the response.
@example(messages=[{"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "a"}}]},
                   {"role": "tool", "tool_call_id": "x", "content": "r"},
                   {"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "b"}},
                                                        {"id": "x", "function": {"name": "c"}}]}],
         variables={})
# A matching call without a function fails the lookup (.name of undefined).
@example(messages=[{"role": "tool", "tool_call_id": "x", "content": "r"},
                   {"role": "assistant", "tool_calls": [{"id": "x"}]}], variables={})
# ...a non-matching one does not, until the assistant turn concatenates its name.
@example(messages=[{"role": "assistant", "tool_calls": [{"id": "y", "function": {"name": "f"}}]},
                   {"role": "tool", "tool_call_id": "x", "content": None},
                   {"role": "tool", "tool_call_id": "y"}], variables={})
# Ids of other types never match the (string) tool_call_id; an undefined tool_call_id fails at
# L116 before undefined == undefined could match an id-less call.
@example(messages=[{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]},
                   {"role": "tool", "content": "r"}], variables={})
@example(messages=[{"role": "tool", "tool_call_id": "1", "content": "r"},
                   {"role": "assistant", "tool_calls": [{"id": 1, "function": {"name": "f"}},
                                                        {"id": 1.0, "function": {"name": "g"}},
                                                        {"id": True, "function": {"name": "h"}},
                                                        {"id": ["1"], "function": {"name": "i"}},
                                                        {"id": {"1": 1}, "function": {"name": "j"}}]}],
         variables={})
@example(messages=[{"role": "tool", "tool_call_id": 1, "content": "r"},
                   {"role": "assistant", "tool_calls": [{"id": 1, "function": {"name": "f"}}]}], variables={})
# A truthy tool_calls that cannot be iterated fails every lookup, wherever it is.
@example(messages=[{"role": "tool", "tool_call_id": "x", "content": "r"},
                   {"role": "assistant", "tool_calls": 1.5}], variables={})
# Grouping: consecutive tool responses share one header and one <|end|>.
@example(messages=[{"role": "tool", "tool_call_id": "a", "content": "1"},
                   {"role": "tool", "tool_call_id": "b", "content": {"k": 2}},
                   "not a message",
                   {"role": "tool", "tool_call_id": "c"}], variables={})
def test_tool_name_lookup(messages, variables):
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=solar_conversation(),
       variables=s.variables(think_render_option=think_render_options, reasoning_effort=reasoning_efforts,
                             add_generation_prompt=s.variable_values),
       extra=st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", "tool"]),
                                              "content": s.texts},
                                             optional={"reasoning": st.one_of(s.texts, s.json_value)}),
                      max_size=3))
@example(messages=[{"role": "assistant", "reasoning": "r0", "content": "a"},
                   {"role": "user", "content": "u"},
                   {"role": "assistant", "reasoning": "r1", "content": "b"}],
         variables={"think_render_option": "all"}, extra=[])
@example(messages=[{"role": "assistant", "reasoning": "r0", "content": "a"},
                   {"role": "user", "content": "u"},
                   {"role": "assistant", "reasoning": "r1", "content": "b"}],
         variables={}, extra=[])
@example(messages=[{"role": "assistant", "reasoning": "r", "reasoning_content": "rc", "content": "a"}],
         variables={"think_render_option": "none", "reasoning_effort": "minimal"}, extra=[])
def test_thinking(messages, variables, extra):
    assert_parity(NAME, messages + extra, variables)


@budget.own(NAME)
@given(messages=st.one_of(solar_conversation(), s.adversarial_messages),
       variables=solar_variables,
       now=st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)))
@example(messages=[], variables={}, now=datetime(999, 1, 2))
@example(messages=[], variables={}, now=datetime(9999, 12, 31, 23, 59, 59))
def test_clock(messages, variables, now):
    assert_parity(NAME, messages, variables, now=now)


@settings(max_examples=1)
@given(ids=st.just(40))
def test_tool_names_indexed_once(ids):
    """The lookup the template repeats for every tool response (L117, a scan of all messages)
    is built once per render: a trace with 150 tool responses calls the index builder once."""
    from chatformats.ports import solar_open

    calls = []
    real = solar_open.index_tool_names

    def counting(messages, *args):
        calls.append(len(messages))
        return real(messages, *args)

    messages: list[Any] = [{"role": "user", "content": "go"}]
    for i in range(150):
        messages.append({"role": "assistant", "tool_calls": [
            {"id": f"c{i % ids}", "function": {"name": f"f{i}", "arguments": {"i": i}}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i % ids}", "content": str(i)})
    solar_open.index_tool_names = counting
    try:
        assert_parity(NAME, messages, {"tools": [s.TOOL_SCHEMAS[0]]})
    finally:
        solar_open.index_tool_names = real
    assert calls == [len(messages)]



# ---------------------------------------------------------------- spans

# The generated ranges' oracle: a copy of the reference template with ``{% generation %}`` around
# what the model writes after the generation prompt's ``<|begin|>assistant``, derived from the
# pinned file by one replacement of the assistant branch (L125-147) and checked to render
# byte-identically; transformers 5.24's own tracker gives the indices.
_ASSISTANT_BRANCH = """
 {#- ======== Assistant Thinking ======== #}
 {%- if think_render_option == "all" -%}
 {%- if message.reasoning -%}
 {{- "<|begin|>assistant<|think|>" + message.reasoning + "<|end|>" }}
 {%- endif -%}
 {%- elif think_render_option == "lastthink" -%}
 {%- if message.reasoning and loop.index0 > last_user_idx.value -%}
 {{- "<|begin|>assistant<|think|>" + message.reasoning + "<|end|>" }}
 {%- endif -%}
 {%- endif -%}

 {#- ======== Assistant Messages ======== #}
 {%- if message.tool_calls -%}
 {{- "<|begin|>assistant<|tool_calls|>" }}
 {%- for tool_call in message.tool_calls -%}
 {{- "<|tool_call:begin|>" + tool_call.id +"<|tool_call:name|>" + tool_call.function.name + "<|tool_call:args|>" }}
 {{- render_tool_arguments(tool_call.function.arguments) }}
 {{- "<|tool_call:end|>" }}
 {%- endfor -%}
 {{- "<|calls|>" }}
 {%- else -%}
 {{- "<|begin|>assistant<|content|>" + message.content + "<|end|>" }}
 {%- endif -%}
"""
_TAGGED_BRANCH = """
 {%- set shown = (think_render_option == "all" and message.reasoning) or (think_render_option == "lastthink" and message.reasoning and loop.index0 > last_user_idx.value) -%}
 {{- "<|begin|>assistant" }}
 {%- generation -%}
 {%- if shown -%}
 {{- "<|think|>" + message.reasoning + "<|end|>" + "<|begin|>assistant" }}
 {%- endif -%}
 {%- if message.tool_calls -%}
 {{- "<|tool_calls|>" }}
 {%- for tool_call in message.tool_calls -%}
 {{- "<|tool_call:begin|>" + tool_call.id +"<|tool_call:name|>" + tool_call.function.name + "<|tool_call:args|>" }}
 {{- render_tool_arguments(tool_call.function.arguments) }}
 {{- "<|tool_call:end|>" }}
 {%- endfor -%}
 {{- "<|calls|>" }}
 {%- else -%}
 {{- "<|content|>" + message.content + "<|end|>" }}
 {%- endif -%}
 {%- endgeneration -%}
"""


def _generation_indices(messages: Any, variables: dict[str, Any]) -> tuple[str, list[tuple[int, int]]]:
    from .oracle import FIXED_NOW, clock, compile_source, source

    reference = source(NAME)
    assert reference.count(_ASSISTANT_BRANCH) == 1
    tagged = compile_source(reference.replace(_ASSISTANT_BRANCH, _TAGGED_BRANCH))
    blocks: list[str] = []
    indices: list[tuple[int, int]] = []
    with clock(FIXED_NOW), tagged.environment.activate_tracker(blocks, indices):
        blocks.extend(tagged.generate(messages=messages, **variables))
    return "".join(blocks), indices


def _expected_spans(text: str, sources: list[str], messages: Any,
                    variables: dict[str, Any]) -> list[tuple[str | None, str]]:
    """The ``(source, text)`` list for a render ``text`` whose input-derived pieces are the
    values at ``sources``, in order: each value as the template prints it (``tools[i].function``
    and a dict's ``function.arguments`` as JSON, anything else with ``str()``), found in ``text``
    from where the previous one ended; the text between them is the template's."""
    expected: list[tuple[str | None, str]] = []
    position = 0
    for path in sources:
        value: Any = {"messages": messages, **variables}
        for key in path.replace("[", ".").replace("]", "").split("."):
            value = value[int(key)] if key.isdigit() else value[key]
        as_json = path.startswith("tools[") or (path.endswith(".arguments") and type(value) is dict)
        printed = json.dumps(value, ensure_ascii=False) if as_json else str(value)
        found = text.index(printed, position)
        if found > position:
            expected.append((None, text[position:found]))
        expected.append((path, printed))
        position = found + len(printed)
    if position < len(text):
        expected.append((None, text[position:]))
    return expected


_TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
_CALLS = [
    {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Seoul"}}},
    {"id": "c2", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "x"}'}},
]

#: One conversation per branch of the template: (messages, variables, the sourced pieces in
#: order, the number of assistant turns).
SPAN_CASES: dict[str, tuple[list[Any], dict[str, Any], list[str], int]] = {
    "system block": (
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
         {"role": "system", "content": ["late"]}],
        {"tools": _TOOLS, "response_format": {"type": "json_object"}, "add_generation_prompt": False},
        ["messages[0].content", "messages[2].content", "tools[0].function", "response_format",
         "messages[1].content"],
        0,
    ),
    "reasoning shown after the last user message, dropped before it": (
        [{"role": "user", "content": "Q1"},
         {"role": "assistant", "reasoning": "old thought", "content": "A1"},
         {"role": "user", "content": "Q2"},
         {"role": "assistant", "reasoning": "new thought", "content": "A2"}],
        {"default_system_prompt": False},
        ["messages[0].content", "messages[1].content", "messages[2].content",
         "messages[3].reasoning", "messages[3].content"],
        2,
    ),
    "tool calls, tool responses, a name from two calls": (
        [{"role": "user", "content": "Weather?"},
         {"role": "assistant", "reasoning": "Use tools.", "content": "dropped", "tool_calls": _CALLS},
         {"role": "tool", "tool_call_id": "c1", "content": "21 C"},
         {"role": "tool", "tool_call_id": "c2", "content": {"hits": 0}},
         {"role": "assistant", "tool_calls": [_CALLS[0]]},
         {"role": "tool", "tool_call_id": "c1", "content": "22 C"},
         {"role": "tool", "tool_call_id": "none", "content": "?"},
         {"role": "assistant", "content": "Sunny."}],
        {"default_system_prompt": False, "think_render_option": "all", "reasoning_effort": "low"},
        ["messages[0].content", "messages[1].reasoning",
         "messages[1].tool_calls[0].id", "messages[1].tool_calls[0].function.name",
         "messages[1].tool_calls[0].function.arguments",
         "messages[1].tool_calls[1].id", "messages[1].tool_calls[1].function.name",
         "messages[1].tool_calls[1].function.arguments",
         "messages[2].tool_call_id", "messages[1].tool_calls[0].function.name",
         "messages[4].tool_calls[0].function.name", "messages[2].content",
         "messages[3].tool_call_id", "messages[1].tool_calls[1].function.name", "messages[3].content",
         "messages[4].tool_calls[0].id", "messages[4].tool_calls[0].function.name",
         "messages[4].tool_calls[0].function.arguments",
         "messages[5].tool_call_id", "messages[1].tool_calls[0].function.name",
         "messages[4].tool_calls[0].function.name", "messages[5].content",
         "messages[6].tool_call_id", "messages[6].content", "messages[7].content"],
        3,
    ),
}


@pytest.mark.parametrize("case", list(SPAN_CASES))
def test_spans_by_branch(case):
    """Each branch's spans, exactly: the input-derived pieces in order with their paths (the
    rest is template text, as the oracle renders it), and the assistant ranges transformers
    finds for ``{% generation %}`` in the tagged copy of the template."""
    from .oracle import FIXED_NOW, render

    messages, variables, sources, turns = SPAN_CASES[case]
    text = render(NAME, messages, record_coverage=False, **variables).text
    assert text is not None
    rendering = chatformats.render_spans(NAME, messages, now=FIXED_NOW, **variables)
    assert rendering.text == text
    got = [(span.source, text[span.start:span.end]) for span in rendering.spans]
    assert got == _expected_spans(text, sources, messages, variables)
    tagged_text, indices = _generation_indices(messages, variables)
    assert tagged_text == text
    assert len(indices) == turns
    assert list(rendering.assistant_spans) == indices


@budget.own(NAME, cost=6)  # each example also compiles and renders the tagged copy
@given(messages=st.one_of(solar_conversation(), tool_trace()), variables=solar_variables)
def test_assistant_spans_match_generation_tags(messages, variables):
    """On any conversation the tagged copy renders, its generation indices are the port's
    assistant ranges."""
    from .oracle import FIXED_NOW

    try:
        tagged_text, indices = _generation_indices(messages, variables)
    except Exception:  # noqa: BLE001 — the template fails: so does the port (parity says how)
        with pytest.raises(chatformats.ChatFormatError):
            chatformats.render_spans(NAME, messages, now=FIXED_NOW, **variables)
        return
    rendering = chatformats.render_spans(NAME, messages, now=FIXED_NOW, **variables)
    assert rendering.text == tagged_text
    assert list(rendering.assistant_spans) == indices
