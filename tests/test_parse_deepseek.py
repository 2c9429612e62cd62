"""The DeepSeek R1/V3 family's parsers (``parsing/_deepseek.py``): what is the family's own.

The laws every format's parser meets (round trip, streaming, totality, the shape of a call,
agreement with transformers) run on these formats in ``test_parse.py``.  Here:

- the model's turn: the reasoning the templates never write back, after the R1 ``<think>\\n``
  prefill or with the model's own ``<think>``, read by both readings and by transformers;
- the section the distill and V3 templates leave open (one call: no ``<｜tool▁calls▁end｜>``),
  and what cannot be read back (their third call follows the ``<｜end▁of▁sentence｜>`` the
  second writes);
- the drift laws: each recovery of docs/parsing.md's table for this family, injected into a
  rendered turn, gives the turn's own message with the diagnostic that names it, streamed as
  one-shot.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import ParseError, parse_response
from chatformats.parsing import family

from .test_parse import (DEEPSEEK, NONE_CONTENT_CALLS, _recovered, _transformers_parse, case,
                         chunked, examples, stream, template_layer, text_for)

FORMATS = [n for n in chatformats.formats() if chatformats.get_format(n).grammar in DEEPSEEK]
THINKING = [n for n in FORMATS if family(n) != "deepseek_v3"]
#: The formats whose generation prompt ends with the ``<think>\n`` prefill (February 2025).
PREFILLED = [n for n in THINKING
             if chatformats.apply_chat_template(n, [{"role": "user", "content": "q"}],
                                                add_generation_prompt=True).endswith("<think>\n")]
UNPREFILLED = [n for n in THINKING if n not in PREFILLED]

EOS = "<｜end▁of▁sentence｜>"
CALLS, CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL, SEP, CALL_END = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
P = [{"role": "user", "content": "Weather in Paris?"}]


def _kinds(message: Any) -> list[str]:
    return [d["kind"] for d in message.diagnostics]


def test_the_six_formats_have_parsers() -> None:
    assert sorted(FORMATS) == ["deepseek-r1", "deepseek-r1-0528-qwen3", "deepseek-r1-2025-01",
                               "deepseek-r1-distill", "deepseek-r1-distill-2025-01", "deepseek-v3"]
    assert sorted(PREFILLED) == ["deepseek-r1", "deepseek-r1-distill"]


def model_turn(data: st.DataObject, name: str, calls: int = 0) -> tuple[str, str, dict[str, Any]]:
    """(prefix, completion, message) of a turn as the model writes it: its reasoning first (after
    the prompt's ``<think>\\n`` prefill, or in a block of its own), then the rendered turn (the
    templates keep only what follows ``</think>``)."""
    prefix, completion, expected, _ = data.draw(case(name, calls=calls))
    reasoning = "r" + data.draw(text_for(name))
    if name in PREFILLED and prefix.endswith("<｜Assistant｜>"):
        prefix, completion = prefix + "<think>\n", reasoning + "\n</think>" + completion
    else:
        completion = "<think>\n" + reasoning + "\n</think>" + completion
    return prefix, completion, {**expected, "reasoning_content": reasoning.strip("\n")}


@pytest.mark.parametrize("name", THINKING)
@settings(max_examples=examples(60))
@given(data=st.data())
def test_model_turn_round_trip(name: str, data: st.DataObject) -> None:
    """The reasoning the model writes (after the prefill or in its own block) and the turn the
    template writes: both readings give the message (none recovered), streamed as one-shot, and
    transformers' parser with the format's response_template gives it too."""
    prefix, completion, expected = model_turn(data, name)
    assert parse_response(name, completion, prefix=prefix, strict=True) == expected
    recovered = parse_response(name, completion, prefix=prefix)
    assert recovered == expected and recovered.diagnostics == []
    cuts = data.draw(st.lists(st.integers(0, 10_000), max_size=6))
    assert stream(name, prefix, chunked(completion, cuts), strict=True)[0] == expected
    assert _transformers_parse(name, completion, prefix, None) == expected


@pytest.mark.parametrize("name", PREFILLED)
def test_prefill_worked_example(name: str) -> None:
    prompt = chatformats.apply_chat_template(name, P, add_generation_prompt=True)
    assert prompt.endswith("<｜Assistant｜><think>\n")
    completion = "The user wants the weather.\n</think>\n\nMild.<｜end▁of▁sentence｜>"
    message = parse_response(name, completion, prefix=prompt, strict=True)
    assert message == {"role": "assistant", "content": "\n\nMild.",
                       "reasoning_content": "The user wants the weather."}
    # The template keeps the text after </think> only: the stored turn has no reasoning.
    full = chatformats.apply_chat_template(name, P + [{"role": "assistant", "content": (
        "<think>\n" + message["reasoning_content"] + "\n</think>" + message["content"])}])
    assert full == prompt.removesuffix("<think>\n") + "\n\nMild.<｜end▁of▁sentence｜>"


@pytest.mark.parametrize("arguments", ["{}", "", 'a\n```\nb', "```json", " {\n  \"k\": 1\n} "])
@pytest.mark.parametrize("name", FORMATS)
def test_arguments_read_back_as_written(name: str, arguments: str) -> None:
    """The arguments are everything between the fences, whatever they hold (a fence of their
    own, newlines, nothing): the template writes them verbatim."""
    call = {"type": "function", "function": {"name": "f", "arguments": arguments}}
    prompt, completion, _ = _calls_turn(name, 1)
    completion = completion.replace('{"city": "c0"}', arguments, 1)
    message = parse_response(name, completion, prefix=prompt, strict=True)
    assert message["tool_calls"] == [{**call, "function": {**call["function"], "name": "get_weather"}}]
    assert parse_response(name, completion, prefix=prompt) == message


@pytest.mark.parametrize("body", ["function<｜tool▁sep｜>f\n```json\n```",  # the fences overlap
                                  "fn<｜tool▁sep｜>f\n```json\n{}\n```",  # not a function call
                                  "function<｜tool▁sep｜>f\n{}",  # no fence
                                  "function f\n```json\n{}\n```"])  # no separator
@pytest.mark.parametrize("name", FORMATS)
def test_a_call_not_of_the_form(name: str, body: str) -> None:
    """Not a call: a ParseError exactly, content with its tokens otherwise (``bad-call``)."""
    completion = CALLS + CALL + body + CALL_END + CALLS_END + EOS
    with pytest.raises(ParseError, match="malformed tool call"):
        parse_response(name, completion, prefix="<｜Assistant｜>", strict=True)
    message = parse_response(name, completion, prefix="<｜Assistant｜>")
    assert message == {"role": "assistant", "content": CALL + body + CALL_END}
    assert _kinds(message) == ["bad-call"]


# ------------------------------------------------------------------ the section's end


def _calls_turn(name: str, n: int) -> tuple[str, str, list[dict[str, Any]]]:
    calls = [{"type": "function", "function": {"name": "get_weather",
                                               "arguments": json.dumps({"city": f"c{k}"})}}
             for k in range(n)]
    m: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
    layer = template_layer if family(name) in NONE_CONTENT_CALLS else chatformats.apply_chat_template
    if layer is chatformats.apply_chat_template:
        m["content"] = ""
    prompt = layer(name, P, add_generation_prompt=True).removesuffix("<think>\n")
    full = layer(name, P + [m])
    assert full.startswith(prompt)
    return prompt, full[len(prompt):], calls


@pytest.mark.parametrize("name", [n for n in FORMATS if family(n) in NONE_CONTENT_CALLS])
def test_distill_and_v3_section_left_open(name: str) -> None:
    """One call: the template writes no ``<｜tool▁calls▁end｜>`` (nor an end of turn); the model
    ends with ``<｜end▁of▁sentence｜>`` or the stream ends.  Both are exact; three calls read
    back as the first two (the second writes the end of the turn)."""
    prompt, completion, calls = _calls_turn(name, 1)
    assert completion.endswith(CALL_END)
    for text in (completion, completion + EOS, completion + CALLS_END + EOS):
        for strict in (True, False):
            message = parse_response(name, text, prefix=prompt, strict=strict)
            assert message == {"role": "assistant", "content": "", "tool_calls": calls}
            assert message.diagnostics == []
    prompt, completion, calls = _calls_turn(name, 3)
    assert completion.count(CALLS_END + EOS) == 2
    assert parse_response(name, completion, prefix=prompt, strict=True)["tool_calls"] == calls[:2]


@pytest.mark.parametrize("name", [n for n in FORMATS if family(n) not in NONE_CONTENT_CALLS])
def test_section_left_open_where_the_template_closes_it(name: str) -> None:
    """R1 and R1-0528-Qwen3 always close the section: an open one at the end of the turn is a
    ParseError exactly and a recovered call (``unclosed-call``) otherwise."""
    prompt, completion, calls = _calls_turn(name, 2)
    assert completion.endswith(CALLS_END + EOS)
    drift = completion.replace(CALLS_END, "")
    with pytest.raises(ParseError):
        parse_response(name, drift, prefix=prompt, strict=True)
    message = parse_response(name, drift, prefix=prompt)
    assert message == parse_response(name, completion, prefix=prompt, strict=True)
    assert [d["kind"] for d in message.diagnostics] == ["unclosed-call"]


def test_v3_think_is_content() -> None:
    """DeepSeek-V3 has no think block: its template writes a ``<think>`` verbatim."""
    name = "deepseek-v3"
    m = {"role": "assistant", "content": "<think>\nhm\n</think>\n\nMild."}
    prompt = chatformats.apply_chat_template(name, P, add_generation_prompt=True)
    full = chatformats.apply_chat_template(name, P + [m])
    for strict in (True, False):
        message = parse_response(name, full[len(prompt):], prefix=prompt, strict=strict)
        assert message == m and message.diagnostics == []


@pytest.mark.parametrize("name", THINKING)
def test_think_block_left_open(name: str) -> None:
    """A think block open at the end of the turn: refused exactly; reasoning when recovering
    (vLLM: no end token, all reasoning), with an ``unclosed`` diagnostic; cut off before the end
    of the turn, it is reasoning in both."""
    completion = "<think>\nStill thinking" + EOS
    with pytest.raises(ParseError, match="think block not closed"):
        parse_response(name, completion, prefix="<｜Assistant｜>", strict=True)
    message = parse_response(name, completion, prefix="<｜Assistant｜>")
    assert message == {"role": "assistant", "content": "", "reasoning_content": "Still thinking"}
    assert [d["kind"] for d in message.diagnostics] == ["unclosed"]
    for strict in (True, False):
        assert parse_response(name, completion[:-len(EOS)], prefix="<｜Assistant｜>",
                              strict=strict)["reasoning_content"] == "Still thinking"


# ------------------------------------------------------------------ drift


@pytest.mark.parametrize("name", THINKING)
@settings(max_examples=examples(40))
@given(data=st.data(), space=st.sampled_from(["\n", "\n\n", " ", "\t\n"]))
def test_drift_space_before_think(name: str, data: st.DataObject, space: str) -> None:
    """vLLM's DeepSeek R1 reasoning parser finds ``<think>`` wherever it is
    (``basic_parsers.py`` ``extract_reasoning``: ``partition``): whitespace before it where the
    turn begins is dropped."""
    prefix, completion, expected = model_turn(data, name)
    assume(completion.startswith("<think>"))
    one = _recovered(name, prefix, space + completion, data)
    assert one == expected
    assert _kinds(one) == ["space-before-opener"]


@pytest.mark.parametrize("name", PREFILLED)
@settings(max_examples=examples(40))
@given(data=st.data(), opener=st.sampled_from(["<think>", "<think>\n", "\n<think>\n"]))
def test_drift_think_opened_twice(name: str, data: st.DataObject, opener: str) -> None:
    """vLLM strips a generated ``<think>`` (the model repeats the prefill): dropped, the
    reasoning goes on."""
    prefix, completion, expected = model_turn(data, name)
    assume(prefix.endswith("<think>\n"))
    one = _recovered(name, prefix, opener + completion, data)
    assert one == expected
    assert _kinds(one) == ["duplicate-opener"]


@pytest.mark.parametrize("name", THINKING)
@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_think_without_opener(name: str, data: st.DataObject) -> None:
    """vLLM (``basic_parsers.py``: "models that may not generate start token"): a model that
    writes its reasoning and ``</think>`` without ``<think>`` (the January templates have no
    prefill) gets that text as its reasoning."""
    prefix, completion, expected = model_turn(data, name)
    assume(completion.startswith("<think>\n"))
    one = _recovered(name, prefix, completion[len("<think>\n"):], data)
    assert one == expected
    assert _kinds(one) == ["missing-opener"]


@pytest.mark.parametrize("name", THINKING)
@settings(max_examples=examples(40))
@given(data=st.data())
def test_drift_calls_inside_unclosed_reasoning(name: str, data: st.DataObject) -> None:
    """As for DeepSeek-V3.1: the tool-call section opened inside unclosed reasoning ends the
    reasoning (vLLM's reasoning parser would keep the calls inside the reasoning, where its tool
    parser never looks)."""
    prefix, completion, expected = model_turn(data, name, calls=1)
    assume("tool_calls" in expected)
    close, section = completion.find("\n</think>"), completion.find(CALLS)
    assume(0 <= close < section)
    one = _recovered(name, prefix, completion[:close] + completion[section:], data)
    assert one == {**expected, "content": ""}
    assert _kinds(one) == ["reasoning-ended-by-call"]


_BREAKS = [(SEP, "<｜tool▁se｜>"), ("\n```json\n", "\n```js\n"), ("function" + SEP, "fn" + SEP),
           ("\n```" + CALL_END, CALL_END)]


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=examples(40))
@given(data=st.data(), broken=st.sampled_from(_BREAKS))
def test_drift_one_malformed_call(name: str, data: st.DataObject, broken: tuple[str, str]) -> None:
    """vLLM's ``DeepSeekV3ToolParser`` (``tool_call_regex``: ``TYPE<｜tool▁sep｜>NAME`` and the
    json fence) skips a call its regex does not match; SGLang's rule keeps the other calls: the
    good calls are kept, the bad one is content with its tokens (kept)."""
    prefix, completion, expected, _ = data.draw(case(name, calls=2))
    calls = expected.get("tool_calls", [])
    assume(len(calls) >= 2)
    k = data.draw(st.integers(0, len(calls) - 1))
    starts = [m.start() for m in re.finditer(re.escape(CALL), completion)]
    end = completion.index(CALL_END, starts[k]) + len(CALL_END)
    call = completion[starts[k]:end]
    old, new = broken
    assume(old in call)
    bad = call.replace(old, new, 1)
    one = _recovered(name, prefix, completion[:starts[k]] + bad + completion[end:], data)
    assert one["tool_calls"] == calls[:k] + calls[k + 1:]
    assert bad in one["content"]
    assert "bad-call" in _kinds(one)


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=examples(40))
@given(data=st.data(), text=st.sampled_from(["Done.", " and more", "\nLet me know."]),
       where=st.sampled_from(["between", "after"]))
def test_drift_text_between_or_after_calls(name: str, data: st.DataObject, text: str,
                                           where: str) -> None:
    """vLLM keeps only the text before the section: text between or after the calls is content
    here (kept), the calls the turn's own."""
    prefix, completion, expected, _ = data.draw(case(name, calls=2))
    calls = expected.get("tool_calls", [])
    assume(len(calls) >= 2)
    if where == "between":
        at = completion.index(CALL_END) + len(CALL_END)
    else:
        at = completion.rfind(CALLS_END)
        assume(at >= 0)
        at += len(CALLS_END)
    one = _recovered(name, prefix, completion[:at] + text + completion[at:], data)
    assert one["tool_calls"] == calls
    assert one["content"] == expected["content"] + text  # less the "\n" before the next call
    assert _kinds(one) == ["stray-text"]
