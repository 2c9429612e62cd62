"""The windows that carry a loop's state (``chatformats._window``'s :class:`FlagsRule` and
:class:`ResetFlagsRule` for the DeepSeek templates, :class:`FinalRule` for gpt-oss) on rollouts
whose roles come in any order, and the window that carries a call-id index
(:class:`ToolNameRule`, Solar Open) on rollouts that reuse call ids.

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

Solar Open names each tool response by every call in the conversation that carries its id, later
ones included: its rollouts draw call ids from a pool of three, so calls reuse ids, tool
responses match no call, several calls or a call that arrives after them (in the sampled turn or
among the new messages); assistant messages with ``reasoning`` among the new messages, user and
(now and then) system messages, and the three ``think_render_option`` values.  The same law, and
two mutants of the rule (without the anchors its call index gives, without its check of a new
call against earlier responses) that answer differently.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

import chatformats
from chatformats._window import RULES, FinalRule, FlagsRule, ResetFlagsRule, ToolNameRule

from . import bpe, budget
from .oracle import FIXED_NOW
from .test_bridge import (TOOL, completion_of, first_prompt, full_path, has_parser, read_back,
                          reasoning_key, rich_assistant, rich_follow_up, same_turn, texts)

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


def step(name: str, prompt: Any, completion: str, new: list[Any], given_message: Any,
         policy: str = "template") -> Any:
    """The bridge's answer under ``policy`` from the window and from the whole render (each an
    answer or the error), checked equal; the window's."""
    tok = bpe.backend(name)
    outcomes = []
    for start in (prompt, full_path(prompt)):
        try:
            outcomes.append(chatformats.bridge(name, start, completion, new, tokenizer=tok,
                                               message=given_message, policy=policy))
        except chatformats.ChatFormatError as exc:
            outcomes.append(exc)
    turn, slow = outcomes
    if isinstance(turn, Exception) or isinstance(slow, Exception):
        assert (type(turn), str(turn)) == (type(slow), str(slow))
        return turn
    windowed = turn.context.windowed if turn is not None and turn.context else None
    said = f"window={windowed}"
    if policy == "sampled":
        said += f" rewritten={turn is not None and turn.rewritten is not None}"
    note(said)
    event(said)
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
        message = data.draw(rich_assistant(name.startswith("deepseek"), reasoning_key(name)),
                            label="sampled message")
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
                parsed = given_message or read_back(name, chatformats.parse_response(
                    name, completion, prefix=prompt.appended, tools=prompt.variables.get("tools")))
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


# ---------------------------------------------------------------- Solar Open: the call-id index

SOLAR = "solar-open"
#: Few ids, so that calls reuse them and tool responses meet none, one or several calls.
CALL_IDS = st.sampled_from(["a1", "b2", "c3"])
TOOL_NAMES = st.sampled_from(["get_weather", "lookup"])


@st.composite
def solar_calls(draw: st.DrawFn) -> list[dict[str, Any]]:
    return [{"id": draw(CALL_IDS), "type": "function", "function": {
        "name": draw(TOOL_NAMES), "arguments": {"city": draw(st.sampled_from(["Oslo", "Bergen"]))}}}
        for _ in range(draw(st.integers(1, 2)))]


@st.composite
def solar_sampled(draw: st.DrawFn) -> dict[str, Any]:
    """The sampled turn: tool calls (ids from the pool) or content, now and then with reasoning
    (which the parser reads back into ``reasoning``, the field the template reads)."""
    message: dict[str, Any] = {"role": "assistant", "content": draw(texts)}
    if draw(st.booleans()):
        message = {"role": "assistant", "content": "", "tool_calls": draw(solar_calls())}
    if draw(st.integers(0, 3)) == 0:
        message["reasoning"] = draw(texts)
    return message


@st.composite
def solar_message(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["tool", "tool", "tool", "user", "assistant", "system"]))
    if kind == "tool":
        return {"role": "tool", "tool_call_id": draw(CALL_IDS), "content": draw(texts)}
    if kind == "assistant":  # with reasoning
        message: dict[str, Any] = {"role": "assistant", "content": draw(texts), "reasoning": draw(texts)}
        if draw(st.booleans()):
            message["content"] = ""
            message["tool_calls"] = draw(solar_calls())
        return message
    if kind == "system" and draw(st.integers(0, 3)) == 0:
        return {"role": "system", "content": draw(texts)}
    return {"role": "user", "content": draw(texts)}


