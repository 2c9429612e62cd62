"""The pipeline at its edges, each against transformers itself: the conversion order (a value
that only becomes ``None`` while being converted keeps its key), values whose truth cannot be
told given to transformers' own flags, errors of tool conversion verbatim, keyword clashes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chatformats
from chatformats import ChatFormatError, InvalidConversation

from . import golden
from .test_pipeline import ModelLike, assert_pipeline_parity, bad_choices, transformers_outcome

PORTED = golden.ported_formats()

NAT = np.datetime64("NaT")


@pytest.mark.parametrize("name", PORTED)
@pytest.mark.parametrize("field", ["content", "reasoning_content", "tool_calls", "tool_call_id", "name", "x"])
def test_a_value_that_converts_to_none_keeps_its_key(name: str, field: str) -> None:
    """transformers drops ``None``-valued keys before it converts values to plain data, so
    numpy's ``NaT`` (``.item()`` is ``None``) keeps its key, with ``None``; a ``model_dump()``
    that gives ``None`` is dropped (the first walk already gives ``None``)."""
    for role in ("user", "assistant", "tool", "system"):
        messages: list[Any] = [{"role": "user", "content": "q"}, {"role": role, "content": "a", field: NAT}]
        assert_pipeline_parity(name, messages, {})
        messages = [{"role": "user", "content": "q"}, {"role": role, "content": "a", field: ModelLike(None)}]
        assert_pipeline_parity(name, messages, {})
        messages = [{"role": "user", "content": "q"}, {"role": role, field: ModelLike(ModelLike(NAT))}]
        assert_pipeline_parity(name, messages, {})


@pytest.mark.parametrize("name", PORTED)
def test_every_message_is_converted_before_a_non_dict_one_fails(name: str) -> None:
    class Exploding:
        def model_dump(self) -> Any:
            raise RuntimeError("model_dump failed")

    # transformers converts every message object first: the second message's failure wins.
    assert_pipeline_parity(name, ["not a message", Exploding()], {})
    assert_pipeline_parity(name, [{"role": "user", "content": "q"}, ["a", ModelLike("m")]], {})


@pytest.mark.parametrize("name", PORTED)
@pytest.mark.parametrize("param", ["return_assistant_tokens_mask", "sanitize_control_tokens",
                                   "continue_final_message", "return_dict"])
def test_flags_whose_truth_cannot_be_told(name: str, param: str) -> None:
    """A numpy array given to one of transformers' own flags fails where transformers asks
    ``if flag:``, with its message, as a ChatFormatError (never a bare ValueError)."""
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    for value in (np.array([1, 2]), np.array([True]), np.array([])):
        for extra in ({}, {"return_assistant_tokens_mask": True}, {"continue_final_message": True},
                      {"add_generation_prompt": True}):
            assert_pipeline_parity(name, messages, {**extra, param: value})


@pytest.mark.parametrize("name", PORTED)
def test_tokenize_whose_truth_cannot_be_told(name: str) -> None:
    """``tokenize=<array>``: transformers fails at its first statement, ``if not tokenize:``
    (before any template error); chatformats fails the same way, with its message."""
    from .transformers_oracle import fixed_clock, tokenizer

    for messages in ([{"role": "user", "content": "q"}], [{"role": "user", "content": None}]):
        with fixed_clock():
            try:
                tokenizer(name).apply_chat_template(messages, tokenize=np.array([1, 2]))
            except Exception as exc:  # noqa: BLE001
                want: BaseException = exc
        with pytest.raises(ChatFormatError) as info:
            chatformats.apply_chat_template(name, messages, tokenize=np.array([1, 2]))
        assert type(want) is ValueError
        assert type(info.value) is InvalidConversation and str(info.value) == str(want)


@pytest.mark.parametrize("name", PORTED)
def test_a_tool_schema_failure_is_verbatim(name: str) -> None:
    messages = [{"role": "user", "content": "q"}]
    want, _ = transformers_outcome(name, messages, {"tools": [bad_choices]})
    assert want.exc_type == "JSONDecodeError"
    with pytest.raises(InvalidConversation) as info:
        chatformats.apply_chat_template(name, messages, tools=[bad_choices])
    assert str(info.value) == want.message
    assert_pipeline_parity(name, messages, {"tools": [bad_choices]})


@pytest.mark.parametrize("name", PORTED)
@pytest.mark.parametrize("keyword", ["self", "conversation", "conversations", "messages"])
def test_keyword_clashes(name: str, keyword: str) -> None:
    """Every keyword that clashes with a parameter of transformers' call chain
    (``apply_chat_template(self, conversation, ...)``, ``render_jinja_template(conversations,
    ...)``, ``Template.render(self, messages=...)``) fails as it fails there."""
    assert_pipeline_parity(name, [{"role": "user", "content": "q"}], {keyword: 1})
