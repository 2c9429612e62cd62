"""The pipeline layer's oracle: real transformers, ``tokenizer.apply_chat_template(...,
tokenize=False)`` on a tokenizer built in-process (no download) that carries the format's
reference template and its model's special tokens, with the clock fixed.

- :func:`tokenizer` builds a ``PreTrainedTokenizerFast`` around a ``tokenizers`` WordLevel model
  whose vocabulary is the special tokens; the special tokens are passed exactly as the model's
  tokenizer config passes them (``chatformats.get_format(name).special_tokens``), so
  ``tokenizer.special_tokens_map`` is what the real tokenizer would give the template.
- :func:`apply` calls ``apply_chat_template`` with ``strftime_now``'s clock fixed: transformers'
  ``strftime_now`` reads the module global ``datetime`` of ``chat_template_utils`` at call time
  (the compiled template is cached, the global is not), so patching that name is enough.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from functools import lru_cache
from typing import Any, Iterator

import chatformats

from .oracle import FIXED_NOW, Outcome


class _FixedClock(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return FIXED_NOW if tz is None else FIXED_NOW.replace(tzinfo=tz)


@contextlib.contextmanager
def fixed_clock() -> Iterator[None]:
    from transformers.utils import chat_template_utils as tcu

    saved = tcu.datetime
    tcu.datetime = _FixedClock
    try:
        yield
    finally:
        tcu.datetime = saved


@lru_cache(maxsize=None)
def tokenizer(name: str) -> Any:
    """A fast tokenizer carrying format ``name``'s reference template and special tokens."""
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    fmt = chatformats.get_format(name)
    specials = dict(fmt.special_tokens)
    vocab = {"[UNK]": 0}
    for token in specials.values():
        vocab.setdefault(token, len(vocab))
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok = PreTrainedTokenizerFast(
        tokenizer_object=backend, chat_template=fmt.template_source(), **specials
    )
    assert tok.special_tokens_map == {k: v for k, v in specials.items()}, tok.special_tokens_map
    return tok


def apply(name: str, messages: Any, /, **kwargs: Any) -> Outcome:
    """``tokenizer(name).apply_chat_template(messages, tokenize=False, **kwargs)`` at the fixed
    clock; never raises for a failure (the outcome records the exception's type and message)."""
    tok = tokenizer(name)
    with fixed_clock():
        try:
            result = tok.apply_chat_template(messages, tokenize=False, **kwargs)
        except Exception as exc:  # noqa: BLE001 — every failure is an outcome
            import jinja2

            kind = "raise_exception" if type(exc) is jinja2.exceptions.TemplateError else "other"
            message = exc.message if isinstance(exc, jinja2.exceptions.TemplateError) else str(exc)
            return Outcome(kind=kind, message=message, exc_type=type(exc).__name__)
    return Outcome(text=result) if isinstance(result, str) else Outcome(text=repr(result))
