"""The law of encoding a prompt piece by piece (``chatformats.ids.Splitter``): the ids and offsets
are the tokenizer's encoding of the whole text, and the piece-by-piece path is taken exactly
when its conditions hold (else the text is encoded whole).

1. The tokenizers of the ids laws (``tests/bpe.py``: byte-level BPE, ``raw`` and ``regex``, and
   their transformers wrappers) are encoded piece by piece, so the laws of ``test_ids.py`` (ids
   equal to transformers' and to the Jinja oracle's text encoded) hold on that path; here, for
   every format, a long conversation's ids and offsets against the whole encoding and against
   transformers' ``apply_chat_template(tokenize=True)``.
2. For tokenizer pipelines beyond those (normalizers, pre-tokenizers, added-token flags,
   overlapping added tokens, truncation, ``encode_special_tokens``, BPE dropout), on texts mixing
   control strings with the shared strategies' texts: ``Encoder.encode`` equals the whole
   encoding, and the piece-by-piece path is taken exactly for the pipelines the rule admits.
   For each pipeline it refuses, an input on which a cut at every added token's occurrence
   gives other ids than the whole encoding: the refusal is needed, not merely cautious.
"""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given, note, settings
from hypothesis import strategies as st

import chatformats
from chatformats.ids import Encoder, encoder

from . import bpe
from . import oracle
from . import strategies as s
from .oracle import FIXED_NOW

FORMATS = chatformats.formats()
NAME = "qwen3-instruct-2507"


@pytest.fixture(autouse=True, scope="module")
def by_pieces_from_the_first_character() -> Iterator[None]:
    """Every text is encoded by pieces where the rule admits it, however short (the length
    threshold is speed only)."""
    saved = Encoder.pieces_from
    Encoder.pieces_from = 0
    yield
    Encoder.pieces_from = saved


def whole(tok: Any, text: str) -> tuple[list[int], list[tuple[int, int]]]:
    encoding = tok.encode(text, add_special_tokens=False)
    return encoding.ids, encoding.offsets


def naive_cut(tok: Any, text: str) -> list[int]:
    """The ids of ``text`` cut at every occurrence of every added token (leftmost-longest), each
    piece encoded alone: what the piece-by-piece path would give if it ignored its conditions."""
    contents = {t.content: i for i, t in tok.get_added_tokens_decoder().items()}
    pattern = re.compile("|".join(re.escape(c) for c in sorted(contents, key=len, reverse=True)))
    ids: list[int] = []
    pos = 0
    for match in pattern.finditer(text):
        if match.start() > pos:
            ids += tok.encode(text[pos:match.start()], add_special_tokens=False).ids
        ids.append(contents[match.group()])
        pos = match.end()
    if pos < len(text):
        ids += tok.encode(text[pos:], add_special_tokens=False).ids
    return ids


# ------------------------------------------------------------------ 1. the test tokenizers


def long_chat(turns: int) -> list[dict[str, Any]]:
    chat: list[dict[str, Any]] = [{"role": "system", "content": "Answer briefly.\n\nBe kind."}]
    for turn in range(turns):
        chat.append({"role": "user", "content": f" Turn {turn}:\n\nwhat now? <|im_start|> 中文"})
        chat.append({"role": "assistant", "content": f"\n\nStep {turn} done.\n"})
    chat.append({"role": "user", "content": "And then?"})
    return chat


@pytest.mark.parametrize("name", FORMATS)
def test_a_long_prompt_is_encoded_by_pieces_exactly(name: str) -> None:
    chat = long_chat(15)
    for kind in ("raw", "regex"):
        backend = bpe.backend(name, kind)
        assert encoder(backend).splitter is not None, (name, kind)
        try:
            ids = chatformats.render_ids(name, chat, tokenizer=backend, add_generation_prompt=True,
                                         now=FIXED_NOW)
        except chatformats.ChatFormatError:
            continue  # a template that refuses the chat (checked against the oracle elsewhere)
        assert (ids.ids, ids.offsets) == whole(backend, ids.text)
        hf = bpe.transformers_tokenizer(name, kind)
        assert encoder(hf).splitter is not None
        got = chatformats.apply_chat_template(name, chat, tokenize=True, tokenizer=hf, return_dict=False,
                                              add_generation_prompt=True, now=FIXED_NOW)
        with oracle.clock(FIXED_NOW):
            expected = hf.apply_chat_template(chat, tokenize=True, return_dict=False,
                                              add_generation_prompt=True)
        assert got == expected
        assert got == whole(backend, chatformats.apply_chat_template(
            name, chat, add_generation_prompt=True, now=FIXED_NOW))[0]


