"""parse_response / ResponseParser: the laws of issue 17, for every format.

- Round trip: the completion part of a rendered assistant turn parses back to the turn's
  canonical form (``canonical`` below; ``docs/parsing.md`` states it per format).
- Streaming equals one-shot under any chunking (same message, same text per region, same
  region opens and closes), and a partial control token at a chunk edge is never emitted.
- Agreement with transformers' own ``parse_response`` under each format's
  ``response_template`` on rendered completions (where the template is exact).
- Totality: any string gives a message or a ParseError; the scan's work is linear.
- Regressions for the engine bugs of the issue, as round trips or as comparisons with
  transformers (never hand-written expected messages).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import ParseError, ResponseParser, parse_response
from chatformats.parsing import _check_grammars, _deepseek, canonical, family, grammar, reserved
from chatformats.parsing._canonical import facts_of as _facts_of

from . import budget
from . import strategies as s

NOW = datetime(2024, 7, 26, 12, 0, 0)

from .conftest import ci_profile

CI = ci_profile()

_PROFILE_EXAMPLES = settings.default.max_examples


def examples(ci: int) -> int:
    """Examples of a property: ``ci`` under the ``ci`` profile (sized for the suite's budget),
    a quarter under ``dev``, a fiftieth of the profile's count under ``deep`` (2,000)."""
    if _PROFILE_EXAMPLES > 2_000:
        return _PROFILE_EXAMPLES // 50
    if not CI:
        return max(10, budget.per_format(ci) // 4)
    return budget.per_format(ci)


# The formats that have a parser (formats sharing a grammar share its tables below).
FORMATS = [name for name in chatformats.formats() if chatformats.get_format(name).grammar]

#: The DeepSeek R1/V3 family's grammars (the modules built by parsing/_deepseek.py), and those
#: whose templates write tool calls only for a turn whose content is None (the canonical fact
#: ``calls`` ``"if-content-none"``: so only at the template layer, the pipeline drops None values;
#: they close the section only after a second call).
def facts_of(name: str) -> dict[str, Any]:
    """Format ``name``'s canonical facts (``parsing/_canonical.py``)."""
    return _facts_of(chatformats.get_format(name), grammar(name))


DEEPSEEK = {family(n) for n in FORMATS if getattr(grammar(n), "build", None) is _deepseek.build}
NONE_CONTENT_CALLS = {family(n) for n in FORMATS if facts_of(n)["calls"] == "if-content-none"}

# Every control string a format's parser or template gives a meaning to, by grammar (the
# markers of its exact table and its RESERVED strings, ``parsing.reserved``): texts of the
# representable domain contain none of them (``canonical`` says what else the domain excludes).
CONTROL = {family(name): reserved(name) for name in FORMATS}

# Pieces that come close to the control strings without being them (held back, then released).
NEAR = ["<", ">", "<think", "think>", "</think", "<|", "|>", "<|im_end", "<tool_call",
        "</tool_call", "<|eot_id", "<|end", "<|begin|", "<|tool_call:", "[{", '{"name": ',
        '[{"name": ', "<parameter", "</parameter", "<function", "\n", "\n\n", " ", "\t",
        "a", "Z", "é", "中文", "🙂", "{", "}", "[", "]", '"', "\\", "\u00a0", "\u2028"]


def _text_for(grammar_name: str, max_size: int = 8) -> st.SearchStrategy[str]:
    return st.lists(st.one_of(st.sampled_from(NEAR), st.text(max_size=4)), max_size=max_size).map(
        "".join).filter(lambda t: not any(c in t for c in CONTROL[grammar_name]))


# Strings a schema cast turns into something else (or refuses to).
CASTABLE = ["5", "3.0", "-2", " 7 ", "1e400", "nan", "true", "False", "1", "null", "None",
            "[1, 2]", '{"a": 1}', "[", "0x10", "12345678901234567890"]

_TEXTS = {(name, size): _text_for(name, size) for name in CONTROL for size in (3, 4, 8)}


def text_for(name: str, max_size: int = 8) -> st.SearchStrategy[str]:
    return _TEXTS[family(name), max_size]


# The tools of ``strategies.TOOL_SCHEMAS`` often, so that arguments get cast by their schemas.
SAFE_NAME = st.one_of(st.sampled_from(["search", "get_weather", "query", "limit", "city"]),
                      st.builds(lambda a, b: a + b, st.sampled_from("abcxyz_AZ"),
                                st.text("abcxyz_AZ019.-", max_size=10)))
CALL_ID = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=10)


def _json_args(grammar_name: str) -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.one_of(st.none(), st.booleans(), st.integers(-(2**60), 2**60),
                     st.floats(allow_nan=False, allow_infinity=False), _TEXTS[grammar_name, 4],
                     st.sampled_from(CASTABLE))
    value = st.recursive(leaf, lambda c: st.one_of(st.lists(c, max_size=3),
                                                   st.dictionaries(_TEXTS[grammar_name, 3], c, max_size=3)),
                         max_leaves=6)
    return st.dictionaries(SAFE_NAME, value, max_size=3)


_JSON_ARGS = {name: _json_args(name) for name in CONTROL}


def json_args(name: str) -> st.SearchStrategy[dict[str, Any]]:
    return _JSON_ARGS[family(name)]


#: The grammars whose templates take only string arguments (they concatenate them: the specs'
#: ``call_arguments``).
STRING_ONLY = {family(n) for n in FORMATS if chatformats.get_format(n).call_arguments == "string"}
#: The grammars whose template refuses a second tool call in a turn (the grammar's ``SINGLE_CALL``).
SINGLE_CALL = tuple(sorted({family(n) for n in FORMATS if grammar(n).SINGLE_CALL}))

def _call_body(name: str) -> str:
    """The call body of format ``name``'s grammar description (``grammars.DESCRIPTIONS``), or
    ``""`` for a grammar module."""
    description = getattr(grammar(name), "description", None)
    return description["calls"]["body"] if description else ""


#: The grammars whose templates write each argument's value on its own (XML, GLM: the canonical
#: fact ``arguments`` is not ``"whole"``), so a call's arguments are a mapping.
PER_VALUE = {family(n) for n in FORMATS if facts_of(n)["arguments"] != "whole"}
#: Where each format's template reads an assistant turn's reasoning from: its spec's field when
#: the pipeline does not fill it (Solar's ``reasoning``), else ``reasoning_content``.
REASONING_FIELD = {n: f if (f := chatformats.get_format(n).reasoning_field) not in
                   ("reasoning_content", "thinking") else "reasoning_content" for n in FORMATS}
#: The formats whose template writes a tool-call turn's reasoning, else its content, as one
#: message (gpt-oss's analysis: the canonical fact ``with_calls`` ``"to-reasoning"``).
ONE_OF_BOTH = {n for n in FORMATS if facts_of(n)["with_calls"] == "to-reasoning"}


#: Llama 3.1's built-in tools (its spec's ``tests.parse_variables`` passes them as
#: ``builtin_tools``), and the arguments its template can write back readably: string values
#: without the ``", `` that separates two arguments (docs/parsing.md, the representable domain).
BUILTIN = tuple(dict.fromkeys(tool for n in FORMATS if family(n) == "llama3_1" for value in
                              chatformats.get_format(n).tests.parse_variables["builtin_tools"]
                              for tool in value))
builtin_args = st.dictionaries(
    SAFE_NAME, _TEXTS["llama3_1", 4].filter(lambda t: '", ' not in t), max_size=3)


@st.composite
def assistant(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """An assistant message in format ``name``'s representable domain."""
    text = text_for(name)
    m: dict[str, Any] = {"role": "assistant", "content": draw(text)}
    if draw(st.booleans()):
        m[REASONING_FIELD[name]] = draw(text)
    if family(name) == "cogito":
        assume(not m["content"].strip().startswith("<think"))
    if family(name) == "llama3_2_vision":
        assume(not m["content"].startswith('{"name": "'))
    if family(name) == "llama3_1":  # content|trim
        assume(not m["content"].strip().startswith('{"name": "'))
    n_calls = draw(st.integers(0, 1 if family(name) in SINGLE_CALL else 3))
    if n_calls:
        calls = []
        for k in range(n_calls):
            args: Any = draw(json_args(name))
            if family(name) == "llama3_1" and draw(st.booleans()):
                # a built-in call when builtin_tools (VARIABLES) names it: string values only
                calls.append({"type": "function", "function": {
                    "name": draw(st.sampled_from(BUILTIN)), "arguments": draw(builtin_args)}})
                continue
            if _call_body(name) == "xml":
                args = {key: v for key, v in args.items() if key}
            elif family(name) in STRING_ONLY or (
                    family(name) not in SINGLE_CALL and family(name) not in PER_VALUE
                    and draw(st.booleans())):
                args = json.dumps(args, ensure_ascii=draw(st.booleans()))
            call: dict[str, Any] = {"type": "function",
                                    "function": {"name": draw(SAFE_NAME), "arguments": args}}
            # Solar's template concatenates the id (it fails on a call without one)
            if family(name) == "solar_open" or draw(st.booleans()):
                call["id"] = draw(CALL_ID)
            calls.append(call)
        m["tool_calls"] = calls
    _harmony_analysis(name, m)
    return m


def _harmony_analysis(name: str, m: dict[str, Any]) -> None:
    """gpt-oss's template refuses a tool-call turn with both content and reasoning (it renders
    one of them as the analysis message): ``m``'s content goes, in place."""
    if name in ONE_OF_BOTH and m.get("tool_calls") and m["content"] \
            and (m.get("reasoning_content") or m.get("reasoning")):
        m["content"] = ""


#: The grammars whose convention for arguments is a string where the template was given one
#: (the grammar's ``STRING_ARGUMENTS``; Qwen2.5 writes arguments through tojson whether a mapping
#: or a string: a string reads back as that string).
STRING_ARGUMENTS = {family(n) for n in FORMATS if grammar(n).STRING_ARGUMENTS}


_SIMPLE_PREFIX = st.builds(
    lambda sys, turns, last: sys + turns + last,
    st.one_of(st.just([]), st.builds(lambda t: [{"role": "system", "content": t}], s.short_texts)),
    st.lists(st.sampled_from([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call0", "type": "function", "function": {"name": "search", "arguments": {"query": "a"}}}]},
        {"role": "tool", "tool_call_id": "call0", "content": "result"},
    ]), max_size=4),
    st.one_of(st.builds(lambda t: [{"role": "user", "content": t}], s.texts),
              st.just([{"role": "tool", "tool_call_id": "call0", "content": "{}"}]), st.just([])),
)


@st.composite
def prefix_conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A conversation with at least one message: mostly small ones, some realistic ones."""
    p = draw(st.one_of(_SIMPLE_PREFIX, _SIMPLE_PREFIX, s.realistic_conversation()))
    if not p:
        p = [{"role": "user", "content": draw(s.texts)}]
    return p


def parse_variables(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """The variables a turn of format ``name`` is rendered with: each of its spec's
    ``tests.parse_variables`` left out or one of its values."""
    spec = chatformats.get_format(name).tests.parse_variables
    return st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in spec.items()})


#: By format name, and by grammar name where the formats of the grammar agree (all do).
VARIABLES = {name: parse_variables(name) for name in FORMATS}
for _g in {family(n) for n in FORMATS}:
    _members = [n for n in FORMATS if family(n) == _g]
    if len({repr(chatformats.get_format(n).tests.parse_variables) for n in _members}) == 1:
        VARIABLES[_g] = VARIABLES[_members[0]]


@st.composite
def case(draw: st.DrawFn, name: str, reasoning: bool = False,
         calls: int = 0) -> tuple[str, str, dict[str, Any], Any]:
    """(prefix, completion, canonical message, tools) of one rendered assistant turn (with
    ``reasoning``: a turn whose reasoning is not empty; with ``calls``: at least that many
    tool calls)."""
    p = draw(prefix_conversation())
    m = draw(assistant(name))
    if reasoning:
        m["reasoning_content"] = m["reasoning"] = "r" + draw(text_for(name))
    while len(m.get("tool_calls") or []) < calls:
        args: Any = draw(json_args(name))
        if _call_body(name) == "xml":
            args = {key: v for key, v in args.items() if key}
        elif family(name) in STRING_ONLY:  # the template takes only string arguments
            args = json.dumps(args)
        m.setdefault("tool_calls", []).append(
            {"type": "function", "function": {"name": draw(SAFE_NAME), "arguments": args}})
    _harmony_analysis(name, m)
    variables = draw(VARIABLES[name])
    tools = draw(st.one_of(st.none(), s.tools_realistic))
    layer: Callable[..., str] = chatformats.apply_chat_template
    if family(name) in NONE_CONTENT_CALLS and m.get("tool_calls") and (calls or draw(st.booleans())):
        none_content_calls(m)
        layer = template_layer
    try:
        prompt = layer(name, p, tools=tools, add_generation_prompt=True, now=NOW, **variables)
        full = layer(name, p + [m], tools=tools, now=NOW, **variables)
        bare = (layer(name, p, tools=tools, now=NOW, **variables)
                if family(name) in DEEPSEEK and not full.startswith(prompt) else "")
    except chatformats.ChatFormatError:
        assume(False)
        raise
    if full.startswith(prompt):
        prefix, completion = prompt, full[len(prompt):]
    elif family(name) in DEEPSEEK:
        split = deepseek_split(name, prompt, bare, full)
        assume(split is not None)
        assert split is not None
        prefix, completion = split
    else:
        # docs/parsing.md, "When the conversation's rendering does not start with the prompt".
        assume(family(name) in ("llama3_2_vision", "qwen3_tool_agent"))
        anchor = grammar(name).ANCHOR
        k = full.rfind(anchor) + len(anchor)
        prefix, completion = full[:k], full[k:]
    return prefix, completion, canonical(name, m, p, variables), tools


def template_layer(name: str, messages: Any, tools: Any = None, add_generation_prompt: bool = False,
                   now: Any = None, **variables: Any) -> str:
    """The template layer called as the pipeline is (the DeepSeek templates read no tools), with
    the model's bos token."""
    return chatformats.render(name, messages, add_generation_prompt=add_generation_prompt,
                              bos_token="<｜begin▁of▁sentence｜>", now=now, **variables)


def none_content_calls(m: dict[str, Any]) -> None:
    """``m`` as the R1 distill and V3 templates write its tool calls, in place: content None
    (rendered at the template layer), at most two calls (the second writes
    ``<｜end▁of▁sentence｜>``, so a third follows the end of the turn)."""
    m["content"] = None
    del m["tool_calls"][2:]


def deepseek_split(name: str, prompt: str, bare: str, full: str) -> tuple[str, str] | None:
    """(prefix, completion) of the last turn of a DeepSeek R1/V3 rendering ``full`` whose
    prompt it does not start with (docs/parsing.md, "When the conversation's rendering does
    not start with the prompt"): the prompt less its ``<think>\n`` prefill (the templates never
    write it into a stored turn), or the conversation's rendering without a generation prompt
    (R1-0528-Qwen3 after an assistant turn, whose next turn has no header), when it ends with
    one of the anchors the turn is read after; None when neither is (the template wrote the
    turn without a header the parser can find, such as R1's second tool-call turn)."""
    anchors = grammar(name).ANCHOR
    for cut in (prompt.removesuffix("<think>\n"), bare):
        if cut and full.startswith(cut) and cut.endswith(anchors):
            return cut, full[len(cut):]
    return None


def chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    out, last = [], 0
    for c in points + [len(text)]:
        out.append(text[last:c])
        last = c
    return out


def stream(name: str, prefix: str, chunks: list[str], tools: Any = None,
           strict: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    parser = ResponseParser(name, prefix=prefix, tools=tools, strict=strict)
    events = list(parser.initial_events)
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    message, final = parser.finalize()
    return message, events + final


def region_texts(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The events with the chunks of each region joined: invariant under chunking."""
    out: list[Any] = []
    for e in events:
        if e["type"] == "region_chunk":
            if out and out[-1][0] == "text" and out[-1][1] == e["field"]:
                out[-1] = ("text", e["field"], out[-1][2] + e["text"])
            else:
                out.append(("text", e["field"], e["text"]))
        else:
            out.append((e["type"], e["field"], json.dumps(e.get("value"), sort_keys=True)))
    return out


def outcome(fn: Callable[[], Any]) -> Any:
    """The message, or the ParseError's text (which must read the same however the input came)."""
    try:
        return fn()
    except ParseError as exc:
        return ("ParseError", str(exc))


# Where the recovering reading reads more than the exact one on text the template may write:
# content holding one of these (the grammar's RECOVER_OPENERS: a JSON call inside Llama content,
# Cogito's compact list opener) is read as what it looks like (docs/parsing.md, "The recovering
# reading").
RECOVER_OPENERS = {family(n): grammar(n).RECOVER_OPENERS for n in FORMATS}


def readings_agree(name: str, completion: str) -> bool:
    """Whether ``completion`` (template output) is one both readings must read alike."""
    return not any(o in completion for o in RECOVER_OPENERS.get(family(name), ()))


def test_grammars_stream_exactly() -> None:
    _check_grammars()


def test_exports() -> None:
    assert chatformats.parse_response is parse_response
    assert issubclass(ParseError, chatformats.ChatFormatError)
    for name in FORMATS:
        assert isinstance(chatformats.get_format(name).response_template, dict)


def test_docs_name_the_rules_followed_for_every_format() -> None:
    """docs/parsing.md's index of the recovering reading names every registered format, once,
    each with a server's file at a commit (or says none is recorded)."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "parsing.md").read_text(encoding="utf-8")
    index = doc.split("<!-- recovery-index -->")[1].split("<!-- /recovery-index -->")[0]
    named: list[str] = []
    for row in index.strip().splitlines()[2:]:
        formats, followed = row.strip("|").split(" | ", 1)
        named += re.findall(r"`([^`]+)`", formats)
        assert re.search(r"@ `[0-9a-f]{7}`|no commit recorded|PR #\d+", followed), row
    assert sorted(named) == sorted(chatformats.formats())


# ------------------------------------------------------------------ round trip


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=examples(120))
@given(data=st.data())
def test_round_trip(name: str, data: st.DataObject) -> None:
    """Both readings invert the template (the law of the two readings: on exact template
    output they agree, and the recovering one reports nothing)."""
    prefix, completion, expected, _ = data.draw(case(name))
    assert parse_response(name, completion, prefix=prefix, strict=True) == expected
    cuts = data.draw(st.lists(st.integers(0, 10_000), max_size=6))
    assert stream(name, prefix, chunked(completion, cuts), strict=True)[0] == expected
    if readings_agree(name, completion):
        recovered = parse_response(name, completion, prefix=prefix)
        assert recovered == expected and recovered.diagnostics == []
        assert stream(name, prefix, chunked(completion, cuts))[0] == expected


@pytest.mark.parametrize("name", FORMATS)
def test_round_trip_one_character_at_a_time(name: str) -> None:
    p = [{"role": "user", "content": "hi"}]
    m = {"role": "assistant", "content": "Hello <|<think", "reasoning_content": "\nhm\n",
         "reasoning": "\nhm\n",
         "tool_calls": [{"id": "a1b2c3", "type": "function",
                         "function": {"name": "search", "arguments": {"query": "x", "limit": 2}}}]}
    _string_arguments(name, m)
    _harmony_analysis(name, m)
    prompt = chatformats.apply_chat_template(name, p, add_generation_prompt=True, now=NOW)
    full = chatformats.apply_chat_template(name, p + [m], now=NOW)
    anchor = grammar(name).ANCHOR
    if family(name) in DEEPSEEK:  # its tool calls, its prefill: as _render_turn renders them
        prefix, completion = _render_turn(name, m)
    elif full.startswith(prompt):
        prefix, completion = prompt, full[len(prompt):]
    else:
        k = full.rfind(anchor) + len(anchor)
        prefix, completion = full[:k], full[k:]
    one_shot = parse_response(name, completion, prefix=prefix)
    assert one_shot == canonical(name, m, p, {})
    message, events = stream(name, prefix, list(completion))
    assert message == one_shot
    assert region_texts(events) == region_texts(stream(name, prefix, [completion])[1])


# ------------------------------------------------------------------ streaming == one-shot


# JSON and markup fragments of tool calls, whole and broken (the drift a model shows).
FRAGMENTS = ['{"name": "f", "arguments": {"a": 1}}', '{"name": "f"}', '{"name":"g","parameters":{}}',
             '"parameters": ', '"arguments": ', '"arguments": "{}"', '"arguments": 5', '; ', ", ",
             '[{"name": "f", "arguments": []}]', '{"name": 1}', '[{"name":"f"}', "[]", "null",
             "<|python_tag|>", "<function=f>", "<parameter=a>", "</parameter>", "</function>",
             "\n<function=", '{"a": NaN}', '"\\ud800"', "1e999", '{"name": "f", "id": "x"}']


# A format's own call fragments, whole and broken.
_DEEPSEEK_PIECES = ("function<｜tool▁sep｜>f\n```json\n", "\n```", "```json", "function", "\n```json\n{}\n```",
                    "<｜tool▁call▁begin｜>function<｜tool▁sep｜>")
PIECES = {g: _DEEPSEEK_PIECES for g in DEEPSEEK}


@st.composite
def any_completion(draw: st.DrawFn, name: str) -> str:
    """Any text, built from the format's control strings, tool-call fragments, near misses and
    unicode."""
    pieces = st.one_of(st.sampled_from(CONTROL[family(name)] + tuple(NEAR) + tuple(FRAGMENTS)
                                       + PIECES.get(family(name), ())),
                       st.text(max_size=5))
    return "".join(draw(st.lists(pieces, max_size=14)))




def assert_shape(name: str, message: dict[str, Any]) -> None:
    """The shape guarantee (docs/parsing.md, "The shape of a tool call")."""
    assert set(message) <= {"role", "content", "reasoning_content", "tool_calls"}
    assert message["role"] == "assistant" and isinstance(message["content"], str)
    assert isinstance(message.get("reasoning_content", ""), str)
    for call in message.get("tool_calls", []):
        assert isinstance(call, dict) and call["type"] == "function"
        assert set(call) <= {"type", "function", "id"}
        fn = call["function"]
        assert isinstance(fn, dict) and isinstance(fn["name"], str)
        args = fn["arguments"]
        assert isinstance(args, dict) or (family(name) in STRING_ARGUMENTS and isinstance(args, str))


#: Where a completion is read from, by grammar (the grammar's ``PREFIXES``).
PREFIXES = {family(n): list(grammar(n).PREFIXES) for n in FORMATS}


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=examples(120))
@given(data=st.data())
def test_total_and_streaming_equals_one_shot(name: str, data: st.DataObject) -> None:
    text = data.draw(st.one_of(any_completion(name), st.builds(
        lambda c, k: c[0][1][:k], case(name), st.integers(0, 400))))
    prefix = data.draw(st.sampled_from(PREFIXES[family(name)]))
    strict = data.draw(st.booleans())
    one = outcome(lambda: parse_response(name, text, prefix=prefix, strict=strict))
    cuts = data.draw(st.lists(st.integers(0, 10_000), max_size=8))

    def streamed() -> Any:
        message, events = stream(name, prefix, chunked(text, cuts), strict=strict)
        whole = stream(name, prefix, [text], strict=strict)[1]
        assert region_texts(events) == region_texts(whole)
        return message

    assert outcome(streamed) == one
    if not isinstance(one, tuple):
        assert_shape(name, one)


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=examples(120))
@given(data=st.data())
def test_shape_is_guaranteed(name: str, data: st.DataObject) -> None:
    """Every tool call of either reading has the documented shape, streamed and one-shot, on
    any string; the recovering reading never refuses a completion, and streams as one-shot."""
    text = data.draw(any_completion(name))
    prefix = data.draw(st.sampled_from(PREFIXES[family(name)]))
    cuts = data.draw(st.lists(st.integers(0, 10_000), max_size=8))
    for strict in (False, True):
        one = outcome(lambda: parse_response(name, text, prefix=prefix, strict=strict))
        streamed = outcome(lambda: stream(name, prefix, chunked(text, cuts), strict=strict)[0])
        assert streamed == one
        if isinstance(one, tuple):
            assert strict, one  # the recovering reading gives a message for every completion
            continue
        assert_shape(name, one)
        if strict:
            assert one.diagnostics == []
        else:
            # Nothing lost: no character of the completion disappears unless it is markup.
            assert len(one["content"]) + len(one.get("reasoning_content", "")) <= len(text)


@pytest.mark.parametrize("name", FORMATS)
def test_partial_control_token_is_held_back(name: str) -> None:
    """A chunk ending inside a control token emits none of it; the next chunk decides."""
    for prefix in PREFIXES[family(name)]:
        probe = ResponseParser(name, prefix=prefix)
        try:
            probe.feed("x")
        except ParseError:
            continue  # no text is allowed where this prefix leaves the parser
        markers = list(probe._scanner.state.table)
        assert markers or probe._scanner.state.name == "end"
        for token in markers:
            for k in range(1, len(token)):
                parser = ResponseParser(name, prefix=prefix)
                parser.feed("x")
                events = parser.feed(token[:k])
                assert [e for e in events if e["type"] == "region_chunk"] == []
                rest = parser.feed(token[k:])
                kept = probe._scanner.state.table[token][1]  # the marker opens the next text
                assert kept or all(token[:k] not in e.get("text", "") for e in rest)


# ------------------------------------------------------------------ agreement with transformers


def _transformers_parse(name: str, completion: str, prefix: str, tools: Any) -> Any:
    from .transformers_oracle import tokenizer

    tok = tokenizer(name)
    return tok.parse_response(completion, schema=chatformats.get_format(name).response_template,
                              prefix=prefix, tools=tools)


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=examples(50))
@given(data=st.data())
def test_agrees_with_transformers(name: str, data: st.DataObject) -> None:
    prefix, completion, expected, tools = data.draw(case(name))
    if family(name) == "qwen3_coder":
        # LIMITS: with tools the arguments are converted by vLLM's rules, transformers' by its
        # own (tests/test_qwen3_coder_parse.py checks the conversion)
        tools = None
    ours = parse_response(name, completion, prefix=prefix, tools=tools)
    theirs = _transformers_parse(name, completion, prefix, tools)
    if family(name) == "cogito":
        # LIMITS: the cogito response_template cannot keep tool-call ids.
        for call in ours.get("tool_calls", []):
            call.pop("id", None)
    if family(name) in {"deepseek_v3_1"} | DEEPSEEK and not any(a in prefix for a in grammar(name).ANCHOR):
        # LIMITS: a prefix with no turn yet (no anchor) is read whole by transformers.
        assume(False)
    if family(name) == "llama3_1" and completion.startswith("<|python_tag|>"):
        # LIMITS: a built-in call has no field in the llama-3.1 response_template.
        assume(False)
    assert ours == theirs


# ------------------------------------------------------------------ linear time


#: One format per grammar: with no prefix and no tools a parser's work depends on its grammar
#: only (the format's name appears in error messages alone), so a format that shares another's
#: grammar adds nothing to the linear-time check.
ONE_PER_GRAMMAR = list({family(name): name for name in reversed(FORMATS)}.values())[::-1]


@pytest.mark.parametrize("name", ONE_PER_GRAMMAR)
@pytest.mark.parametrize("unit", ["<", "<|", "<thi", "\n", "a<|end", '[{"name": ', "<tool_call",
                                  '{"name"', '{"name": [', " \n", "<function=", "<tool_call>{"])
def test_work_is_linear(name: str, unit: str) -> None:
    """The scan searches each character a bounded number of times, whatever the chunking."""
    for n in (100, 1000, 10_000):
        text = unit * n
        for chunks, strict in (([text], False), (list(text), False), ([text], True), (list(text), True)):
            parser = ResponseParser(name, prefix="", strict=strict)
            try:
                for chunk in chunks:
                    parser.feed(chunk)
                parser.close()
            except ParseError:
                pass
            assert parser.work <= 4 * len(text) + 64 * len(chunks) + 100


# ------------------------------------------------------------------ engine regressions


def _string_arguments(name: str, m: dict[str, Any]) -> None:
    """DeepSeek-V3.1's template takes only string arguments: ``m``'s become their JSON, in
    place (so that the canonical form of ``m`` is taken of what was rendered)."""
    if family(name) in STRING_ONLY:
        for call in m.get("tool_calls") or []:
            fn = call["function"]
            if not isinstance(fn["arguments"], str):
                fn["arguments"] = json.dumps(fn["arguments"])


def _render_turn(name: str, m: dict[str, Any], **variables: Any) -> tuple[str, str]:
    _string_arguments(name, m)
    _harmony_analysis(name, m)
    p = [{"role": "user", "content": "What is 2+2?"}]
    layer: Callable[..., str] = chatformats.apply_chat_template
    if family(name) in NONE_CONTENT_CALLS and m.get("tool_calls"):
        none_content_calls(m)  # in place: the canonical form is taken of what was rendered
        layer = template_layer
    prompt = layer(name, p, add_generation_prompt=True, now=NOW, **variables)
    full = layer(name, p + [m], now=NOW, **variables)
    if family(name) in DEEPSEEK and not full.startswith(prompt):
        split = deepseek_split(name, prompt, "", full)
        assert split is not None
        return split
    assert full.startswith(prompt)
    return prompt, full[len(prompt):]


def test_think_block_closed_by_the_template() -> None:
    """vllm#53284/#17349: with the think block closed in the prompt, the answer is content."""
    name = "minicpm-v-4.6-thinking"
    m = {"role": "assistant", "content": "4"}
    prompt, completion = _render_turn(name, m, enable_thinking=False)
    assert prompt.endswith("<think>\n\n</think>\n\n")
    assert parse_response(name, completion, prefix=prompt) == canonical(name, m, [], {})
    assert parse_response(name, completion, prefix=prompt) == _transformers_parse(name, completion, prompt, None)


@pytest.mark.parametrize("name", ["qwen3-tool-agent", "minicpm-v-4.6-thinking", "glm-4.5"])
@pytest.mark.parametrize("before,after", [("", ""), ("", "\n"), ("\n", ""), ("\n\n", "\n\n\n"), ("", "\n\n")])
def test_newlines_around_close_think(name: str, before: str, after: str) -> None:
    """llama.cpp#20260: a model writing ``</think>`` with fewer or more newlines than the
    template gives the same message as the template's own rendering."""
    m = {"role": "assistant", "content": "four", "reasoning_content": "add them"}
    prompt, completion = _render_turn(name, m)
    expected = parse_response(name, completion, prefix=prompt)
    assert expected == canonical(name, m, [{"role": "user", "content": "q"}], {})
    variant = re.sub(r"\n*</think>\n*", before + "</think>" + after, completion)
    assert parse_response(name, variant, prefix=prompt) == expected


def test_cogito_thinking_prefill() -> None:
    """Cogito's ``<think>\\n`` prefill: the model's text up to ``</think>`` is reasoning."""
    name = "cogito"
    p = [{"role": "user", "content": "q"}]
    prompt = chatformats.apply_chat_template(name, p, add_generation_prompt=True, enable_thinking=True)
    assert prompt.endswith("<think>\n")
    m = {"role": "assistant", "content": "four"}
    answer = chatformats.apply_chat_template(name, p + [m])
    answer = answer[answer.rfind(grammar(name).ANCHOR) + len(grammar(name).ANCHOR):]
    completion = "add them\n</think>\n\n" + answer
    ours = parse_response(name, completion, prefix=prompt)
    assert ours == {**canonical(name, m, p, {}), "reasoning_content": "add them"}
    assert ours == _transformers_parse(name, completion, prompt, None)


def test_solar_reasoning_and_content_in_separate_blocks() -> None:
    """llama.cpp PR #18511: Solar writes reasoning and content as two assistant blocks."""
    name = "solar-open"
    m = {"role": "assistant", "content": "four", "reasoning": "add them"}
    prompt, completion = _render_turn(name, m)
    assert completion.count("<|begin|>assistant") == 1
    assert parse_response(name, completion, prefix=prompt) == canonical(name, m, [], {})
    assert parse_response(name, completion, prefix=prompt) == _transformers_parse(name, completion, prompt, None)


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("content", ["", "Let me check."])
@pytest.mark.parametrize("n_calls", [1, 2, 3])
def test_tool_calls_streamed(name: str, content: str, n_calls: int) -> None:
    """vllm#19056: streamed tool calls (with or without content, one or several) give the
    one-shot message, one character at a time."""
    if family(name) in SINGLE_CALL and n_calls > 1:
        return
    m = {"role": "assistant", "content": content, "tool_calls": [
        {"id": f"call{k}", "type": "function",
         "function": {"name": "search", "arguments": {"query": f"q{k}", "limit": k}}}
        for k in range(n_calls)]}
    prompt, completion = _render_turn(name, m) if family(name) != "llama3_2_vision" else _llama_turn(m, name)
    expected = canonical(name, m, [], {})
    assert parse_response(name, completion, prefix=prompt) == expected
    assert stream(name, prompt, list(completion))[0] == expected


def _llama_turn(m: dict[str, Any], name: str = "llama-3.2-vision-variant") -> tuple[str, str]:
    full = chatformats.apply_chat_template(name, [{"role": "user", "content": "q"}, m], now=NOW)
    anchor = grammar(name).ANCHOR
    k = full.rfind(anchor) + len(anchor)
    return full[:k], full[k:]


@pytest.mark.parametrize("name", FORMATS)
def test_invalid_tool_call_json_reported_as_transformers_reports_it(name: str) -> None:
    """Malformed tool-call JSON: a ParseError whose text is transformers' ValueError's."""
    m = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "search", "arguments": {"query": "x"}}}]}
    prompt, completion = _render_turn(name, m) if family(name) != "llama3_2_vision" else _llama_turn(m, name)
    if _call_body(name) == "xml":  # XML: break the markup instead
        broken = completion.replace("</parameter>", "</paramete>", 1)
    elif family(name) == "glm4_5":
        broken = completion.replace("</arg_value>", "</arg_valu>", 1)
    elif family(name) in STRING_ONLY:  # string arguments: break the markup instead
        broken = completion.replace("<｜tool▁sep｜>", "<｜tool▁se｜>", 1)
    else:
        broken = completion.replace('"x"', '"x', 1)
    assert broken != completion
    with pytest.raises(ParseError) as ours:
        parse_response(name, broken, prefix=prompt, strict=True)
    if family(name) in PER_VALUE | STRING_ONLY:
        return  # transformers' xml-inline (and text) regions skip what their patterns do not match
    with pytest.raises(ValueError) as theirs:
        _transformers_parse(name, broken, prompt, None)
    assert str(ours.value) == f"{grammar(name).NAME}: {theirs.value}"