@settings(max_examples=budget.per_format(300))
@given(data=st.data())
def test_the_solar_window_is_the_full_render(data: st.DataObject) -> None:
    name = SOLAR
    tok = bpe.backend(name)
    variables: dict[str, Any] = {}
    if data.draw(st.booleans(), label="tools"):
        variables["tools"] = [TOOL]
    option = data.draw(st.sampled_from([None, "all", "none"]), label="think_render_option")
    if option is not None:
        variables["think_render_option"] = option
    messages: list[Any] = []
    if data.draw(st.booleans(), label="system"):
        messages.append({"role": "system", "content": data.draw(texts)})
    messages.append({"role": "user", "content": data.draw(texts)})
    prompt = chatformats.start(name, messages, tokenizer=tok, now=FIXED_NOW, **variables)
    for _ in range(data.draw(st.integers(1, 10), label="steps")):
        message = data.draw(solar_sampled(), label="sampled message")
        completion = completion_of(name, list(prompt.messages), message, prompt.variables,
                                   cut=data.draw(st.integers(0, 5), label="cut") == 0)
        if completion is None:
            return
        new = [data.draw(solar_message(), label="new message") for _ in range(data.draw(st.integers(1, 3)))]
        turn = step(name, prompt, completion, new, None)
        if isinstance(turn, Exception):
            return
        if turn is None:  # the template renders this history differently: go on from its render
            try:
                parsed = read_back(name, chatformats.parse_response(
                    name, completion, prefix=prompt.appended, tools=prompt.variables.get("tools")))
                turn = chatformats.start(name, [*prompt.messages, parsed, *new], tokenizer=tok,
                                         now=FIXED_NOW, **variables)
            except chatformats.ChatFormatError:
                return
        prompt = turn


def _solar_call(call_id: str, tool: str = "get_weather") -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [{"id": call_id, "type": "function",
                                                                 "function": {"name": tool, "arguments": {"city": "Oslo"}}}]}


class _NoCallAnchors(ToolNameRule):
    """The rule without the anchors its call index gives: ``messages[0]`` and the last user."""

    __slots__ = ()

    def window_anchors(self, old: Any, new: Any, start: int) -> tuple[int, ...]:
        return (0,) + ((old[0],) if 1 <= old[0] < start else ())


class _NoResponseCheck(ToolNameRule):
    """The rule that does not check a new call's id against the earlier tool responses."""

    __slots__ = ()

    def keeps(self, old: Any, new: Any, k: int) -> bool:
        return old[0] == new[0] or old[1] < 0 or old[1] >= k


def _bridge_solar(history: list[Any], sampled: dict[str, Any], new: list[Any], rule: Any = None) -> Any:
    """The first prompt and the bridged step after it (with ``rule`` in place of the format's),
    and the same step from the whole render."""
    tok = bpe.backend(SOLAR)
    prompt = chatformats.start(SOLAR, history, tokenizer=tok, now=FIXED_NOW)
    if rule is not None:
        prompt.context.rule = rule
    completion = completion_of(SOLAR, list(prompt.messages), sampled, prompt.variables, cut=False)
    return (chatformats.bridge(SOLAR, prompt, completion, new, tokenizer=tok),
            chatformats.bridge(SOLAR, full_path(prompt), completion, new, tokenizer=tok))


#: A call, then user turns and an answer; the bridged step answers and the tool response for
#: that call (four messages back, before the window's run) arrives: its name is the call's.
_LATE_RESPONSE = ([{"role": "user", "content": "Weather?"}, _solar_call("a1"),
                   {"role": "user", "content": "Wait."}, _answer("Waiting."),
                   {"role": "user", "content": "Now?"}],
                  _answer("Checking."), [{"role": "tool", "tool_call_id": "a1", "content": "sunny"}])

#: A call and its response, then user turns; the sampled step calls with the same id again:
#: the earlier response's name becomes both calls' names, so the history is rendered differently.
_REUSED_ID = ([{"role": "user", "content": "Weather?"}, _solar_call("a1"),
               {"role": "tool", "tool_call_id": "a1", "content": "sunny"},
               {"role": "user", "content": "And tomorrow?"}, _answer("Let me see."),
               {"role": "user", "content": "Please?"}],
              _solar_call("a1", "lookup"), [{"role": "tool", "tool_call_id": "a1", "content": "rain"}])


