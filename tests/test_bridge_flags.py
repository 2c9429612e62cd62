"""The windows that carry a loop's state (``chatformats._window``'s :class:`FlagsRule` and
:class:`ResetFlagsRule` for the DeepSeek templates, :class:`FinalRule` for gpt-oss) on rollouts
whose roles come in any order.

The rollouts of ``tests/test_bridge.py`` follow a tool call with its results and anything else
with a user turn.  The state these rules carry (DeepSeek's ``ns.is_output_first``,
``ns.is_first``, ``ns.is_tool``, ``ns.is_last_user``; gpt-oss's ``last_tool_call.name`` and
``future_final``) also decides turns that no well-behaved client sends: a tool message after a
user turn or an answer (DeepSeek's ``<｜tool▁outputs▁begin｜>`` depends on the last tool-call turn,
which may lie anywhere before; gpt-oss takes the tool's name from the last assistant turn, or
raises), several in a row, a message of a role the template ignores between them.  Law: at every
step the bridge's window answers exactly what the whole conversation's render answers (text, ids,
messages, appended, ``rewritten``, or ``None``, or the same error), and the examples below show
that the anchors are needed (a rule without them answers differently) and that the window is
taken.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

import chatformats
from chatformats._window import RULES, FinalRule, FlagsRule, ResetFlagsRule

from . import bpe, budget
from .oracle import FIXED_NOW
from .test_bridge import completion_of, full_path, has_parser, rich_assistant, same_turn, texts

FLAG_FORMATS = sorted(name for name, rule in RULES.items() if isinstance(rule, (FlagsRule, FinalRule)))
PER_FORMAT = budget.per_format(150)


def message_of(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["user", "tool", "tool", "other"]))
    if kind == "other":  # a role the loop writes nothing for and that sets no flag
        return {"role": draw(st.sampled_from(["developer", "ipython"])), "content": draw(texts)}
    return {"role": kind, "content": draw(texts)}


@st.composite
def new_messages(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One to three messages of any of the roles the flags follow (tool messages after any turn,
    not only after a tool call), or another."""
    return [message_of(draw) for _ in range(draw(st.integers(1, 3)))]


def step(name: str, prompt: Any, completion: str, new: list[Any], given_message: Any) -> Any:
    """The bridge's answer from the window and from the whole render (each an answer or the
    error), checked equal; the window's."""
    tok = bpe.backend(name)
    outcomes = []
    for start in (prompt, full_path(prompt)):
        try:
            outcomes.append(chatformats.bridge(name, start, completion, new, tokenizer=tok,
                                               message=given_message))
        except chatformats.ChatFormatError as exc:
            outcomes.append(exc)
    turn, slow = outcomes
    if isinstance(turn, Exception) or isinstance(slow, Exception):
        assert (type(turn), str(turn)) == (type(slow), str(slow))
        return turn
    windowed = turn.context.windowed if turn is not None and turn.context else None
    note(f"window={windowed}")
    event(f"window={windowed}")
    same_turn(turn, slow)
    return turn


@pytest.mark.parametrize("name", FLAG_FORMATS)
@settings(max_examples=PER_FORMAT)
@given(data=st.data())
def test_the_flag_windows_are_the_full_render(name: str, data: st.DataObject) -> None:
    tok = bpe.backend(name)
    messages: list[Any] = []
    if data.draw(st.booleans(), label="system"):
        messages.append({"role": "system", "content": data.draw(texts)})
    messages.append({"role": "user", "content": data.draw(texts)})
    try:
        prompt = chatformats.start(name, messages, tokenizer=tok, now=FIXED_NOW)
    except chatformats.ChatFormatError:
        return
    for _ in range(data.draw(st.integers(1, 10), label="steps")):
        message = data.draw(rich_assistant(name.startswith("deepseek")), label="sampled message")
        completion = completion_of(name, list(prompt.messages), message, prompt.variables,
                                   cut=data.draw(st.integers(0, 5), label="cut") == 0)
        if completion is None:
            return
        new = data.draw(new_messages(), label="new messages")
        given_message = None if has_parser(name) else message
        turn = step(name, prompt, completion, new, given_message)
        if isinstance(turn, Exception):
            return
        if turn is None:  # the template rewrites this history: go on from its render
            try:
                parsed = given_message or chatformats.parse_response(
                    name, completion, prefix=prompt.appended, tools=prompt.variables.get("tools"))
                turn = chatformats.start(name, [*prompt.messages, parsed, *new], tokenizer=tok,
                                         now=FIXED_NOW)
            except chatformats.ChatFormatError:
                return
        prompt = turn