@pytest.mark.parametrize("name", FORMATS)
def test_cut_off_completion(name: str) -> None:
    """A completion cut anywhere (mid control token included) is a message or a ParseError,
    the same streamed; a cut inside a control token leaves its text as text."""
    m = {"role": "assistant", "content": "four", "reasoning_content": "add", "reasoning": "add",
         "tool_calls": [{"id": "c1", "type": "function",
                         "function": {"name": "search", "arguments": {"query": "x"}}}]}
    prompt, completion = _render_turn(name, m) if family(name) != "llama3_2_vision" else _llama_turn(m, name)
    for k in range(len(completion) + 1):
        cut = completion[:k]
        for strict in (False, True):
            one = outcome(lambda: parse_response(name, cut, prefix=prompt, strict=strict))
            assert outcome(lambda: stream(name, prompt, list(cut), strict=strict)[0]) == one


def test_batch() -> None:
    name = "qwen3-tool-agent"
    texts = ["a<|im_end|>", "<think>\nr\n</think>\n\nb<|im_end|>"]
    assert parse_response(name, texts, prefix="") == [parse_response(name, t, prefix="") for t in texts]
    assert parse_response(name, texts, prefix=["", ""]) == parse_response(name, texts, prefix="")
    with pytest.raises(TypeError):
        parse_response(name, texts, prefix=[""])
    with pytest.raises(TypeError):
        parse_response(name, "x", prefix=None)
    with pytest.raises(chatformats.UnknownFormatError):
        parse_response("nope", "x", prefix="")