def test_a_late_tool_response_takes_the_window_with_its_call() -> None:
    """The window holds the call the new response is named by (an anchor from the call index)
    and is the full render; without those anchors it names the response by nothing."""
    history, sampled, new = _LATE_RESPONSE
    turn, slow = _bridge_solar(history, sampled, new)
    assert turn is not None and turn.context.windowed
    same_turn(turn, slow)
    assert "<|tool_response:begin|>a1<|tool_response:name|>get_weather<|tool_response:result|>" in turn.appended
    wrong, _ = _bridge_solar(history, sampled, new, _NoCallAnchors(head=1, lookbehind=1))
    assert wrong is not None and wrong.context.windowed
    assert "<|tool_response:begin|>a1<|tool_response:name|><|tool_response:result|>" in wrong.appended
    assert wrong.appended != turn.appended


def test_a_call_that_reuses_an_earlier_responses_id_renders_whole() -> None:
    """A new call with the id of an earlier response renames that response: the turn renders
    whole and answers ``None``, as the whole render does; without the check the window, which
    does not hold that response, answers a prompt."""
    history, sampled, new = _REUSED_ID
    turn, slow = _bridge_solar(history, sampled, new)
    assert turn is None and slow is None
    wrong, _ = _bridge_solar(history, sampled, new, _NoResponseCheck(head=1, lookbehind=1))
    assert wrong is not None and wrong.context.windowed


def test_turns_bridged_from_one_solar_prompt_keep_their_own_index() -> None:
    """Two turns extended from one prompt (parallel samples) with different calls: each one's
    next turn names its own call's response (a state is never changed by a later advance)."""
    tok = bpe.backend(SOLAR)
    history = [{"role": "user", "content": "Weather?"}, _answer("Which city?"),
               {"role": "user", "content": "Oslo."}, _answer("Checking."), {"role": "user", "content": "Go."}]
    prompt = chatformats.start(SOLAR, history, tokenizer=tok, now=FIXED_NOW)
    branches = []
    for tool in ("get_weather", "lookup"):
        sampled = _solar_call("a1", tool)
        completion = completion_of(SOLAR, list(prompt.messages), sampled, prompt.variables, cut=False)
        branches.append(chatformats.bridge(SOLAR, prompt, completion,
                                           [{"role": "user", "content": "Hm."}], tokenizer=tok))
    for branch, tool in zip(branches, ("get_weather", "lookup")):
        assert branch is not None
        completion = completion_of(SOLAR, list(branch.messages), _answer("Asking."), branch.variables, cut=False)
        for _ in range(2):  # two answers, so that the call lies before the window's run
            branch = chatformats.bridge(SOLAR, branch, completion, [{"role": "user", "content": "Go on."}],
                                        tokenizer=tok)
            assert branch is not None
        turn = chatformats.bridge(SOLAR, branch, completion,
                                  [{"role": "tool", "tool_call_id": "a1", "content": "sunny"}], tokenizer=tok)
        assert turn is not None and turn.context.windowed
        assert f"<|tool_response:name|>{tool}<|tool_response:result|>" in turn.appended
        assert turn.text == chatformats.apply_chat_template(SOLAR, turn.messages, add_generation_prompt=True,
                                                            now=FIXED_NOW)


def test_a_branch_grows_its_own_call_index() -> None:
    """A chain of states grows one index in place; a second state advanced from the same one
    (a branch) gets its own, which holds none of the first branch's calls or responses, and the
    state it was advanced from still reads only its own messages."""
    rule = RULES[SOLAR]
    history: list[Any] = [{"role": "user", "content": "Weather?"}, _answer("Which city?")]
    root = rule.start(history)
    first = [*history, _solar_call("a1"), {"role": "tool", "tool_call_id": "a1", "content": "sunny"}]
    second = [*history, _solar_call("b2"), {"role": "tool", "tool_call_id": "c3", "content": "rain"}]
    one = rule.advance(root, first, 2)
    two = rule.advance(root, second, 2)
    assert one[2] is root[2]  # grown in place
    assert two[2] is not root[2]  # a branch: copied
    assert one[2].calls == {"a1": [2]} and one[2].responses == {"a1": 3}
    assert two[2].calls == {"b2": [2]} and two[2].responses == {"c3": 3}
    assert rule.window_anchors(one, rule.advance(one, [*first, _answer("Ok."), _answer("Ok."),
                                                        {"role": "tool", "tool_call_id": "a1", "content": "x"}], 4), 4) == (0, 2)
    # the root reads as of its own count: the new call reuses no id of its responses
    assert rule.keeps(root, one, 1)