def _call(i: int) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
        "name": "get_weather", "arguments": f'{{"city": "Oslo", "days": {i}}}'}}]}


def _answer(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


#: A tool call and its result, then user turns and answers, then (the bridged step) an answer
#: followed by a tool message: its ``<｜tool▁outputs▁begin｜>`` (R1-0528-Qwen3's
#: ``ns.is_output_first``) is decided by the tool-call turn and the tool result four and five
#: messages back, before the window's run.
_ORPHAN_HISTORY = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather?"},
                   _call(1), {"role": "tool", "content": "sunny"}, _answer("Sunny."),
                   {"role": "user", "content": "And tomorrow?"}, _answer("Ask later."),
                   {"role": "user", "content": "Please?"}]
_ORPHAN_STEP = (_answer("Checking."), [{"role": "tool", "content": "rain"}])


def _bridge_orphan(name: str, rule: Any = None) -> Any:
    """The first prompt (:data:`_ORPHAN_HISTORY`) and the bridged step after it (with ``rule`` in
    place of the format's)."""
    tok = bpe.backend(name)
    prompt = chatformats.start(name, _ORPHAN_HISTORY, tokenizer=tok, now=FIXED_NOW)
    if rule is not None:
        prompt.context.rule = rule
    message, new = _ORPHAN_STEP
    completion = completion_of(name, list(prompt.messages), message, prompt.variables, cut=False)
    return prompt, chatformats.bridge(name, prompt, completion, new, tokenizer=tok)


@pytest.mark.parametrize("name", ["deepseek-r1-0528-qwen3", "deepseek-v3.1"])
def test_an_orphan_tool_message_takes_the_window(name: str) -> None:
    """The step renders a window (the run from the last answer, and the anchors) and is the full
    render: for R1-0528-Qwen3 a second ``<｜tool▁output▁begin｜>`` after the newline (a tool
    result already followed the last tool-call turn); for V3.1 the tool output as always."""
    prompt, turn = _bridge_orphan(name)
    assert turn is not None and turn.context.windowed
    assert turn.text == chatformats.apply_chat_template(name, turn.messages, add_generation_prompt=True,
                                                        now=FIXED_NOW)
    if name == "deepseek-r1-0528-qwen3":
        assert turn.appended.startswith("\n<｜tool▁output▁begin｜>rain")
        # the run starts at the last answer (6); the anchors: messages[0], the call, its result
        assert prompt.context.rule.start_at(turn.messages, 7) == 6
        assert prompt.context.rule.anchors(prompt.context.state, 6) == (0, 2, 3)
    else:
        assert turn.appended.startswith("<｜tool▁output▁begin｜>rain")


def test_without_the_anchors_the_window_would_answer_differently() -> None:
    """The anchors are what the argument needs: the same rule without them (V3.1's: no
    ``ns.is_output_first``) renders R1-0528-Qwen3's tool message as the first output after a
    call, which the whole render does not."""
    name = "deepseek-r1-0528-qwen3"
    _, right = _bridge_orphan(name)
    _, wrong = _bridge_orphan(name, ResetFlagsRule(head=1, lookbehind=0, outputs=False))
    assert wrong is not None and wrong.context.windowed
    assert wrong.appended != right.appended
    assert wrong.appended.startswith("<｜tool▁outputs▁begin｜>")