def test_casts_like_transformers() -> None:
    """With tools, string arguments are cast by the schema exactly as transformers casts."""
    name = "minicpm-v-4.6-thinking"
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "i": {"type": "integer"}, "n": {"type": "number"}, "b": {"type": "boolean"},
        "o": {"type": "object"}, "a": {"type": "array"}, "u": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "z": {"type": "integer", "nullable": True}, "s": {"type": "string"}}}}}]
    args = {"i": 3, "n": 1.5, "b": True, "o": {"k": [1]}, "a": [1, "x"], "u": "seven", "z": None, "s": "7"}
    m = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": args}}]}
    prompt, completion = _render_turn(name, m)
    ours = parse_response(name, completion, prefix=prompt, tools=tools)
    assert ours == _transformers_parse(name, completion, prompt, tools)
    assert ours["tool_calls"][0]["function"]["arguments"] == args


# ------------------------------------------------------------------ docs


def test_parsing_needs_no_optional_dependency() -> None:
    """Parsing loads neither jinja2, transformers nor dataclasses (restricted runtimes)."""
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parent.parent / "src")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import chatformats\n"
        "for name in chatformats.formats():\n"
        "    if not chatformats.get_format(name).grammar:\n"
        "        continue\n"
        "    try:\n"
        "        chatformats.parse_response(name, '<think>x</think>y<|im_end|>', prefix='')\n"
        "    except chatformats.ParseError:\n"
        "        pass\n"
        "    chatformats.get_format(name).response_template\n"
        "bad = {'jinja2', 'transformers', 'dataclasses', 'regex'} & set(sys.modules)\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", code, src], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_parse_benchmark_smoke() -> None:
    """``benchmarks/parse.py`` runs, and both parsers agree on every workload it times."""
    from benchmarks import parse as bench

    for name in FORMATS:
        rows = bench.compare(name, rounds=1, budget=0.0, long_chars=300)
        assert [r["workload"] for r in rows] == ["short", "tools", "long", "long (16-char chunks)"]
        assert bench.scaling(name, rounds=1, budget=0.0, n=100)["ratio"] > 0


