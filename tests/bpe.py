"""Byte-level BPE tokenizers for each format, trained in memory (no download), for the ids laws.

- :func:`backend` — a ``tokenizers.Tokenizer``: byte-level BPE trained on prompts the format
  renders (every control string taken out of the training text, so no merge spells one: a real
  model's merges do not), then the format's control strings (``get_format(name).control_strings``)
  added: the tokens ``<|...|>`` and the format's special tokens as special added tokens, the
  others (``<think>``, ``<tool_call>``, ...) as ordinary added tokens, as Qwen's tokenizer has
  them.  ``kind`` ``"raw"`` has no pre-tokenizer split (merges cross every boundary: ``\\n\\n``,
  a header's newline into the content, the space before content); ``"regex"`` splits as GPT-2
  does.  The training text repeats the boundaries that matter so that merges across them exist.
- :func:`text_only` — the same model with no added token at all: what "encoded as text" means.
- :func:`transformers_tokenizer` — a ``PreTrainedTokenizerFast`` around a copy of
  :func:`backend` carrying the format's reference template and special tokens: the oracle.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import chatformats

from .argument_shapes import shaped
from .oracle import FIXED_NOW

TRAINING_CHATS = [
    [{"role": "system", "content": "Answer briefly.\n\nBe kind."},
     {"role": "user", "content": "Hi! 🙂 中文?\n\nTell me more."},
     {"role": "assistant", "content": " Hello, how can I help you today?\n\n"}],
    [{"role": "user", "content": "Weather in Oslo?"},
     {"role": "assistant", "content": "", "tool_calls": [
         {"id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
     {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 21}'},
     {"role": "assistant", "content": "21 °C.", "reasoning_content": "The tool said 21.\n\n"}],
    [{"role": "user", "content": "\nuser\n\nassistant\n content text None True"},
     {"role": "assistant", "content": "\n\nSure.\n", "reasoning_content": "\nthink\n"}],
]


#: Trained on besides :data:`TRAINING_CHATS`: a call with no text (``content`` ``None``, as OpenAI
#: sends it), which some templates render only so (DeepSeek-V3's, whose call block holds the
#: only template text that is not a control token next to input: ``\n```json\n``).
EXTRA_TRAINING_CHATS = [
    [{"role": "user", "content": "Weather in Oslo?"},
     {"role": "assistant", "content": None, "tool_calls": [
         {"id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
     {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 21}'}],
]


def _corpus(name: str) -> list[str]:
    fmt = chatformats.get_format(name)
    texts = []
    for chat in TRAINING_CHATS + EXTRA_TRAINING_CHATS:
        for kwargs in ({}, {"add_generation_prompt": True}):
            try:  # the call arguments as the format takes them (JSON text for DeepSeek's)
                texts.append(chatformats.apply_chat_template(name, shaped(name, chat), now=FIXED_NOW, **kwargs))
            except chatformats.ChatFormatError:
                pass
    out = []
    for text in texts:
        for control in sorted(fmt.control_strings, key=len, reverse=True):
            text = text.replace(control, "")
        out.append(text)
    return out * 4


@lru_cache(maxsize=None)
def text_only(name: str, kind: str = "raw") -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=kind == "regex")
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=700, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(_corpus(name), trainer)
    return tok


def _special(name: str) -> set[str]:
    fmt = chatformats.get_format(name)
    return {c for c in fmt.control_strings if c.startswith("<|")} | set(fmt.special_tokens.values())


@lru_cache(maxsize=None)
def backend(name: str, kind: str = "raw") -> Any:
    from tokenizers import AddedToken, Tokenizer

    tok = Tokenizer.from_str(text_only(name, kind).to_str())
    special = _special(name)
    controls = chatformats.get_format(name).control_strings
    tok.add_tokens([AddedToken(c, special=c in special, normalized=False) for c in controls])
    return tok


@lru_cache(maxsize=None)
def transformers_tokenizer(name: str, kind: str = "raw") -> Any:
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    fmt = chatformats.get_format(name)
    base: Any = PreTrainedTokenizerFast
    tok = base(tokenizer_object=Tokenizer.from_str(backend(name, kind).to_str()),
               chat_template=fmt.template_source(), **fmt.special_tokens)
    return tok


def control_ids(name: str, kind: str = "raw") -> frozenset[int]:
    return frozenset(backend(name, kind).get_added_tokens_decoder())
