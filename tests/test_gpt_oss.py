"""Parity of the gpt-oss port with its reference template (Harmony): what is this format's own.
The properties every format shares (realistic conversations, any shape, role sequences, the
pipeline layer, template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import chatformats
from chatformats import ParseError, parse_response
from chatformats.ports import gpt_oss

from . import budget
from . import strategies as s
from .oracle import FIXED_NOW
from .parity import assert_parity
from .test_parse import case, chunked, stream
from .test_spans import assert_template_laws

NAME = "gpt-oss"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

_CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
_Q = {"role": "user", "content": "q"}


def _tool(properties: Any, required: Any = None, **function: Any) -> list[dict[str, Any]]:
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        parameters["required"] = required
    return [{"type": "function", "function": {"name": "f", "description": "d", "parameters": parameters,
                                              **function}}]


#: Inputs that pinned a behaviour of this template (found by the properties, or written to show
#: a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([_Q], {"tools": _tool({"p": {"type": "array"}})},
                 id="array without items: ['items'] is the mapping's items method, true, rendered as any"),
    pytest.param([_Q], {"tools": _tool({"p": {"type": "array", "items": {}}, "q": {"type": "array", "items": None,
                                                                              "nullable": 1}})},
                 id="array with empty or None items: any[], nullable by truth"),
    pytest.param([_Q], {"tools": _tool({"p": {"oneOf": [{"type": "object"}, {"type": "object", "default": None}]}})},
                 id="oneOf with object variants: the union (has_object_variants stays false), 20 spaces before a default"),
    pytest.param([_Q], {"tools": _tool({"p": {"oneOf": "ab"}, "q": {"oneOf": {"x": 1}}})},
                 id="oneOf as a string or a mapping: its characters or keys are variants, each any"),
    pytest.param([_Q], {"tools": _tool({"p": {"oneOf": 3}})}, id="a oneOf that is a number cannot be iterated"),
    pytest.param([_Q], {"tools": _tool({"p": {"type": "string", "enum": "xy"}, "q": {"type": "string", "enum": {"a": 1}},
                                        "r": {"type": "string", "enum": [None, 2, {"k": []}]}})},
                 id="enum join: a string's characters, a mapping's keys, str() of each member"),
    pytest.param([_Q], {"tools": _tool({"p": {"type": "string", "enum": 5}})}, id="a number enum cannot be joined"),
    pytest.param([_Q], {"tools": _tool({"pa": {"type": "number"}, "b": {"type": "object", "properties": {"x": {}},
                                                                       "required": "xyz"}}, required="pab")},
                 id="required as a string: a substring test ('pa' and 'b' are in 'pab')"),
    pytest.param([_Q], {"tools": _tool({"p": {"type": "object", "properties": [1]}})},
                 id="properties that is a list: calling its undefined items fails"),
    pytest.param([_Q], {"tools": _tool({"p": {"type": "integer", "enum": ["a"], "default": 3}})},
                 id="a default beside an enum is concatenated: a number fails"),
    pytest.param([_Q], {"tools": _tool({"p": {"type": ["string"], "default": {"a": [1, None]}},
                                        "q": {"type": [None, 1, "x"], "oneOf": [{}], "default": "d"}})},
                 id="a type list: its only member, or str() of each joined; defaults by tojson or concatenation"),
    pytest.param([_Q], {"tools": _tool({"p": {"type": "array", "items": {"type": "array", "items": {
        "type": "object", "properties": {"long_name_one": {"type": "string"}, "long_name_two": {"type": "number"}}}}}})},
                 id="an inner type longer than 50 characters: any[]"),
    pytest.param([_Q], {"tools": [{"type": "function", "function": {"name": "f", "description": "d",
                                                                    "parameters": {"properties": {"a": {}}}}}]},
                 id="parameters without a type still render their properties"),
    pytest.param([_Q], {"tools": [{"function": {"name": "f"}}]}, id="a tool without a description fails"),
    pytest.param([_Q], {"tools": "ab"}, id="a string tools list: a character has no function"),
    pytest.param([_Q], {"tools": [{"type": "function", "function": {"name": "f", "description": "d",
                                                                    "parameters": ["x"]}}]},
                 id="parameters that are not a mapping: () => any"),
    pytest.param([{"role": "system", "content": ["s"]}, _Q], {},
                 id="a list system message becomes the developer message by str()"),
    pytest.param([{"role": "developer"}, _Q], {"tools": []},
                 id="a developer message without content and no tools: no developer block"),
    pytest.param([_Q, {"role": "assistant", "content": "a", "tool_calls": [_CALL, {"function": {"name": "g"}}]},
                  {"role": "tool", "content": "r"}, {"role": "tool", "content": ["r2"]}], {},
                 id="only the first call is rendered; every tool result takes its name; content by tojson"),
    pytest.param([_Q, {"role": "assistant", "tool_calls": [{"name": "flat", "arguments": '{"a": 1}'}]},
                  {"role": "tool"}], {},
                 id="a flat call (no function) is read as is; string arguments quoted again; missing content fails"),
    pytest.param([_Q, {"role": "assistant", "tool_calls": []}], {}, id="no calls: tool_calls[0] is undefined"),
    pytest.param([_Q, {"role": "assistant", "tool_calls": None}], {}, id="None calls: None[0] is undefined"),
    pytest.param([_Q, {"role": "assistant", "tool_calls": "ab"}], {},
                 id="string calls: the first character, with no name"),
    pytest.param([_Q, {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": 1,
                                                                         "content_type": 2}}]}], {},
                 id="a content_type that is not a string fails"),
    pytest.param([_Q, {"role": "assistant", "thinking": "t", "tool_calls": [_CALL]},
                  {"role": "tool", "content": "r"}, {"role": "assistant", "content": "a"}], {},
                 id="a later answer drops the tool-call turn's analysis"),
    pytest.param([_Q, {"role": "assistant", "thinking": "t", "tool_calls": [_CALL]},
                  {"role": "tool", "content": "r"}, {"role": "assistant", "content": "a", "tool_calls": [_CALL]}],
                 {"add_generation_prompt": True},
                 id="only tool-call turns after it: the analysis stays"),
    pytest.param([_Q, {"role": "assistant", "content": "a", "thinking": "t"}], {"add_generation_prompt": True},
                 id="the last answer under the generation prompt: no analysis, <|end|>"),
    pytest.param([_Q, {"role": "assistant", "content": "a", "thinking": None}], {},
                 id="the last answer with a None thinking fails"),
    pytest.param([_Q, {"role": "assistant", "content": None}], {}, id="None content: 'tag' in None fails"),
    pytest.param([_Q, {"role": "assistant", "content": ["<|channel|>final<|message|>"]}], {},
                 id="list content: the tag test is list membership, then a list cannot be concatenated"),
    pytest.param([_Q, {"role": "assistant", "tool_calls": [_CALL]}, {"role": "assistant", "content": "a"},
                  {"role": "tool", "content": "r"}], {},
                 id="an answer resets the last call: a tool result after it raises"),
    pytest.param([], {}, id="an empty conversation: messages[0].role fails"),
    pytest.param(["x", _Q, 3], {}, id="messages that are not mappings render nothing"),
    pytest.param([_Q], {"model_identity": None}, id="a None model identity cannot be concatenated"),
    pytest.param([_Q], {"reasoning_effort": 1}, id="a number reasoning effort cannot be concatenated"),
    pytest.param([_Q], {"builtin_tools": "browser"}, id="builtin_tools as a string: its characters, neither tool"),
    pytest.param([_Q], {"builtin_tools": 1}, id="builtin_tools that cannot be iterated"),
    pytest.param([_Q], {"builtin_tools": ["python"], "namespace": 1},
                 id="a namespace variable shadows the global: calling it fails"),
    pytest.param([_Q], {"strftime_now": "x"}, id="a strftime_now variable shadows the clock"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)


@budget.own(NAME)
@given(messages=st.one_of(s.realistic_conversation(), s.adversarial_messages), tools=s.schema_tools,
       variables=s.format_variables(NAME))
def test_schema_tools(messages: Any, tools: Any, variables: dict[str, Any]) -> None:
    """Tools whose parameters are JSON schemas of every shape (the TypeScript macros' branches),
    after a user message (so the render reaches the tools)."""
    assert_parity(NAME, [_Q, *messages], {**variables, "tools": tools})


@budget.own(NAME, cost=2)
@given(messages=st.one_of(s.realistic_conversation(), s.adversarial_messages), tools=s.schema_tools,
       variables=s.format_variables(NAME))
def test_schema_tool_spans(messages: Any, tools: Any, variables: dict[str, Any]) -> None:
    """The spans laws (``test_spans.py``) on the TypeScript rendering: each description, name,
    property name (a mapping's k-th key), enum member, type-list member and default is sourced
    by its path; the rest cuts into the template's literals."""
    assert_template_laws(NAME, [_Q, *messages], {**variables, "tools": tools})


def _nested_arrays(levels: int) -> list[dict[str, Any]]:
    """A parameter of ``levels`` nested types (arrays of arrays of an unknown type: each a call of
    the macro; an array of strings would be rendered without one)."""
    spec: dict[str, Any] = {"type": "x"}
    for _ in range(levels - 1):
        spec = {"type": "array", "items": spec}
    return _tool({"p": spec})


def test_type_depth_limit() -> None:
    """At the port's limit (150 nested types) the reference renders and the port agrees; past the
    reference's recursion limit (250: about 1,250 Python frames in jinja2) the reference fails
    with RecursionError and the port refuses with NestingTooDeep (still within the render
    core's container limit, 400)."""
    assert_parity(NAME, [_Q], {"tools": _nested_arrays(gpt_oss.TYPE_DEPTH_LIMIT)})
    assert_parity(NAME, [_Q], {"tools": _nested_arrays(250)})
    with pytest.raises(chatformats.NestingTooDeep, match="nested more than 150"):
        chatformats.render(NAME, [_Q], now=FIXED_NOW, tools=_nested_arrays(gpt_oss.TYPE_DEPTH_LIMIT + 1))


# ------------------------------------------------------------------ parsing: Harmony as sampled


def _as_sampled(completion: str) -> str:
    """A rendered turn as the model samples it (openai-harmony's own writing): the call's
    recipient after its channel, ``<|constrain|>`` before the content type."""
    head = "<|start|>assistant to=functions." if "<|start|>assistant to=" in completion else " to=functions."
    at = completion.find(head)
    if at < 0:
        return completion
    channel = completion.find("<|channel|>commentary json<|message|>", at)
    name = completion[at + len(head):channel]
    opener = "<|start|>assistant" if head.startswith("<|start|>") else ""
    return (completion[:at] + opener + "<|channel|>commentary to=functions." + name
            + " <|constrain|>json<|message|>" + completion[channel + len("<|channel|>commentary json<|message|>"):])


@budget.own(NAME)
@given(data=st.data())
def test_harmony_sampled_form_reads_as_the_rendered_turn(data: st.DataObject) -> None:
    """A rendered turn rewritten as Harmony writes it reads back (recovering reading, any
    chunking) as the rendered turn does, with nothing to report: it is openai-harmony's own
    header form; the exact reading refuses it (the template never writes it)."""
    prefix, completion, expected, _ = data.draw(case(NAME, calls=1))
    sampled = _as_sampled(completion)
    assert sampled != completion
    message = parse_response(NAME, sampled, prefix=prefix)
    assert message == expected and message.diagnostics == []
    cuts = data.draw(st.lists(st.integers(0, 10_000), max_size=5))
    assert stream(NAME, prefix, chunked(sampled, cuts))[0] == expected
    with pytest.raises(ParseError):
        parse_response(NAME, sampled, prefix=prefix, strict=True)


@pytest.mark.parametrize(("completion", "expected", "kinds"), [
    pytest.param("<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>final"
                 "<|message|>Done.<|return|>",
                 {"content": "Checking.Done."}, ["not-final"], id="a preamble is content"),
    pytest.param("<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>analysis<|message|>b"
                 "<|end|><|start|>assistant<|channel|>final<|message|>c",
                 {"content": "c", "reasoning_content": "ab"}, ["unclosed-message"],
                 id="two analysis messages joined; an answer left open"),
    pytest.param("<|channel|>commentary to=browser.search <|constrain|>json<|message|>{\"query\": \"x\"}<|call|>",
                 {"content": "", "tool_calls": [{"type": "function", "function": {
                     "name": "browser.search", "arguments": {"query": "x"}}}]}, ["builtin-tool-call"],
                 id="a built-in tool's call is a call named by its recipient"),
    pytest.param("<|channel|>commentary to=functions.f code<|message|>print(1)<|call|>",
                 {"content": "", "tool_calls": [{"type": "function", "function": {
                     "name": "f", "arguments": "print(1)"}}]}, ["content-type"],
                 id="another content type: the body as string arguments (vLLM's rule)"),
    pytest.param(" to=functions.f<|channel|>commentary json<|message|>{bad<|call|>",
                 {"content": "", "tool_calls": [{"type": "function", "function": {
                     "name": "f", "arguments": "{bad"}}]}, ["bad-json"],
                 id="arguments that do not decode stay as the string"),
    pytest.param("<|channel|>final<|message|>a<|end|>stray<|start|>user<|message|>hi<|end|>",
                 {"content": "astray<|start|>user<|message|>hi<|end|>"}, ["stray-text", "not-assistant"],
                 id="text between messages and a user message are content"),
    pytest.param("Hello", {"content": "Hello"}, ["unclosed-message", "no-header"],
                 id="no header at all: the text is content"),
    pytest.param("<|channel|>final<|message|>a<|return|>after", {"content": "a"}, ["after-end"],
                 id="the turn ends at <|return|>: the text after it is reported"),
])
def test_recovering_reading(completion: str, expected: dict[str, Any], kinds: list[str]) -> None:
    """What the recovering reading makes of Harmony the template does not write (each kind of
    drift its diagnostic), the same streamed a character at a time."""
    message = parse_response(NAME, completion, prefix="<|start|>assistant")
    assert message == {"role": "assistant", **expected}
    assert [d["kind"] for d in message.diagnostics] == kinds
    assert stream(NAME, "<|start|>assistant", list(completion))[0] == message


@pytest.mark.parametrize("when", [datetime(1, 1, 1), datetime(999, 12, 31, 23, 59), datetime(1000, 1, 1),
                                  datetime(2026, 3, 7, 14, 5, 9), datetime(9999, 12, 31)])
def test_current_date_is_strftime_now(when: datetime) -> None:
    """The port writes L202's date itself for a plain datetime from year 1000 on: the same text
    as ``strftime_now("%Y-%m-%d")`` (and the oracle's) on either side of that year."""
    from chatformats._jinja import strftime_now

    text = chatformats.render(NAME, [_Q], now=when)
    assert f"Current date: {strftime_now(when, '%Y-%m-%d')}\n" in text
    assert_parity(NAME, [_Q], {}, now=when)


_HARMONY_PIECES = ["<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|return|>", "<|call|>",
                   "<|constrain|>", "assistant", "user", "analysis", "final", "commentary", " to=",
                   "functions.", "browser.search", "json", " ", "\n", "<|", "|>", "<|start", "{",
                   '{"a": 1}', '"s"', "x", "é"]


@budget.own(NAME)
@given(pieces=st.lists(st.one_of(st.sampled_from(_HARMONY_PIECES), st.text(max_size=3)), max_size=24),
       cuts=st.lists(st.integers(0, 200), max_size=6), strict=st.booleans())
def test_any_harmony_soup_reads_the_same_however_chunked(pieces: list[str], cuts: list[int],
                                                         strict: bool) -> None:
    """Any text made of Harmony's tokens and near misses: the recovering reading gives a message
    of the documented shape (never a ParseError), the exact one a message or a ParseError, and
    streaming in any chunks gives what one shot gives."""
    from .test_parse import assert_shape, outcome

    text = "".join(pieces)
    one = outcome(lambda: parse_response(NAME, text, prefix="<|start|>assistant", strict=strict))
    if not strict:
        assert not isinstance(one, tuple), one
        assert_shape(NAME, one)
    assert outcome(lambda: stream(NAME, "<|start|>assistant", chunked(text, cuts), strict=strict)[0]) == one