# ------------------------------------------------------------------ drift injected into rendered turns
#
# Each property renders a turn with the port, mutates the completion as a drifting model does,
# and checks the recovered message against the turn it came from (its exact reading).  The
# cases are modelled on the public suites (named in each docstring); none is copied.


def _drift_case(data: st.DataObject, name: str, reasoning: bool = False,
                calls: int = 0) -> tuple[str, str, dict[str, Any]]:
    prefix, completion, expected, _ = data.draw(case(name, reasoning, calls))
    assume(readings_agree(name, completion))
    return prefix, completion, expected


def _recovered(name: str, prefix: str, text: str, data: st.DataObject) -> Any:
    one = parse_response(name, text, prefix=prefix)
    cuts = data.draw(st.lists(st.integers(0, 10_000), max_size=5))
    assert stream(name, prefix, chunked(text, cuts))[0] == one
    assert_shape(name, one)
    return one





#: The formats whose calls are JSON in ``<tool_call>`` tags (a description's ``json`` bodies).
TAGGED_JSON = [n for n in FORMATS if _call_body(n) in ("json", "json_string")]
LLAMA = [n for n in FORMATS if family(n) in SINGLE_CALL]
#: The formats with a think block and JSON calls in tags (Qwen3's, whose drift vLLM's Qwen3
#: reasoning parser recovers from).
THINK_FORMATS = [n for n in TAGGED_JSON if grammar(n).description["think"]]
#: The formats whose calls are Qwen3-Coder's XML (a description's ``xml`` body: MiniCPM-V 4.6
#: and the Qwen3-Coder texts).
XML_CALLS = [n for n in FORMATS if _call_body(n) == "xml"]