def test_a_solar_turn_that_reasons_extends_its_prompt() -> None:
    """Solar's template reads reasoning from ``reasoning`` (which the pipeline never fills from
    ``reasoning_content``): the bridge reads the sampled reasoning back into it, so a tool-call
    turn that reasons is an extension of its prompt, equal to the full render."""
    name = "solar-open"
    tok = bpe.backend(name)
    prompt = chatformats.start(name, [{"role": "user", "content": "Weather in Oslo?"}], tokenizer=tok,
                               tools=[TOOL], now=FIXED_NOW)
    sampled = {"role": "assistant", "content": "", "reasoning": "Ask the tool.",
               "tool_calls": [{"id": "c1", "type": "function",
                               "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}
    completion = completion_of(name, list(prompt.messages), sampled, prompt.variables, cut=False)
    assert completion is not None and "Ask the tool." in completion
    new = [{"role": "tool", "tool_call_id": "c1", "content": "Sunny."}]
    turn = chatformats.bridge(name, prompt, completion, new, tokenizer=tok)
    assert turn is not None and turn.rewritten is None
    full = chatformats.apply_chat_template(name, [*prompt.messages, sampled, *new], tools=[TOOL],
                                           add_generation_prompt=True, now=FIXED_NOW)
    assert turn.text == full and turn.messages[-2] == sampled


# ---------------------------------------------------------------- the sampled policy's window

#: Every format with a window rule.
WINDOWED = sorted(RULES)


def sampled_rollout(name: str, data: st.DataObject, steps: int) -> None:
    """A rollout bridged under ``policy="sampled"``, each step from the window and from the
    whole render (:func:`step` with ``policy="sampled"``); the new messages are :func:`rich_follow_up`'s or,
    for the formats whose rules carry loop flags, :func:`new_messages`' (any roles), or now and
    then none (the next turn sampled at once)."""
    tok = bpe.backend(name)
    flags = isinstance(RULES[name], (FlagsRule, FinalRule))
    first = first_prompt(name, data, tok)
    if first is None:
        return
    prompt = first[0]
    for _ in range(data.draw(st.integers(1, steps), label="steps")):
        message = data.draw(rich_assistant(name.startswith("deepseek"), reasoning_key(name)),
                            label="sampled message")
        completion = completion_of(name, list(prompt.messages), message, prompt.variables,
                                   cut=data.draw(st.integers(0, 5), label="cut") == 0)
        if completion is None:
            return
        if data.draw(st.integers(0, 5), label="no new message") == 0:
            new = []  # the model samples the next turn at once: the window's run is the completion
        elif flags and data.draw(st.booleans(), label="any roles"):
            new = data.draw(new_messages(), label="new messages")
        else:
            new = data.draw(rich_follow_up(message), label="new messages")
        given_message = None if has_parser(name) else message
        turn = step(name, prompt, completion, new, given_message, policy="sampled")
        if turn is None or isinstance(turn, Exception):
            return
        prompt = turn


@pytest.mark.parametrize("name", WINDOWED)
@settings(max_examples=budget.per_format(40, floor=25))
@given(data=st.data())
def test_the_sampled_window_is_the_full_render(name: str, data: st.DataObject) -> None:
    """Under ``policy="sampled"``, once a turn has been rewritten the bridge answers from the
    windows (``_Context.sampled``): at every step of a rollout of up to eight, exactly what the
    whole conversation's render gives (text, ids, messages, appended, ``rewritten``, or ``None``,
    or the same error)."""
    sampled_rollout(name, data, 8)


_R1_CALL = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
    "name": "get_weather", "arguments": '{"city": "Oslo", "days": 1}'}}]}
#: A call (its completion cut before its end-of-turn), its result, an answer and a user turn,
#: then a second call: R1's ``ns.is_first`` for it is set by the first call, before the window's
#: run (an anchor).
_R1_STEPS = [(_R1_CALL, [{"role": "tool", "content": "Sunny"}], True),
             ({"role": "assistant", "content": "Sunny"}, [{"role": "user", "content": "Sunny"}], False),
             (_R1_CALL, [{"role": "tool", "content": "Sunny"}], False)]


