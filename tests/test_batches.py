"""Batches: refused where the API takes one conversation, rendered where it documents batches,
and an error inside one names the conversation.

- Every single-conversation API (``render``, ``render_spans``, ``render_ids``, ``audit``,
  ``audit_chat_template``, ``rollout.start``) refuses a batch (``messages[0]`` a list or a
  tuple, transformers' rule) with :class:`InvalidConversation` before rendering, for every
  format, whatever the template would make of it (``""`` for the Qwen formats).
- ``apply_chat_template`` of a batch is the list of each conversation's prompt; where one fails,
  the batch fails with the first failing conversation's error, of the same class, its message
  prefixed by ``conversations[i]: `` and ``batch_index == i`` (the law below, over generated
  batches of every format).  ``parse_response`` of a list names the response the same way.
- The ``--jsonl`` CLI, the Ray stage and the Parquet stage name a failed line or row.
"""

from __future__ import annotations

import json
from typing import Any, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import ChatFormatError, InvalidConversation, ParseError

from . import bpe
from . import strategies as s
from .budget import per_format
from .oracle import FIXED_NOW

FORMATS = chatformats.formats()
ONE = [{"role": "user", "content": "Hi!"}]


# ------------------------------------------------------------------ single-conversation APIs


def single_conversation_calls(name: str) -> List[Any]:
    return [
        ("render", lambda m: chatformats.render(name, m, now=FIXED_NOW)),
        ("render_spans", lambda m: chatformats.render_spans(name, m, now=FIXED_NOW)),
        ("render_ids", lambda m: chatformats.render_ids(name, m, tokenizer=bpe.backend(name),
                                                        now=FIXED_NOW)),
        ("audit", lambda m: chatformats.audit(name, m, now=FIXED_NOW)),
        ("audit_chat_template", lambda m: chatformats.audit_chat_template(name, m, now=FIXED_NOW)),
        ("start", lambda m: chatformats.start(name, m, now=FIXED_NOW)),
    ]


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("batch", [[ONE, ONE], [ONE], (tuple(ONE),), [[]], [ONE, []]],
                         ids=["two", "one", "tuple", "empty-conversation", "then-empty"])
def test_single_conversation_apis_refuse_a_batch(name: str, batch: Any) -> None:
    for api, call in single_conversation_calls(name):
        with pytest.raises(InvalidConversation) as info:
            call(batch)
        count = len(batch)
        assert str(info.value).startswith(
            f"messages is a batch of {count} conversation{'s' if count != 1 else ''}"), (api, info.value)
        assert "apply_chat_template" in str(info.value), api
        call(ONE)  # one conversation is fine


def test_the_template_alone_renders_a_batch_as_nothing() -> None:
    """Why the template layer refuses: the reference renders a Qwen batch as ``""``."""
    from . import oracle

    assert oracle.render("qwen3", [ONE, ONE]).text == ""
    assert chatformats.apply_chat_template("qwen3", [ONE, ONE]) == [
        chatformats.apply_chat_template("qwen3", ONE)] * 2


# ------------------------------------------------------------------ errors inside a batch


def outcome(call: Any) -> Any:
    try:
        return ("ok", call())
    except ChatFormatError as exc:
        return ("error", exc)


@pytest.mark.parametrize("name", FORMATS)
def test_an_error_inside_a_batch_names_its_conversation(name: str) -> None:
    @settings(max_examples=per_format(40))
    @given(batch=st.lists(st.one_of(s.realistic_conversation(), s.adversarial_messages.filter(bool)),
                          min_size=1, max_size=4),
           kwargs=st.fixed_dictionaries({}, optional={"add_generation_prompt": st.booleans(),
                                                      "tools": s.tools_realistic}))
    def check(batch: List[Any], kwargs: Any) -> None:
        batch = [c for c in batch if c and not isinstance(c[0], (list, tuple))] or [ONE]
        alone = [outcome(lambda c=c: chatformats.apply_chat_template(name, c, now=FIXED_NOW, **kwargs))
                 for c in batch]
        kind, got = outcome(lambda: chatformats.apply_chat_template(name, batch, now=FIXED_NOW, **kwargs))
        failed = [i for i, (k, _) in enumerate(alone) if k == "error"]
        if not failed:
            assert (kind, got) == ("ok", [text for _, text in alone])
            return
        assert kind == "error", f"conversation {failed[0]} fails alone, the batch rendered"
        index = got.batch_index
        assert index in failed
        # Each conversation is converted before any renders (transformers' order): the first to
        # fail is the first that fails converting, else the first that fails rendering.
        solo = alone[index][1]
        assert (type(got), str(got)) == (type(solo), f"conversations[{index}]: {solo}")
        if not isinstance(solo, InvalidConversation):  # a render error: every earlier one renders
            assert index == failed[0]

    check()


def test_parse_response_names_the_response_in_a_batch() -> None:
    bad = "<tool_call>\n{bad</tool_call>"
    with pytest.raises(ParseError, match=r"^response\[1\]: ") as info:
        chatformats.parse_response("qwen3", ["fine", bad], prefix="", strict=True)
    assert info.value.batch_index == 1
    with pytest.raises(ParseError) as alone:
        chatformats.parse_response("qwen3", bad, prefix="", strict=True)
    assert str(info.value) == f"response[1]: {alone.value}"


# ------------------------------------------------------------------ lines and rows


def test_the_ray_stage_keeps_each_rows_error_in_its_row() -> None:
    from chatformats.ray import RenderStage

    rows = [ONE, [ONE, ONE], [], ONE]
    outputs, errors = RenderStage("qwen3").render_rows(rows)
    assert [e is None for e in errors] == [True, False, False, True]
    assert [o is None for o in outputs[0]] == [False, True, True, False]
    assert "a batch of conversations" in (errors[1] or "")


def test_the_jsonl_cli_names_the_line(tmp_path: Any, capsys: Any) -> None:
    from chatformats.cli import main

    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in (ONE, [ONE, ONE], ONE)) + "\n", encoding="utf-8")
    status = main(["render", "qwen3", "--jsonl", str(path), "-o", str(tmp_path / "out.jsonl")])
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text("utf-8").splitlines()]
    assert status == 1 and [r.get("line") for r in records] == [None, 2, None]
    assert f"{path}:2: " in capsys.readouterr().err