@pytest.mark.parametrize("name", THINK_FORMATS + ["glm-4.5"])
@settings(max_examples=examples(40))
@given(data=st.data(), space=st.sampled_from(["\n", "\n\n", " ", "\t\n"]))
def test_drift_space_before_think(name: str, data: st.DataObject, space: str) -> None:
    """vLLM tests/reasoning (qwen3 and glm4_moe reasoning parser cases with text around
    <think>), llama.cpp test-chat.cpp's leading-newline reasoning cases: whitespace before
    <think> (GLM-4.5's template writes one newline there) is dropped."""
    prefix, completion, expected = _drift_case(data, name)
    assume(completion.lstrip("\n").startswith("<think>"))
    one = _recovered(name, prefix, space + completion, data)
    assert one == expected
    assert [d["kind"] for d in one.diagnostics] == ["space-before-opener"]


@pytest.mark.parametrize("name", ["cogito", "minicpm-v-4.6-thinking"])
@pytest.mark.parametrize("space", ["\n", " \n ", "\n\n"])
def test_drift_space_before_think_no_prefill(name: str, space: str) -> None:
    """Cogito's turns (the template never writes reasoning back) and MiniCPM's without the
    prefill (a prompt that does not open the block): whitespace before <think> is dropped, the
    block is reasoning, as vLLM's Qwen3 reasoning parser (``partition("<think>")``) reads it."""
    end = {"cogito": "<|eot_id|>", "minicpm-v-4.6-thinking": "<|im_end|>"}[name]
    completion = space + "<think>\nI reason.\n</think>\n\nAnswer." + end
    one = _recovered(name, "", completion, _NO_CUTS)
    assert one == {"role": "assistant", "content": "Answer.", "reasoning_content": "I reason."}
    assert [d["kind"] for d in one.diagnostics] == ["space-before-opener"]


