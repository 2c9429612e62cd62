"""The pipeline layer's oracle: real transformers, ``tokenizer.apply_chat_template(...,
tokenize=False)`` on a tokenizer built in-process (no download) that carries the format's
reference template and its model's special tokens, with the clock fixed.

- :func:`tokenizer` is ``chatformats.verify.transformers_tokenizer`` (the one builder, shared
  with the CLI's ``verify`` and the benchmarks: a ``PreTrainedTokenizerFast`` constructed from
  the registry's template text and special tokens; every render is transformers' own), checked
  here once per format: its ``special_tokens_map`` must be exactly the format's special tokens,
  what the model's real tokenizer gives the template.
- :func:`apply` calls ``apply_chat_template`` under :func:`tests.oracle.clock`.
"""

from __future__ import annotations

import contextlib
from functools import lru_cache
from typing import Any

import chatformats
from chatformats import verify

from . import oracle
from .oracle import FIXED_NOW, Outcome


def fixed_clock() -> contextlib.AbstractContextManager[None]:
    """transformers' ``strftime_now`` on :data:`FIXED_NOW` while the block runs."""
    return oracle.clock(FIXED_NOW)


@lru_cache(maxsize=None)
def tokenizer(name: str) -> Any:
    """A fast tokenizer carrying format ``name``'s reference template and special tokens."""
    tok = verify.transformers_tokenizer(name)
    specials = dict(chatformats.get_format(name).special_tokens)
    assert tok.special_tokens_map == specials, tok.special_tokens_map
    assert tok.chat_template == oracle.source(name)
    return tok


def apply(name: str, messages: Any, /, **kwargs: Any) -> Outcome:
    """``tokenizer(name).apply_chat_template(messages, tokenize=False, **kwargs)`` at the fixed
    clock; never raises for a failure (the outcome records the exception's type and message)."""
    tok = tokenizer(name)
    with fixed_clock():
        try:
            result = tok.apply_chat_template(messages, tokenize=False, **kwargs)
        except Exception as exc:  # noqa: BLE001 — every failure is an outcome
            return oracle.failure(exc)
    return Outcome(text=result) if isinstance(result, str) else Outcome(text=repr(result))
