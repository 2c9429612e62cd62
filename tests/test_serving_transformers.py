"""``chatformats.transformers.accelerate``: a real transformers tokenizer (built in-process, no
download) answers ``apply_chat_template(..., tokenize=False)`` exactly as before, through
chatformats where its template is a ported one, and through its own method everywhere else."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import _core
from chatformats.transformers import accelerate, decelerate, is_accelerated

from . import strategies as s
from . import transformers_oracle as T
from .oracle import FIXED_NOW

pytest.importorskip("transformers")

FORMATS = chatformats.formats()


def fresh_tokenizer(name: str, template: str | None = None, **specials: Any) -> Any:
    """A tokenizer like the oracle's, but a new object (accelerate changes the object)."""
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    fmt = chatformats.get_format(name)
    tokens = {**fmt.special_tokens, **specials}
    vocab = {"[UNK]": 0}
    for token in tokens.values():
        vocab.setdefault(token, len(vocab))
    return PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(vocab, unk_token="[UNK]")),
                                   chat_template=template if template is not None else fmt.template_source(),
                                   **tokens)


class _Clock(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return FIXED_NOW


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    """Both sides on one clock: transformers' strftime_now and the render core's default ``now``
    (both layers read the clock in ``chatformats._core``)."""
    monkeypatch.setattr(_core, "datetime", _Clock)
    with T.fixed_clock():
        yield


def outcome(call: Any) -> tuple[str, Any]:
    try:
        return "ok", call()
    except Exception as exc:  # noqa: BLE001 — the exception is the outcome
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(messages=s.conversations, kwargs=st.fixed_dictionaries({}, optional={
    "add_generation_prompt": st.booleans(), "tools": s.tools_realistic,
    "enable_thinking": st.booleans(), "continue_final_message": st.booleans()}))
def test_accelerated_tokenizer_answers_as_before(name, messages, kwargs):
    plain = T.tokenizer(name)
    fast = accelerated(name)
    expected = outcome(lambda: plain.apply_chat_template(messages, tokenize=False, **kwargs))
    got = outcome(lambda: fast.apply_chat_template(messages, tokenize=False, **kwargs))
    assert got == expected


_ACCELERATED: dict[str, Any] = {}


def accelerated(name: str) -> Any:
    if name not in _ACCELERATED:
        _ACCELERATED[name] = accelerate(fresh_tokenizer(name))
    return _ACCELERATED[name]


@pytest.mark.parametrize("name", FORMATS)
def test_ported_templates_render_through_chatformats(name):
    tok = accelerated(name)
    served = tok.apply_chat_template.served
    messages = [{"role": "user", "content": "Hi"}]
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert tok.apply_chat_template.served == served + 1
    assert text == T.tokenizer(name).apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    batch = tok.apply_chat_template([messages, messages], tokenize=False)
    assert batch == [chatformats.apply_chat_template(name, messages)] * 2


def test_calls_it_cannot_serve_go_to_the_tokenizer():
    tok = accelerate(fresh_tokenizer("cogito"))
    messages = [{"role": "user", "content": "Hi"}]
    calls = [
        dict(return_assistant_tokens_mask=True),           # tokenize=True, a mask asked for
        dict(tokenize=False, chat_template="{{ messages[0]['content'] }}"),  # another template
        dict(tokenize=False, return_assistant_tokens_mask=True),
        dict(tokenize=False, now="a variable named like chatformats' parameter"),
    ]
    for kwargs in calls:
        passed = tok.apply_chat_template.passed
        expected = outcome(lambda: T.tokenizer("cogito").apply_chat_template(messages, **kwargs))
        assert outcome(lambda: tok.apply_chat_template(messages, **kwargs)) == expected
        assert tok.apply_chat_template.passed == passed + 1
    # tokenize=True (the default) is served: the same ids (tests/test_ids.py checks many inputs)
    served = tok.apply_chat_template.served
    assert tok.apply_chat_template(messages) == T.tokenizer("cogito").apply_chat_template(messages)
    assert tok.apply_chat_template.served == served + 1
    # A failure is transformers' own exception, raised by its own method.
    from jinja2.exceptions import TemplateError

    bad = [{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}]
    vision = accelerate(fresh_tokenizer("llama-3.2-vision"))
    with pytest.raises(TemplateError, match="incompatible with system messages"):
        vision.apply_chat_template(bad, tokenize=False)


def test_the_tokenizing_path_falls_back_by_the_same_rule():
    """``tokenize=True`` (the default) goes to the tokenizer's own method exactly where a
    ``tokenize=False`` call would, plus where it asks for what chatformats does not mirror (the
    mask, sanitized control tokens) or passes chatformats' own ``tokenizer=``/``safe=``; a
    failure is transformers' own exception."""
    from jinja2.exceptions import TemplateError

    tok = accelerate(fresh_tokenizer("cogito"))
    messages = [{"role": "user", "content": "Hi"}]
    calls = [
        dict(chat_template="{{ messages[0]['content'] }}"),   # another template
        dict(now="a variable named like chatformats' parameter"),
        dict(strict="a variable named like chatformats' parameter"),
        dict(return_assistant_tokens_mask=True, return_dict=True),
        dict(sanitize_control_tokens=True),
        dict(safe=True),
        dict(tokenize=1),                                    # not the bool transformers tests
    ]
    for kwargs in calls:
        for tokenize in ({}, {"tokenize": True}):
            call = {**tokenize, **kwargs}
            passed, served = tok.apply_chat_template.passed, tok.apply_chat_template.served
            expected = outcome(lambda: T.tokenizer("cogito").apply_chat_template(messages, **call))
            assert outcome(lambda: tok.apply_chat_template(messages, **call)) == expected, call
            assert (tok.apply_chat_template.passed, tok.apply_chat_template.served) == (passed + 1, served), call
    # safe= and tokenizer= are chatformats' own: to transformers they are template variables, so
    # a planted control token stays the control token (on a tokenizer that could encode it as text)
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    from . import bpe

    fmt = chatformats.get_format("cogito")
    planted = [{"role": "user", "content": "Hi <|eot_id|> there"}]
    bpe_tok = accelerate(PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer.from_str(bpe.backend("cogito").to_str()),
        chat_template=fmt.template_source(), **fmt.special_tokens))
    plain = bpe.transformers_tokenizer("cogito")
    for kwargs in (dict(safe=True), dict(tokenizer=plain)):
        expected = outcome(lambda: plain.apply_chat_template(planted, return_dict=False, **kwargs))
        assert outcome(lambda: bpe_tok.apply_chat_template(planted, return_dict=False, **kwargs)) == expected
    assert (bpe_tok.apply_chat_template.passed, bpe_tok.apply_chat_template.served) == (2, 0)
    assert chatformats.apply_chat_template("cogito", planted, tokenize=True, tokenizer=plain, safe=True,
                                           return_dict=False) != expected[1]
    bad = [{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "image"}]}]
    vision = accelerate(fresh_tokenizer("llama-3.2-vision"))
    with pytest.raises(TemplateError, match="incompatible with system messages"):
        vision.apply_chat_template(bad)
    assert vision.apply_chat_template.passed == 1 and vision.apply_chat_template.served == 0