class _NoCuts:
    """A stand-in for Hypothesis' ``data`` that draws no chunk cuts (a fixed case)."""

    def draw(self, strategy: Any) -> Any:
        return []


_NO_CUTS: Any = _NoCuts()


@pytest.mark.parametrize("name", ["minicpm-v-4.6-thinking", "cogito", "qwen3-thinking-2507"])
@settings(max_examples=examples(40))
@given(data=st.data(), opener=st.sampled_from(["<think>", "<think>\n", "\n<think>\n"]))
def test_drift_think_opened_twice(name: str, data: st.DataObject, opener: str) -> None:
    """vLLM tests/reasoning (the "<think> in the output after a prompt that opened it" cases of
    the Qwen3/DeepSeek-R1 parsers, which strip it): a literal <think> after the prefill is
    dropped, not kept inside the reasoning."""
    p = data.draw(prefix_conversation())
    variables = {"enable_thinking": True}
    reasoning = data.draw(text_for(name))
    answer = data.draw(assistant(name))
    answer.pop("reasoning_content", None)
    try:
        prompt = chatformats.apply_chat_template(name, p, add_generation_prompt=True, now=NOW, **variables)
        full = chatformats.apply_chat_template(name, p + [answer], now=NOW, **variables)
    except chatformats.ChatFormatError:
        assume(False)
        raise
    assume(prompt.endswith("<think>\n"))
    anchor = grammar(name).ANCHOR
    turn = full[full.rfind(anchor) + len(anchor):]
    if turn.startswith("<think>"):  # minicpm writes its own (empty) block: keep the answer
        turn = turn[turn.index("</think>") + len("</think>"):]
    assume(readings_agree(name, turn))
    exact = reasoning + "\n</think>\n\n" + turn
    expected = parse_response(name, exact, prefix=prompt, strict=True)
    one = _recovered(name, prompt, opener + exact, data)
    assert one == expected
    assert "duplicate-opener" in [d["kind"] for d in one.diagnostics]


@pytest.mark.parametrize("name", THINK_FORMATS + ["minicpm-v-4.6-thinking", "glm-4.5"])
@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_tool_call_inside_unclosed_reasoning(name: str, data: st.DataObject) -> None:
    """Modelled on vLLM tests/reasoning/test_qwen3_tool_call_recovery.py
    (test_truncated_reasoning_still_recovers_embedded_tool_call) and the Qwen3ReasoningParser's
    implicit end of reasoning at <tool_call>: a model that opens its tool calls without closing
    the think block gets its reasoning and its calls, content empty."""
    prefix, completion, expected = _drift_case(data, name, reasoning=True, calls=1)
    assume("tool_calls" in expected and "reasoning_content" in expected)
    close, call = completion.find("</think>"), completion.find("<tool_call>")
    assume(0 <= close < call)
    one = _recovered(name, prefix, completion[:close] + completion[call:], data)
    assert one == {**expected, "content": ""}
    assert "reasoning-ended-by-call" in [d["kind"] for d in one.diagnostics]


@pytest.mark.parametrize("name", XML_CALLS)
@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_missing_parameter_close(name: str, data: st.DataObject) -> None:
    """vLLM tests/tool_use (Qwen3-Coder XML parser cases without </parameter>): a value ends at
    the next <parameter=, or at </function>, instead of swallowing the next parameter."""
    prefix, completion, expected = _drift_case(data, name, calls=1)
    n = completion.count("</parameter>\n")
    assume(n > 0)
    k = data.draw(st.integers(0, n - 1))
    at = -1
    for _ in range(k + 1):
        at = completion.index("</parameter>\n", at + 1)
    mutated = completion[:at] + completion[at + len("</parameter>\n"):]
    one = _recovered(name, prefix, mutated, data)
    assert one == expected
    assert "missing-close" in [d["kind"] for d in one.diagnostics]


@pytest.mark.parametrize("name", XML_CALLS)
@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_function_without_tool_call_wrapper(name: str, data: st.DataObject) -> None:
    """vLLM tests/tool_use (Qwen3CoderToolParser's fallback to <function=...> without
    <tool_call>): the bare calls are read as calls."""
    prefix, completion, expected = _drift_case(data, name, calls=1)
    assume("tool_calls" in expected)
    mutated = completion.replace("<tool_call>", "").replace("</tool_call>", "")
    one = _recovered(name, prefix, mutated, data)
    assert one == expected
    assert "unwrapped-call" in [d["kind"] for d in one.diagnostics]


_CALL_KEY = re.compile(r'(<tool_call>\n\{"name": "[^"]*", )"arguments": ')


@pytest.mark.parametrize("name", TAGGED_JSON)
@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_parameters_key(name: str, data: st.DataObject) -> None:
    """SGLang's function-call detector tests (parse_base_json reads "parameters" or
    "arguments"), vLLM tests/tool_use (llama3_json with "parameters"): a call whose arguments
    are under "parameters" has them as its arguments, never a call without arguments."""
    prefix, completion, expected = _drift_case(data, name, calls=1)
    assume("tool_calls" in expected)
    mutated = _CALL_KEY.sub(r'\1"parameters": ', completion)
    assert mutated != completion
    one = _recovered(name, prefix, mutated, data)
    assert one == expected
    assert "recovered-call" in [d["kind"] for d in one.diagnostics]


@pytest.mark.parametrize("name", TAGGED_JSON)
@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_one_malformed_call(name: str, data: st.DataObject) -> None:
    """vLLM tests/tool_use (hermes parser with invalid JSON), llama.cpp test-chat.cpp's partial
    and malformed tool calls: one call that is not JSON is content (its text kept), the other
    calls are kept."""
    prefix, completion, expected = _drift_case(data, name, calls=2)
    calls = expected.get("tool_calls", [])
    assume(len(calls) >= 2)
    k = data.draw(st.integers(0, len(calls) - 1))
    starts = [m.start() for m in re.finditer(r'<tool_call>\n\{"name": "', completion)]
    at = starts[k] + len("<tool_call>\n{")
    mutated = completion[:at] + completion[at + 1:]  # '{name": ...': not JSON
    one = _recovered(name, prefix, mutated, data)
    assert one["tool_calls"] == calls[:k] + calls[k + 1:]
    end = mutated.index("</tool_call>", at) + len("</tool_call>")
    assert mutated[starts[k]:end] in one["content"]  # nothing lost
    assert "bad-json" in [d["kind"] for d in one.diagnostics]


@pytest.mark.parametrize("name", TAGGED_JSON + XML_CALLS + ["glm-4.5"])
@settings(max_examples=examples(40))
@given(data=st.data(), text=st.sampled_from([" Anything else?", "\nDone.", "Let me know."]))
def test_drift_text_after_the_calls(name: str, data: st.DataObject, text: str) -> None:
    """SGLang's function-call detector tests and vLLM tests/tool_use (text after the last
    ``</tool_call>``: the calls are kept, where the servers drop the text): the calls are the
    turn's own, the text is content after the turn's own content (nothing lost), reported."""
    prefix, completion, expected = _drift_case(data, name, calls=1)
    assume("tool_calls" in expected)
    at = completion.rfind("</tool_call>") + len("</tool_call>")
    one = _recovered(name, prefix, completion[:at] + text + completion[at:], data)
    assert one["tool_calls"] == expected["tool_calls"]
    assert one["content"].startswith(expected["content"])
    assert one["content"][len(expected["content"]):].strip() == text.strip()
    assert "stray-text" in [d["kind"] for d in one.diagnostics]