# ------------------------------------------------------------------ 2. other pipelines


@lru_cache(maxsize=None)
def trained(pipeline: str) -> Any:
    """A BPE trained on the format's prompts under ``pipeline``'s normalizer and pre-tokenizer,
    the format's control strings added (non-normalized, special for ``<|...|>``)."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers
    from tokenizers import pre_tokenizers as pre
    from tokenizers import trainers

    byte_level = pre.ByteLevel(add_prefix_space=False, use_regex=False)
    llama3 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
    setups: dict[str, tuple[Any, Any]] = {
        "byte-level": (None, byte_level),
        "llama-3 split": (None, pre.Sequence([pre.Split(Regex(llama3), behavior="isolated"),
                                              pre.ByteLevel(add_prefix_space=False, use_regex=False)])),
        "nfkc, lowercase": (normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]), byte_level),
        "prepend, strip": (normalizers.Sequence([normalizers.Prepend(" "), normalizers.Strip()]), byte_level),
        "metaspace always": (None, pre.Metaspace(prepend_scheme="always")),
        "metaspace first": (None, pre.Metaspace(prepend_scheme="first")),
        "digits, whitespace": (None, pre.Sequence([pre.Digits(individual_digits=True), pre.WhitespaceSplit(),
                                                   byte_level])),
        "byte-level prefix space": (None, pre.ByteLevel(add_prefix_space=True, use_regex=True)),
        "bert wordpiece": (normalizers.BertNormalizer(lowercase=True), pre.BertPreTokenizer()),
    }
    base = pipeline if pipeline in setups else "byte-level"
    normalizer, pre_tokenizer = setups[base]
    wordpiece = base == "bert wordpiece"
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]") if wordpiece else models.BPE())
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.WordPiece() if wordpiece else decoders.ByteLevel()
    alphabet = pre.ByteLevel.alphabet() if "metaspace" not in base and not wordpiece else []
    corpus = bpe._corpus(NAME) + ["THINK Think ▁x 0123456789"]
    if wordpiece:
        trainer: Any = trainers.WordPieceTrainer(vocab_size=500, special_tokens=["[UNK]"], show_progress=False)
    else:
        trainer = trainers.BpeTrainer(vocab_size=500, initial_alphabet=alphabet, show_progress=False)
    tok.train_from_iterator(corpus, trainer)
    controls = sorted(chatformats.get_format(NAME).control_strings)
    flags: dict[str, dict[str, bool]] = {c: {} for c in controls}
    if pipeline == "normalized added tokens":
        tok.normalizer = normalizers.Lowercase()
        for c in controls:
            if not c.startswith("<|"):
                flags[c] = {"normalized": True}
    if pipeline == "lstrip":
        flags["<|im_end|>"] = {"lstrip": True}
    if pipeline == "rstrip":
        flags["<|im_start|>"] = {"rstrip": True}
    if pipeline == "single word":
        flags["<think>"] = {"single_word": True}
    tok.add_tokens([AddedToken(c, special=c.startswith("<|"), **{"normalized": False, **flags[c]})
                    for c in controls])
    if pipeline == "overlapping":
        tok.add_tokens([AddedToken("<|im_end|>\nx", special=True, normalized=False),
                        AddedToken("end|><", normalized=False)])
    if pipeline == "encode special tokens":
        tok.encode_special_tokens = True
    if pipeline == "truncation":
        tok.enable_truncation(40)
    if pipeline == "dropout":
        tok.model.dropout = 0.3
    return tok


#: pipeline -> whether the piece-by-piece path is taken.
PIPELINES = {
    "byte-level": True, "llama-3 split": True, "nfkc, lowercase": True, "prepend, strip": True,
    "metaspace always": True, "digits, whitespace": True, "normalized added tokens": True,
    "overlapping": True, "byte-level prefix space": True, "bert wordpiece": True,
    "metaspace first": False, "lstrip": False, "rstrip": False, "single word": False,
    "encode special tokens": False, "truncation": False, "dropout": False,
}

#: For each refused pipeline, a text on which cutting at every added token is wrong.
WRONG_CUTS = {
    "metaspace first": "Hi<|im_start|>user there<|im_end|>",
    "lstrip": "Hi   <|im_end|>\n",
    "rstrip": "<|im_start|>   user",
    "single word": "Hi<think>x</think>",
    "encode special tokens": "a<|im_start|>b",
    "truncation": "<|im_start|>user\n" + "word " * 60 + "<|im_end|>",
}

controls_text = st.lists(st.one_of(
    st.sampled_from(sorted(chatformats.get_format(NAME).control_strings)),
    st.sampled_from(["<THINK>", "<|IM_END|>", " ", "\n\n", "   ", "x", "end|><", "<|im_end|>\nx"]),
    s.texts), max_size=8).map("".join)


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
@settings(max_examples=60, deadline=None)
@given(text=controls_text)
@example(text=WRONG_CUTS["metaspace first"])
@example(text="<|im_end|>\nxy<think><THINK>  <|im_end|>end|><|im_start|>")
def test_pieces_are_the_whole_encoding(pipeline: str, text: str) -> None:
    tok = trained(pipeline)
    enc = Encoder(tok)
    assert (enc.splitter is not None) == PIPELINES[pipeline]
    if pipeline == "dropout":  # a random encoding: only the refusal is checked
        return
    got = enc.encode(text)
    expected = whole(tok, text)
    note(f"got={got!r}\nexpected={expected!r}")
    assert got == expected
    assert enc.ids(text) == expected[0]


@pytest.mark.parametrize("pipeline", sorted(WRONG_CUTS))
def test_each_refusal_is_needed(pipeline: str) -> None:
    tok = trained(pipeline)
    text = WRONG_CUTS[pipeline]
    assert naive_cut(tok, text) != whole(tok, text)[0]
    assert Encoder(tok).encode(text) == whole(tok, text)


def test_a_normalized_added_token_is_left_to_the_piece() -> None:
    """A normalized added token is matched after the normalizer (``<THINK>`` lowercased is
    ``<think>``): not a cut point, and the piece's own encoding finds it."""
    tok = trained("normalized added tokens")
    think = tok.token_to_id("<think>")
    text = "<|im_start|>user\nA<THINK>b<|im_end|>"
    assert think in whole(tok, text)[0]
    assert Encoder(tok).encode(text) == whole(tok, text)
    assert "<think>" not in Encoder(tok).splitter.ids  # type: ignore[union-attr]