def _sampled_r1(rule: Any = None) -> list[tuple[Any, Any]]:
    """:data:`_R1_STEPS` bridged under ``policy="sampled"`` (with ``rule`` in place of the
    format's), each step from the window and from the whole render."""
    name = "deepseek-r1"
    tok = bpe.backend(name)
    prompt = chatformats.start(name, [{"role": "user", "content": "Sunny"}], tokenizer=tok, now=FIXED_NOW)
    if rule is not None:
        prompt.context.rule = rule
    out = []
    for message, new, cut in _R1_STEPS:
        completion = completion_of(name, list(prompt.messages), message, prompt.variables, cut=cut)
        turn, slow = (chatformats.bridge(name, start, completion, new, tokenizer=tok, policy="sampled")
                      for start in (prompt, full_path(prompt)))
        out.append((turn, slow))
        prompt = turn
    return out


class _NoFlagAnchors(FlagsRule):
    """R1's rule without the anchors its flags give (``messages[0]`` only)."""

    __slots__ = ()

    def anchors(self, old: Any, start: int) -> tuple[int, ...]:
        return tuple(range(min(self.head, start)))


def test_the_sampled_window_needs_the_flag_anchors() -> None:
    """Every step is rewritten (the cut call's end-of-turn is written as context, R1 drops the
    reasoning markers of earlier turns); the last one is answered from the windows, as the whole
    render answers.  The same rule without its anchors answers it differently from the windows."""
    steps = _sampled_r1()
    for turn, slow in steps:
        assert turn is not None and turn.rewritten is not None
        same_turn(turn, slow)
    assert steps[-1][0].context.windowed
    wrong, slow = _sampled_r1(_NoFlagAnchors(head=1, lookbehind=0, calls="key"))[-1]
    assert wrong.context.windowed and wrong.rewritten == slow.rewritten
    assert wrong.appended != slow.appended


def test_a_sampled_rollout_takes_the_window() -> None:
    """``benchmarks.rollout``'s DeepSeek-R1 rollout (every turn rewritten): from the fourth turn on
    each one is answered from the windows (the first: the run would start at the first message;
    the next two: the rewrite lies where the windows do not place it), and every one is what the
    whole render gives."""
    from benchmarks import rollout

    for name in ("deepseek-r1", "deepseek-r1-2025-01"):
        first, sampled, new = rollout.rollout(name, 8)
        turn = chatformats.start(name, first, tools=[rollout.TOOL], now=rollout.NOW)
        history = list(first)
        windowed = []
        for message, more in zip(sampled, new):
            completion = rollout.completion_text(name, history, message)
            fast = chatformats.bridge(name, turn, completion, more, policy="sampled")
            same_turn(fast, chatformats.bridge(name, full_path(turn), completion, more, policy="sampled"))
            assert fast.rewritten is not None
            windowed.append(fast.context.windowed)
            history += [message, *more]
            turn = fast
        assert windowed == [False] * 3 + [True] * 4, name


def test_a_rewrite_in_the_windows_run_renders_whole() -> None:
    """A Qwen3 turn sampled with a blank line after its empty think block is rewritten inside its
    own turn (the template strips the content's leading newlines); the next turn is sampled at
    once, so that turn is iteration ``k`` of the step after it, where the offset lies past what the
    windows can place (``L - len(R(W_A))``): that step renders whole, and its ``rewritten`` is
    where the empty think block, dropped once the turn is not last, departs (before the first
    rewrite).  Taking the windows' offset there would report the first rewrite's."""
    name = "qwen3"
    tok = bpe.backend(name)
    prompt = chatformats.start(name, [{"role": "user", "content": "Q1"}, {"role": "assistant", "content": "A1"},
                                      {"role": "user", "content": "Q2"}], tokenizer=tok, now=FIXED_NOW)
    first = chatformats.bridge(name, prompt, "<think>\n\n</think>\n\n\nHi<|im_end|>", [], tokenizer=tok,
                               policy="sampled")
    assert first is not None and first.rewritten is not None
    new = [{"role": "user", "content": "Q3"}]
    turn, slow = (chatformats.bridge(name, start, "<think>\n\n</think>\n\nOk.<|im_end|>", new, tokenizer=tok,
                                     policy="sampled") for start in (first, full_path(first)))
    same_turn(turn, slow)
    assert not turn.context.windowed and turn.rewritten < first.rewritten
    assert turn.text[turn.rewritten:].startswith("<think>")