@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_cogito_parameters_key(data: st.DataObject) -> None:
    """SGLang's parse_base_json (``"parameters"`` or ``"arguments"``) on Cogito's list of calls:
    a call whose arguments are under ``"parameters"`` has them as its arguments."""
    name = "cogito"
    prefix, completion, expected = _drift_case(data, name, calls=1)
    assume("tool_calls" in expected and '[{"name": "' in completion)
    mutated = re.sub(r'(\{"name": "[^"]*", )"arguments": ', r'\1"parameters": ', completion)
    assume(mutated != completion)
    one = _recovered(name, prefix, mutated, data)
    assert one == expected
    assert "recovered-call" in [d["kind"] for d in one.diagnostics]


def _llama_call_case(data: st.DataObject, name: str) -> tuple[str, str, dict[str, Any]]:
    prefix, completion, expected, _ = data.draw(case(name, calls=1))
    assume("tool_calls" in expected and completion.startswith('{"name": "'))  # a JSON call
    return prefix, completion, expected


_END_OF_TURN = re.compile(r"<\|eo[tm]_id\|>")


@pytest.mark.parametrize("name", LLAMA)
@settings(max_examples=examples(40))
@given(data=st.data(), before=st.sampled_from(["", "Here is the result: ", "Sure.\n\n"]),
       after=st.sampled_from(["", " Would you like anything else?", "\nDone."]),
       opener=st.sampled_from(["", "<|python_tag|>"]), n=st.integers(1, 3),
       sep=st.sampled_from(["; ", ";", " ; ", "\n", " ", " Also: ", "\nThen, "]),
       compact=st.booleans())
def test_drift_llama_json_calls(name: str, data: st.DataObject, before: str, after: str,
                                opener: str, n: int, sep: str, compact: bool) -> None:
    """Modelled on vLLM tests/entrypoints/openai/tool_parsers/test_llama3_json_tool_parser.py
    (test_extract_tool_calls_simple, test_extract_tool_calls_multiple_json,
    test_extract_tool_calls_multiple_json_with_whitespace,
    test_extract_tool_calls_multiple_json_with_surrounding_text) and llama.cpp
    tests/test-chat.cpp's Llama 3.1 <|python_tag|> cases: the calls are calls, the text around
    and between them is content (where vLLM, which decodes a call at any ``{``, drops it), in
    any mix."""
    prefix, completion, expected = _llama_call_case(data, name)
    m = _END_OF_TURN.search(completion)
    assert m is not None
    call_json, tail = completion[:m.start()], completion[m.start():]
    if compact:
        call_json = json.dumps(json.loads(call_json), ensure_ascii=False, separators=(",", ":"))
    assume(before.strip() or opener or compact or n > 1 or after.strip())
    mutated = before + opener + sep.join([call_json] * n) + after + tail
    one = _recovered(name, prefix, mutated, data)
    assert one["tool_calls"] == expected["tool_calls"] * n
    between = sep if sep.strip(" ;\n") else ""  # text between calls, not a separator
    assert one["content"] == before + between * (n - 1) + after
    assert one.diagnostics


@pytest.mark.parametrize("name", LLAMA)
def test_llama_calls_with_text_between(name: str) -> None:
    """vLLM's Llama3JsonToolParser decodes a call at every ``{`` of the output, so a call after
    text that follows another call is a call (it was content here); the text between is
    content; a call that does not decode ends the calls (the rest is content); each
    diagnostic's offset is in the completion, ``<|python_tag|>`` counted."""
    prefix = "<|start_header_id|>assistant<|end_header_id|>\n\n"
    a = '{"name": "searchTool", "parameters": {"query": "test1"}}'
    b = '{"name":"getOpenIncidentsTool","parameters":{}}'
    calls = [{"type": "function", "function": {"name": "searchTool", "arguments": {"query": "test1"}}},
             {"type": "function", "function": {"name": "getOpenIncidentsTool", "arguments": {}}}]
    for tag in ("", "<|python_tag|>"):
        completion = tag + a + " and then " + b + " Done?<|eot_id|>"
        one = parse_response(name, completion, prefix=prefix)
        assert one == {"role": "assistant", "content": " and then  Done?", "tool_calls": calls}
        assert stream(name, prefix, list(completion))[0] == one
        kinds = [(d["kind"], d["offset"]) for d in one.diagnostics]
        at = completion.index(b)
        assert ("stray-text", completion.index(" and then ")) in kinds
        assert ("separated-calls", at) in kinds and ("recovered-call", len(tag)) in kinds
        broken = completion.replace(b, b[:-1])  # the second call's JSON cut: content
        one = parse_response(name, broken, prefix=prefix)
        assert one["tool_calls"] == calls[:1]
        assert one["content"] == " and then " + b[:-1] + " Done?"
        assert "bad-json" in [d["kind"] for d in one.diagnostics]


_PYTHON_CODE = st.one_of(
    st.sampled_from(["import sys\nprint(sys.version)", "print(2 + 2)", 'x = ("a", "b")\nx',
                     "brave_search.call(query='single quotes')", " \nprint(1)\n"]),
    text_for("llama-3.1"))


@settings(max_examples=examples(40))
@given(data=st.data(), code=_PYTHON_CODE, end=st.sampled_from(["<|eom_id|>", "<|eot_id|>"]),
       before=st.sampled_from(["", "Let me run it.\n"]))
def test_drift_llama_python_code(data: st.DataObject, code: str, end: str, before: str) -> None:
    """Modelled on Meta's reference decoder (llama-models ``models/llama3/chat_format.py``,
    ``decode_assistant_message_from_content``: after ``<|python_tag|>``, text that is neither a
    JSON nor a built-in call is code_interpreter's code) and llama.cpp tests/test-chat.cpp's
    Llama 3.1 code-interpreter case: the code is the call's ``code``, verbatim; the exact reading
    refuses it (the template writes ``code_interpreter.call(code="...")`` instead)."""
    name = "llama-3.1"
    prompt = chatformats.apply_chat_template(name, [{"role": "user", "content": "Python version?"}],
                                             add_generation_prompt=True,
                                             builtin_tools=["code_interpreter"])
    assume(code.strip() and not code.lstrip().startswith("{"))
    assume(grammar(name).meta_builtin_call(code) is None)  # Meta's built-in call: the next test
    try:
        grammar(name).builtin_call(code, "")
        assume(False)  # a built-in call, which the round trip covers
    except ParseError:
        pass
    completion = before + "<|python_tag|>" + code + end
    one = _recovered(name, prompt, completion, data)
    assert one == {"role": "assistant", "content": before, "tool_calls": [{"type": "function",
                   "function": {"name": "code_interpreter", "arguments": {"code": code}}}]}
    assert [d["kind"] for d in one.diagnostics] == ["text-before-call"] * bool(before) + ["python-code"]
    if not before:
        with pytest.raises(ParseError):
            parse_response(name, completion, prefix=prompt, strict=True)


@settings(max_examples=examples(40))
@given(data=st.data(), tool=st.sampled_from(["brave_search", "wolfram_alpha"]),
       query=text_for("llama-3.1").filter(lambda t: '"' not in t),
       before=st.sampled_from(["", "\n", "Searching: "]),
       after=st.sampled_from(["\n", " ", " Let me look.", "\n\nOne moment."]))
def test_drift_llama_builtin_call_with_text(data: st.DataObject, tool: str, query: str,
                                            before: str, after: str) -> None:
    """Modelled on Meta's reference decoder (llama-models ``models/llama3/tool_utils.py``,
    ``maybe_extract_builtin_tool_call``: the first ``NAME.call(query="...")`` anywhere after
    ``<|python_tag|>``) and llama.cpp tests/test-chat.cpp's Llama 3.1 built-in tool cases: a
    built-in call the model surrounds with text (or a newline) is the turn's own call, the text
    is content."""
    name = "llama-3.1"
    m = {"role": "assistant", "tool_calls": [{"type": "function", "function": {
        "name": tool, "arguments": {"query": query}}}]}
    prompt, completion = _render_turn(name, m, builtin_tools=[tool])
    expected = parse_response(name, completion, prefix=prompt, strict=True)
    assert expected["tool_calls"][0]["function"]["arguments"] == {"query": query}
    tag, end = "<|python_tag|>", "<|eom_id|>"
    assert completion.startswith(tag) and completion.endswith(end)
    mutated = tag + before + completion[len(tag):-len(end)] + after + end
    one = _recovered(name, prompt, mutated, data)
    kept = (before if before.strip() else "") + (after if after.strip() else "")
    assert one == {**expected, "content": kept}
    assert "recovered-call" in [d["kind"] for d in one.diagnostics]