def test_the_rule_is_read_again_when_the_tokenizer_changes() -> None:
    from tokenizers import AddedToken, Tokenizer, pre_tokenizers

    tok = Tokenizer.from_str(trained("byte-level").to_str())
    enc = Encoder(tok)
    text = "a<|im_start|>b<new>c"
    assert enc.encode(text) == whole(tok, text)
    tok.add_tokens([AddedToken("<new>", normalized=False)])
    assert tok.token_to_id("<new>") in enc.ids(text)
    assert enc.encode(text) == whole(tok, text)
    before = tok.pre_tokenizer
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
    assert enc.splitter is None and enc.encode(text) == whole(tok, text)
    tok.pre_tokenizer = before
    assert enc.splitter is not None
    tok.add_tokens([AddedToken("<lstrip>", lstrip=True, normalized=False)])
    assert enc.splitter is None
    tok.encode_special_tokens = True
    assert enc.splitter is None


def test_a_short_text_is_encoded_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Encoder, "pieces_from", 100)
    enc = Encoder(bpe.backend(NAME))
    short, long = "<|im_start|>user\nhi<|im_end|>", "<|im_start|>user\n" + "hi " * 40 + "<|im_end|>"
    assert not callable(enc.encode_lazy(short)[1]) and callable(enc.encode_lazy(long)[1])
    assert enc.encode(short) == whole(bpe.backend(NAME), short)
    assert enc.encode(long) == whole(bpe.backend(NAME), long)


def test_offsets_are_built_when_first_read() -> None:
    backend = bpe.backend(NAME)
    ids = chatformats.render_ids(NAME, long_chat(3), tokenizer=backend)
    assert ids._offset_list is None and callable(ids._pending)
    expected = whole(backend, ids.text)
    assert ids.offsets == expected[1] and ids._pending is None
    assert ids.ids == expected[0]
    assert len(ids.provenance) == len(ids.ids) and len(ids.assistant_mask) == len(ids.ids)
