"""Parsing on token ids (``parse_response(name, ids, prefix=..., tokenizer=...)``), for every
format with a parser, on ``tests/bpe.py``'s byte-level BPE tokenizers:

1. **On the ids of a rendered turn it is the text parser**: the completion of a rendered
   assistant turn (``tests/test_parse.py``'s cases), encoded as a tokenizer encodes it, parses
   to what its text parses to, in both readings.
2. **A control string encoded as text is content**: a turn whose content or reasoning holds a
   control string of the format's grammar (planted where the shared texts allow), its completion
   encoded as a sampler that wrote that string with ordinary tokens would (the planted
   occurrences as text, ``Encoder.as_text``; the template's own control strings as control
   tokens), parses to the turn itself in the format's canonical form, the planted string in it
   (the text parser, which cannot tell the two apart, reads the string as the token where the
   grammar gives it a meaning: ``test_the_docs_example_and_a_batch``).
3. Batches, a tokenizer given as transformers' tokenizer, and the errors.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

import chatformats
from chatformats import parse_response
from chatformats._spans import Span
from chatformats.ids import encoder, planted
from chatformats.parsing import family, grammar

from . import bpe
from .test_parse import CONTROL, FORMATS, NOW, VARIABLES, assistant, canonical, case, examples
from .test_parse import prefix_conversation, readings_agree


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=examples(60))
@given(data=st.data())
def test_ids_of_a_rendered_turn_parse_as_its_text(name: str, data: st.DataObject) -> None:
    prefix, completion, expected, tools = data.draw(case(name))
    tok = bpe.backend(name)
    ids = tok.encode(completion, add_special_tokens=False).ids
    assume(tok.decode(ids, skip_special_tokens=False) == completion)
    for strict in (True, False):
        on_text = parse_response(name, completion, prefix=prefix, tools=tools, strict=strict)
        on_ids = parse_response(name, ids, prefix=prefix, tools=tools, strict=strict, tokenizer=tok)
        assert on_ids == on_text and on_ids.diagnostics == on_text.diagnostics
    assert on_ids == expected


class _Shifted:
    """The spans of ``rendering`` from offset ``base`` on, as offsets from ``base``."""

    def __init__(self, rendering: Any, base: int) -> None:
        self.spans = [Span(max(0, s.start - base), s.end - base, s.source)
                      for s in rendering.spans if s.end > base]


def sampled_ids(tok: Any, rendering: Any, base: int) -> tuple[list[int], int]:
    """The ids of ``rendering.text[base:]`` as a sampler that spelled every control string the
    input put there with ordinary tokens would give them, and how many it spelled."""
    enc = encoder(tok)
    completion = rendering.text[base:]
    ids, offsets = enc.encode(completion)
    ids, offsets = list(ids), list(offsets)
    spelled = planted(_Shifted(rendering, base), ids, offsets, enc.added)
    for index in reversed(spelled):
        start, end = offsets[index]
        ids[index:index + 1] = enc.as_text(completion[start:end])
    return ids, len(spelled)


def _plant(draw: st.DrawFn, text: str, control: tuple[str, ...]) -> str:
    at = draw(st.integers(0, len(text)))
    return text[:at] + draw(st.sampled_from(control)) + text[at:]


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=examples(60))
@given(data=st.data())
def test_a_control_string_encoded_as_text_is_content(name: str, data: st.DataObject) -> None:
    tok = bpe.backend(name)
    added = {token.content for token in tok.get_added_tokens_decoder().values()}
    control = tuple(c for c in CONTROL[family(name)] if c in added)
    assume(control)
    p = data.draw(prefix_conversation())
    m = data.draw(assistant(name))
    field = data.draw(st.sampled_from(["content", "reasoning_content"]), label="field")
    if field == "reasoning_content" and "reasoning_content" not in m:
        field = "content"
    m[field] = _plant(data.draw, m[field], control)
    if "reasoning" in m or field == "reasoning_content":  # Solar reads "reasoning"
        m["reasoning"] = m.get("reasoning_content", m.get("reasoning", ""))
    variables = data.draw(VARIABLES[family(name)])
    try:
        prompt = chatformats.apply_chat_template(name, p, add_generation_prompt=True, now=NOW,
                                                 **variables)
        rendering = chatformats.apply_chat_template_spans(name, p + [m], now=NOW, **variables)
    except chatformats.ChatFormatError:
        assume(False)
        raise
    full = rendering.text
    if full.startswith(prompt):
        base = len(prompt)
    else:  # docs/parsing.md, "When the conversation's rendering does not start with the prompt"
        assume(family(name) in ("llama3_2_vision", "qwen3_tool_agent"))
        anchor = grammar(name).ANCHOR
        base = full.rfind(anchor) + len(anchor)
        prompt = full[:base]
    ids, kept = sampled_ids(tok, rendering, base)
    # the template wrote the planted string as the input's text (it did not split or trim there)
    assume(kept)
    expected = canonical(name, m, p, variables)
    note(f"completion={full[base:]!r}\nids={ids}")
    on_ids = parse_response(name, ids, prefix=prompt, tokenizer=tok, strict=True)
    assert on_ids == expected
    if readings_agree(name, full[base:]):
        recovered = parse_response(name, ids, prefix=prompt, tokenizer=tok)
        assert recovered == expected and recovered.diagnostics == []


@pytest.mark.parametrize("name", ["qwen3-instruct-2507", "deepseek-v3", "llama-3.2"])
@settings(max_examples=examples(60))
@given(data=st.data())
def test_byte_level_decoding_is_run_by_run(name: str, data: st.DataObject) -> None:
    """What ``Encoder.decodes_runs`` claims for a byte-level decoder: any ids (control tokens
    anywhere, a character's bytes split by one) decode to the join of their runs' decodings."""
    from chatformats.parsing._ids import decode_runs

    tok = bpe.backend(name)
    enc = encoder(tok)
    assert enc.decodes_runs
    size = tok.get_vocab_size(with_added_tokens=True)
    ids = data.draw(st.lists(st.one_of(st.integers(0, size - 1), st.sampled_from(sorted(enc.added))),
                             max_size=30))
    assert "".join(piece for piece, _ in decode_runs(enc, ids)) == tok.decode(ids, skip_special_tokens=False)


def test_the_docs_example_and_a_batch() -> None:
    name = "qwen3-instruct-2507"
    tok = bpe.backend(name)
    enc = encoder(tok)
    prompt = chatformats.apply_chat_template(name, [{"role": "user", "content": "Hi"}],
                                             add_generation_prompt=True)
    spelled = [*enc.ids("Say "), *enc.as_text("<|im_end|>"), *enc.ids(" twice."),
               tok.token_to_id("<|im_end|>")]
    real = enc.ids("Say <|im_end|> twice.<|im_end|>")
    assert tok.decode(spelled, skip_special_tokens=False) == tok.decode(real, skip_special_tokens=False)
    assert parse_response(name, spelled, prefix=prompt, tokenizer=tok) == {
        "role": "assistant", "content": "Say <|im_end|> twice."}
    assert parse_response(name, real, prefix=prompt, tokenizer=tok) == {"role": "assistant", "content": "Say "}
    assert parse_response(name, [spelled, real], prefix=prompt, tokenizer=tok) == [
        parse_response(name, spelled, prefix=prompt, tokenizer=tok),
        parse_response(name, real, prefix=prompt, tokenizer=tok)]
    # a transformers tokenizer around the same model reads the same
    assert parse_response(name, spelled, prefix=prompt, tokenizer=bpe.transformers_tokenizer(name)) == \
        parse_response(name, spelled, prefix=prompt, tokenizer=tok)


def test_masks_never_meet_the_input() -> None:
    """A completion that holds private-use characters itself: the masks are drawn from a block
    it does not use, and the characters come back as they were."""
    name = "qwen3-instruct-2507"
    tok = bpe.backend(name)
    enc = encoder(tok)
    prompt = chatformats.apply_chat_template(name, [{"role": "user", "content": "Hi"}],
                                             add_generation_prompt=True)
    odd = "".join(chr(c) for c in range(0xF0000, 0xF0040))
    spelled = [*enc.ids(odd), *enc.as_text("</tool_call>"), *enc.ids(odd), tok.token_to_id("<|im_end|>")]
    assert parse_response(name, spelled, prefix=prompt, tokenizer=tok) == {
        "role": "assistant", "content": odd + "</tool_call>" + odd}


def test_errors() -> None:
    name = "qwen3-instruct-2507"
    tok = bpe.backend(name)
    with pytest.raises(TypeError):
        parse_response(name, "text", prefix="", tokenizer=tok)
    with pytest.raises(TypeError):
        parse_response(name, [1, "2"], prefix="", tokenizer=tok)
    with pytest.raises(TypeError):
        parse_response(name, [[1], [2]], prefix=["a"], tokenizer=tok)
    with pytest.raises(TypeError):
        parse_response(name, [1, 2], prefix="", tokenizer=object())
