"""``Rendering.assistant_mask`` against transformers itself.

transformers 5.24 computes ``assistant_masks`` (``apply_chat_template(..., tokenize=True,
return_dict=True, return_assistant_tokens_mask=True)``) from the character ranges its
``{% generation %}`` blocks rendered and the token offsets of the encoding.  Here a chat template
renders a :class:`~chatformats.Rendering`'s text as pieces, each assistant range inside a
``{% generation %}`` block, so transformers' own generation indices are the rendering's
``assistant_spans`` (checked), and its mask is compared with ``assistant_mask`` of the same
encoding's offsets, for real ``tokenizers`` tokenizers built in memory:

- byte-level BPE without a pre-tokenizer split, trained on rendered prompts: merges cross every
  boundary, the bytes of one character share its offsets, control tokens are added tokens;
- word level on whitespace: the whitespace between words belongs to no token;
- either of them with special tokens added around the text (offsets ``(0, 0)``), truncated on
  the right or on the left.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import ChatFormatError

from . import budget
from . import strategies as s
from .argument_shapes import shaped
from .oracle import FIXED_NOW
from .test_spans import RECORDED

FORMATS = chatformats.formats()

#: Renders ``messages`` (pieces: ``{"text": ..., "generated": ...}``) as their concatenation, the
#: generated ones inside ``{% generation %}``.
PIECES_TEMPLATE = (
    "{%- for piece in messages -%}"
    "{%- if piece.generated -%}{%- generation -%}{{- piece.text -}}{%- endgeneration -%}"
    "{%- else -%}{{- piece.text -}}{%- endif -%}"
    "{%- endfor -%}"
)

CONTROL_TOKENS = ["<|im_start|>", "<|im_end|>", "<|eot_id|>", "<|begin_of_text|>",
                  "<|start_header_id|>", "<|end_header_id|>", "<think>", "</think>", "<|begin|>",
                  "<|end|>", "<tool_call>", "</tool_call>"]

TRAINING_CHATS = [
    [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Hi! 🙂 中文?"},
     {"role": "assistant", "content": "Hello, how can I help you today?"}],
    [{"role": "user", "content": "Weather in Oslo?"},
     {"role": "assistant", "content": "", "tool_calls": [
         {"id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
     {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 21}'},
     {"role": "assistant", "content": "21 °C.", "reasoning_content": "The tool said 21."}],
]


@lru_cache(maxsize=None)
def backend(kind: str) -> Any:
    """A ``tokenizers.Tokenizer`` trained in memory on rendered prompts."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    # Each chat's tool call in the argument shape the format's template takes.
    corpus = [chatformats.apply_chat_template(name, shaped(name, chat), now=FIXED_NOW)
              for name in FORMATS for chat in TRAINING_CHATS]
    specials = ["[UNK]", "<s>", "</s>", *CONTROL_TOKENS]
    if kind == "bpe":
        tok = Tokenizer(models.BPE(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=specials,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
    else:
        tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.WordLevelTrainer(special_tokens=specials, show_progress=False)
    tok.train_from_iterator(corpus, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", tok.token_to_id("<s>")),
                                              ("</s>", tok.token_to_id("</s>"))])
    return tok


@lru_cache(maxsize=None)
def tokenizer(kind: str, add_special_tokens: bool, side: str) -> Any:
    """A transformers fast tokenizer around :func:`backend` carrying :data:`PIECES_TEMPLATE`;
    with ``add_special_tokens``, it encodes the rendered chat with ``<s>``/``</s>`` around it
    (transformers' ``apply_chat_template`` asks for none), which the post-processor gives offsets
    ``(0, 0)``."""
    from transformers import PreTrainedTokenizerFast

    base: Any = PreTrainedTokenizerFast

    class WithSpecials(base):  # type: ignore[misc, valid-type]
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            kwargs["add_special_tokens"] = True
            return super().__call__(*args, **kwargs)

    cls = WithSpecials if add_special_tokens else base
    tok = cls(tokenizer_object=backend(kind), chat_template=PIECES_TEMPLATE, unk_token="[UNK]",
              bos_token="<s>", eos_token="</s>")
    tok.truncation_side = side
    return tok


def pieces(rendering: chatformats.Rendering) -> list[dict[str, Any]]:
    """The rendering's text cut at its assistant ranges' ends, each piece marked generated or not."""
    out, position = [], 0
    for start, end in rendering.assistant_spans:
        out.append({"text": rendering.text[position:start], "generated": False})
        out.append({"text": rendering.text[start:end], "generated": True})
        position = end
    out.append({"text": rendering.text[position:], "generated": False})
    return out


def transformers_mask(rendering: chatformats.Rendering, kind: str, add_special_tokens: bool,
                      side: str, max_length: int | None) -> tuple[list[int], list[tuple[int, int]]]:
    """transformers' ``assistant_masks`` for the rendering's text and ranges, and the offsets of
    the encoding it computed them from."""
    from transformers.utils import chat_template_utils

    tok = tokenizer(kind, add_special_tokens, side)
    chat = pieces(rendering)
    text, indices = chat_template_utils.render_jinja_template(
        [chat], chat_template=PIECES_TEMPLATE, return_assistant_tokens_mask=True)
    assert text == [rendering.text]
    assert [tuple(i) for i in indices[0]] == list(rendering.assistant_spans)
    extra = {"truncation": True, "max_length": max_length} if max_length else {}
    out = tok.apply_chat_template(chat, tokenize=True, return_dict=True,
                                  return_assistant_tokens_mask=True, **extra)
    return list(out["assistant_masks"]), list(out.encodings[0].offsets)


def _check(rendering: chatformats.Rendering, kind: str, add_special_tokens: bool, side: str,
           max_length: int | None) -> list[int]:
    expected, offsets = transformers_mask(rendering, kind, add_special_tokens, side, max_length)
    assert rendering.assistant_mask(offsets) == expected
    return expected


@pytest.mark.parametrize("name", RECORDED)
@settings(max_examples=budget.per_format(40), suppress_health_check=list(HealthCheck))
@given(chat=s.realistic_conversation(), kind=st.sampled_from(["bpe", "word"]),
       add_special_tokens=st.booleans(), side=st.sampled_from(["right", "left"]),
       max_length=st.one_of(st.none(), st.integers(1, 60)), data=st.data())
def test_mask_is_transformers_mask(name, chat, kind, add_special_tokens, side, max_length, data):
    try:
        rendering = chatformats.apply_chat_template_spans(
            name, chat, add_generation_prompt=data.draw(st.booleans()), now=FIXED_NOW)
    except ChatFormatError:
        assume(False)
    _check(rendering, kind, add_special_tokens, side, max_length)


@pytest.mark.parametrize("name", RECORDED)
def test_mask_marks_each_assistant_turn(name):
    """Not all zeros, not all ones: each assistant turn of a plain chat has marked tokens and
    the prompt around them has unmarked ones."""
    rendering = chatformats.apply_chat_template_spans(name, TRAINING_CHATS[0], now=FIXED_NOW)
    assert len(rendering.assistant_spans) == 1
    for kind in ("bpe", "word"):
        mask = _check(rendering, kind, True, "right", None)
        assert 0 < sum(mask) < len(mask)
        assert mask[0] == 0 and mask[-1] == 0  # <s> and </s>


@lru_cache(maxsize=None)
def offsets_tokenizer() -> Any:
    """A transformers tokenizer whose encoding of the rendered chat is whatever offsets the test
    sets (:data:`GIVEN_OFFSETS`): transformers' own mask loop then runs on any offsets at all."""
    from transformers import BatchEncoding, PreTrainedTokenizerFast

    base: Any = PreTrainedTokenizerFast

    class Encoding:  # what transformers reads of a ``tokenizers.Encoding`` here
        n_sequences = 1

        def __init__(self, offsets: list[tuple[int, int]]) -> None:
            self.offsets = offsets

    class GivenOffsets(base):  # type: ignore[misc, valid-type]
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            offsets = GIVEN_OFFSETS[0]
            return BatchEncoding({"input_ids": [0] * len(offsets)}, encoding=[Encoding(offsets)])

    return GivenOffsets(tokenizer_object=backend("word"), chat_template=PIECES_TEMPLATE,
                        unk_token="[UNK]")


GIVEN_OFFSETS: list[list[tuple[int, int]]] = [[]]


@st.composite
def rendering_with_ranges(draw: st.DrawFn) -> chatformats.Rendering:
    """A text with ordered, non-overlapping (possibly empty) assistant ranges."""
    text = draw(st.text(alphabet="ab\n", min_size=0, max_size=12))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
    ranges = tuple(zip(cuts[0::2], cuts[1::2]))
    return chatformats.Rendering(text, (chatformats.Span(0, len(text), None),) if text else (), ranges)


@settings(max_examples=300, suppress_health_check=list(HealthCheck))
@given(rendering=rendering_with_ranges(),
       offsets=st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), max_size=10))
def test_mask_on_any_offsets(rendering, offsets):
    """Offsets out of order, overlapping, empty, ``(0, 0)``, beyond the text: the mask is the one
    transformers' loop computes from them."""
    tok = offsets_tokenizer()
    GIVEN_OFFSETS[0] = offsets
    out = tok.apply_chat_template(pieces(rendering), tokenize=True, return_dict=True,
                                  return_assistant_tokens_mask=True)
    assert rendering.assistant_mask(offsets) == list(out["assistant_masks"])


def test_mask_refuses_what_is_not_offsets():
    rendering = chatformats.Rendering("ab", (chatformats.Span(0, 2, None),), ((0, 1),))
    assert rendering.assistant_mask([]) == []
    with pytest.raises(TypeError, match="offsets must be"):
        rendering.assistant_mask([(1, 2, 3)])
    with pytest.raises(TypeError, match="offsets must be"):
        rendering.assistant_mask([None])