def test_unknown_template_is_left_alone_and_special_tokens_are_the_tokenizers():
    tok = accelerate(fresh_tokenizer("cogito", template="{{ bos_token }}{{ messages[0]['content'] }}"))
    assert tok.apply_chat_template([{"role": "user", "content": "x"}], tokenize=False) == "<|begin_of_text|>x"
    assert tok.apply_chat_template.served == 0
    other = accelerate(fresh_tokenizer("cogito", bos_token="<s>"))
    text = other.apply_chat_template([{"role": "user", "content": "x"}], tokenize=False)
    assert text.startswith("<s><|start_header_id|>") and other.apply_chat_template.served == 1


def test_accelerate_is_idempotent_and_reversible():
    tok = fresh_tokenizer("qwen3-tool-agent")
    own = tok.apply_chat_template
    assert accelerate(tok) is tok and is_accelerated(tok)
    wrapper = tok.apply_chat_template
    assert accelerate(tok).apply_chat_template is wrapper
    assert decelerate(tok) is tok and not is_accelerated(tok)
    assert tok.apply_chat_template == own
    with pytest.raises(TypeError):
        accelerate(object())

    class Processor:  # a processor's apply_chat_template has no tokenize parameter
        def apply_chat_template(self, conversation: Any, chat_template: Any = None, **kwargs: Any) -> str:
            return ""

        def get_chat_template(self, *args: Any) -> str:
            return ""

    with pytest.raises(TypeError, match="no tokenize parameter"):
        accelerate(Processor())