def test_llama_builtin_call_values_the_template_does_not_escape() -> None:
    """docs/parsing.md: a built-in call's values are written unescaped, so a value holding the
    separator ``", `` reads back as two arguments; quotes and ``)`` inside a value read back."""
    name = "llama-3.1"
    p = [{"role": "user", "content": "q"}]

    def turn(arguments: dict[str, str]) -> Any:
        m = {"role": "assistant", "tool_calls": [{"type": "function", "function": {
            "name": "brave_search", "arguments": arguments}}]}
        prompt, completion = _render_turn(name, m, builtin_tools=["brave_search"])
        assert completion.startswith("<|python_tag|>brave_search.call(")
        return parse_response(name, completion, prefix=prompt, strict=True)["tool_calls"][0]["function"]

    fine = {"query": 'say "hi") now"', "n": "", "x": 'a="b'}
    assert turn(fine)["arguments"] == fine
    assert turn({"query": 'a", b="c'})["arguments"] == {"query": "a", "b": "c"}


# ------------------------------------------------------------------ bounded errors


@pytest.mark.parametrize("name", FORMATS)
def test_error_quotes_a_bounded_excerpt(name: str) -> None:
    """A 10 MB bad region gives a short ParseError, one-shot and streamed alike."""
    m = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "search", "arguments": {"query": "x"}}}]}
    prompt, completion = _render_turn(name, m) if family(name) != "llama3_2_vision" else _llama_turn(m, name)
    big = "y" * 10_000_000
    broken = completion.replace('"x"', '"x' + big, 1).replace("</parameter>", big + "</paramete>", 1)
    broken = broken.replace("</arg_value>", big + "</arg_valu>", 1)  # GLM-4.5's markup
    broken = broken.replace("<｜tool▁sep｜>", big + "<｜tool▁se｜>", 1)  # DeepSeek-V3.1's
    assert len(broken) > 10_000_000
    one = outcome(lambda: parse_response(name, broken, prefix=prompt, strict=True))
    assert isinstance(one, tuple) and len(one[1]) < 1000
    chunks = [broken[i:i + 1_000_000] for i in range(0, len(broken), 1_000_000)]
    assert outcome(lambda: stream(name, prompt, chunks, strict=True)[0]) == one
    recovered = parse_response(name, broken, prefix=prompt)
    assert_shape(name, recovered)
    # The bad call is content (or, for MiniCPM's XML, a value that runs to </function>).
    assert len(json.dumps(recovered)) >= 10_000_000


@pytest.mark.parametrize("name", THINK_FORMATS + ["minicpm-v-4.6-thinking"])
@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_tool_call_inside_closed_reasoning(name: str, data: st.DataObject) -> None:
    """Modelled on vLLM tests/reasoning/test_qwen3_tool_call_recovery.py
    (test_embedded_tool_call_is_promoted_from_reasoning_into_content,
    test_existing_content_text_is_preserved_after_tool_call_promotion): the calls written
    before </think> leave the reasoning, and the text after </think> is the content."""
    prefix, completion, expected = _drift_case(data, name, reasoning=True, calls=1)
    assume("tool_calls" in expected and "reasoning_content" in expected)
    close, call = completion.find("</think>"), completion.find("<tool_call>")
    end = completion.rfind("</tool_call>") + len("</tool_call>")
    assume(0 <= close < call < end)
    # reasoning, the calls, then "</think>" and the answer (the template's own text after it)
    think_end = close + len("</think>")
    answer = completion[think_end:call]
    if family(name) == "qwen3_tool_agent" and expected["content"]:
        answer = answer[:-1]  # the "\n" the template writes between the content and a call
    mutated = (completion[:close] + completion[call:end] + "</think>" + answer
               + completion[end:])
    one = _recovered(name, prefix, mutated, data)
    assert one == expected
    assert [d["kind"] for d in one.diagnostics] == ["reasoning-ended-by-call", "stray-closer"]


# ------------------------------------------------------------------ Kimi K2 drift


@settings(max_examples=examples(40))
@given(data=st.data(), space=st.sampled_from([" ", "\n", " \n "]),
       singular=st.booleans())
def test_drift_kimi_spacing_and_section_variant(data: st.DataObject, space: str,
                                                singular: bool) -> None:
    """vLLM tests/tool_use (KimiK2ToolParser: whitespace around the id and the arguments, the
    singular ``<|tool_call_section_begin|>`` variant): the calls are the turn's own."""
    name = "kimi-k2"
    prefix, completion, expected = _drift_case(data, name, calls=1)
    mutated = (completion.replace("<|tool_call_begin|>", "<|tool_call_begin|>" + space)
               .replace("<|tool_call_argument_begin|>",
                        space + "<|tool_call_argument_begin|>" + space)
               .replace("<|tool_call_end|>", space + "<|tool_call_end|>"))
    if singular:
        mutated = (mutated.replace("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
                   .replace("<|tool_calls_section_end|>", "<|tool_call_section_end|>"))
    one = _recovered(name, prefix, mutated, data)
    assert one == expected and one.diagnostics == []


@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_kimi_one_malformed_call(data: st.DataObject) -> None:
    """vLLM tests/tool_use (Kimi K2 with invalid arguments), SGLang's rule for a bad call: one
    call whose arguments are not JSON is content (its text kept), the other calls are kept."""
    name = "kimi-k2"
    prefix, completion, expected = _drift_case(data, name, calls=2)
    calls = expected["tool_calls"]
    k = data.draw(st.integers(0, len(calls) - 1))
    starts = [m.end() for m in re.finditer(re.escape("<|tool_call_argument_begin|>"), completion)]
    at = starts[k]
    mutated = completion[:at] + "{" + completion[at:]  # '{{...' or '{"...': not JSON
    one = _recovered(name, prefix, mutated, data)
    assert one["tool_calls"] == calls[:k] + calls[k + 1:]
    begin = mutated.rindex("<|tool_call_begin|>", 0, at)
    end = mutated.index("<|tool_call_end|>", at) + len("<|tool_call_end|>")
    assert mutated[begin:end] in one["content"]
    assert "bad-json" in [d["kind"] for d in one.diagnostics]


# ------------------------------------------------------------------ GLM-4.5 drift


@settings(max_examples=examples(40))
@given(data=st.data(), space=st.sampled_from([" ", "\n\n", "\t"]), unclosed=st.booleans())
def test_drift_glm_spacing_and_unclosed_call(data: st.DataObject, space: str,
                                             unclosed: bool) -> None:
    """vLLM tests/tool_use (Glm4MoeModelToolParser: whitespace between </arg_key> and
    <arg_value>, around keys and values, stripped), and a last call without </tool_call> (it
    ends at the end of the turn): the calls are the turn's own."""
    name = "glm-4.5"
    prefix, completion, expected = _drift_case(data, name, calls=1)
    calls = expected["tool_calls"]
    assume(all(k == k.strip() and v == v.strip()
               for c in calls for k, v in c["function"]["arguments"].items()))
    mutated = completion.replace("</arg_key>\n<arg_value>", "</arg_key>" + space + "<arg_value>")
    kinds = {"recovered-call"} if mutated != completion else set()
    if unclosed:  # the model ends the turn with the next role's token
        assert mutated.endswith("\n</tool_call>")
        mutated = mutated[:-len("</tool_call>")] + "<|user|>"
        kinds.add("unclosed-call")
    one = _recovered(name, prefix, mutated, data)
    assert one == expected
    assert {d["kind"] for d in one.diagnostics} == kinds


@pytest.mark.parametrize("name", [n for n in FORMATS if family(n) in SINGLE_CALL])
def test_whitespace_before_a_call_that_does_not_read_is_kept(name: str) -> None:
    """A Hypothesis find: whitespace before ``{"name"`` is the gap before a call, dropped when
    the call reads; when it does not, the whitespace is content with the call's text (the
    content ``'\\n{"name": '`` rendered and read back lost its newline)."""
    prefix = "<|start_header_id|>assistant<|end_header_id|>\n\n"
    for strict in (False, True):
        message = parse_response(name, '\n{"name": <|eot_id|>\n', prefix=prefix, strict=strict)
        assert message["content"] == '\n{"name": ', (strict, message)
    message = parse_response(name, '\n\n{"name": "f", "parameters": {}}<|eot_id|>', prefix=prefix)
    assert message["content"] == "" and message["tool_calls"][0]["function"]["name"] == "f"
