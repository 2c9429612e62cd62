"""The laws of the bridge (``chatformats.bridge``) and of prefix stability, for every format, on
rollouts Hypothesis draws (``tests/bpe.py``'s tokenizers):

A rollout starts from a user turn (after a system message or not); at each step the "model"
samples an assistant message (content, reasoning, tool calls, each present or not) whose
completion is the text the format's spans say the model generates for it (the assistant range of
the conversation rendered with it: from the end of the generation prompt to the end-of-turn
token), now and then cut before its end-of-turn; then tool results or a user turn follow.

1. **Whenever the bridge answers, it is the full render**: its text is the previous prompt, the
   completion, and then exactly what ``apply_chat_template`` of the whole conversation (the
   completion read back by ``parse_response``) appends after them; its ids are the previous ids,
   the completion's and the encoding of that appended text, and where the sampled text ends next
   to a control token those are the full encoding's last ids.
2. **Whenever the full render rewrites the history, it answers ``None``** (the ``"template"``
   policy), and under ``"sampled"`` it keeps the sampled text, says where the render departs
   (``rewritten``) and appends the render's text from the end of the completion's turn.
3. **Prefix stability**: ``prefix_stable``'s answers hold on the drawn histories: an append it
   calls stable keeps the earlier render as a prefix.
4. **The window is the full render**: the bridge's bounded window (``chatformats._window``)
   answers exactly what the whole conversation's render answers (text, ids, messages, appended,
   ``rewritten``, or ``None``), at every step of longer rollouts that mix tool results, user
   turns (real queries and ones that only wrap a tool response), reasoning written in the content,
   and images; and the formats with a window rule take it on a tool-agent rollout every turn
   once the history is longer than the window.

Examples per format under the ``ci`` profile: :data:`PER_FORMAT` rollouts of up to four steps
(each step renders the conversation three or four times and parses once).
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import chatformats
from chatformats.ids import _message_of
from chatformats.parsing import family

from . import budget
from . import bpe
from .conftest import ci_profile
from .oracle import FIXED_NOW

FORMATS = chatformats.formats()
PER_FORMAT = budget.per_format(40)

TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the weather.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                   "required": ["city"]}}}

words = st.sampled_from(["Sunny", " and", " warm", ".", "\n\n", "\n", " ", "Oslo", "21 °C", "中文",
                         "🙂", "x", "Let me", " check", "{", "}", '"', "ok"])
texts = st.lists(words, min_size=1, max_size=6).map("".join)


@st.composite
def assistant(draw: st.DrawFn, text_arguments: bool = False,
              field: str = "reasoning_content") -> dict[str, Any]:
    """An assistant message; with ``text_arguments`` its call's arguments are JSON text (the
    DeepSeek templates concatenate them); its reasoning, now and then, under ``field``."""
    message: dict[str, Any] = {"role": "assistant", "content": draw(texts)}
    if draw(st.booleans()):
        message[field] = draw(texts)
    if draw(st.sampled_from([True, False])):
        message["content"] = ""
        arguments: Any = {"city": draw(st.sampled_from(["Oslo", "Bergen"])), "days": draw(st.integers(1, 3))}
        if text_arguments:
            arguments = json.dumps(arguments)
        message["tool_calls"] = [{"type": "function", "function": {
            "name": "get_weather", "arguments": arguments}}]
    return message


@st.composite
def follow_up(draw: st.DrawFn, message: dict[str, Any]) -> list[dict[str, Any]]:
    """A tool call's results (one, or two: the second after the first), else a user turn; now
    and then a user turn after a tool call too (an agent interrupted)."""
    if message.get("tool_calls") and draw(st.sampled_from([True, True, True, False])):
        results = [{"role": "tool", "name": "get_weather", "content": draw(texts)}]
        if draw(st.booleans()):
            results.append({"role": "tool", "name": "get_weather", "content": draw(texts)})
        return results
    return [{"role": "user", "content": draw(texts)}]


def completion_of(name: str, history: list[Any], message: dict[str, Any], variables: dict[str, Any],
                  cut: bool) -> str | None:
    """The text the model generates for ``message`` after ``history``'s generation prompt: the
    last assistant range of the conversation rendered with it; cut before its closing template
    text when ``cut``."""
    try:
        rendering = chatformats.apply_chat_template_spans(name, [*history, message], **variables)
    except chatformats.ChatFormatError:
        return None
    if not rendering.assistant_spans:
        return None
    start, end = rendering.assistant_spans[-1]
    text = rendering.text[start:end]
    if cut:
        index = len(history)
        last = max((span.end for span in rendering.spans
                    if _message_of(span.source) == index and span.end <= end), default=end)
        text = rendering.text[start:max(start, last)]
    return text


def reasoning_key(name: str) -> str:
    """The field a sampled turn's reasoning is given in: the one the format's template reads,
    where the pipeline does not fill it from ``reasoning_content`` (Solar's ``reasoning``)."""
    field = chatformats.get_format(name).reasoning_field
    return "reasoning_content" if field == "thinking" else field


def read_back(name: str, parsed: dict[str, Any]) -> dict[str, Any]:
    """The parsed completion with its reasoning in :func:`reasoning_key`'s field."""
    field = reasoning_key(name)
    if field == "reasoning_content" or "reasoning_content" not in parsed:
        return parsed
    moved = {key: value for key, value in parsed.items() if key != "reasoning_content"}
    moved[field] = parsed["reasoning_content"]
    return moved


def has_parser(name: str) -> bool:
    try:
        family(name)
        return True
    except chatformats.ChatFormatError:
        return False


def full_path(prompt: Any) -> Any:
    """``prompt`` with its context's window rule removed: its bridge renders the whole
    conversation."""
    return prompt if prompt.context is None else prompt._replace(context=prompt.context.full())


def same_turn(a: Any, b: Any) -> None:
    assert (a is None) == (b is None)
    if a is not None:
        assert (a.text, a.ids, a.messages, a.appended, a.rewritten) == \
            (b.text, b.ids, b.messages, b.appended, b.rewritten)


def assert_bridge_laws(name: str, prompt: Any, completion: str, message: dict[str, Any],
                       new: list[Any], tok: Any, as_ids: bool = False) -> Any:
    """The laws for one step; with ``as_ids`` the completion is given as its token ids (as a
    sampler returns them), which the bridge keeps as they are."""
    given_message = None if has_parser(name) else message
    sampled_ids = tok.encode(completion, add_special_tokens=False).ids
    turn = chatformats.bridge(name, prompt, sampled_ids if as_ids else completion, new, tokenizer=tok,
                              message=given_message)
    # the window answers what the whole render answers
    same_turn(turn, chatformats.bridge(name, full_path(prompt), sampled_ids if as_ids else completion,
                                       new, tokenizer=tok, message=given_message))
    sampled = prompt.text + completion
    try:
        parsed = given_message or read_back(name, chatformats.parse_response(
            name, completion, prefix=prompt.appended, tools=prompt.variables["tools"]))
    except chatformats.ParseError:  # not a turn of the format (cut inside a tool call): no answer
        assert turn is None
        return None
    history = [*prompt.messages, parsed, *new]
    full = chatformats.apply_chat_template(name, history, add_generation_prompt=True, **prompt.variables)
    sampled_turn = chatformats.bridge(name, prompt, completion, new, tokenizer=tok,
                                      message=given_message, policy="sampled")
    note(f"sampled={sampled!r}\nfull={full!r}")
    if full.startswith(sampled) and prompt.rewritten is None:
        assert turn is not None
        assert turn.text == full and turn.appended == full[len(sampled):]
        assert turn.rewritten is None
        appended_ids = tok.encode(turn.appended, add_special_tokens=False).ids
        completion_ids = tok.encode(completion, add_special_tokens=False).ids
        assert turn.ids == [*prompt.ids, *completion_ids, *appended_ids]
        # Next to a control token the encoding splits: the full encoding ends the same way.
        encoding = tok.encode(full, add_special_tokens=False)
        controls = bpe.control_ids(name)
        n = len(sampled)
        boundary = [i for i, (s_, _) in enumerate(encoding.offsets) if s_ >= n]
        if boundary and appended_ids:
            k = boundary[0]
            if k and encoding.offsets[k - 1][1] == n and (
                    encoding.ids[k - 1] in controls or encoding.ids[k] in controls):
                assert encoding.ids[k:] == appended_ids
        assert sampled_turn == turn
        # the turn's kept context (the converted messages) gives what the full pipeline gives
        slow = chatformats.bridge(name, prompt._replace(context=None), sampled_ids if as_ids else completion,
                                  new, tokenizer=tok, message=given_message)
        assert slow is not None and (slow.text, slow.ids) == (turn.text, turn.ids)
    else:
        assert turn is None
        if sampled_turn is not None:
            assert sampled_turn.text.startswith(sampled)
            assert sampled_turn.rewritten is not None and sampled_turn.rewritten <= len(sampled)
            assert full[sampled_turn.rewritten:sampled_turn.rewritten + 1] != \
                sampled[sampled_turn.rewritten:sampled_turn.rewritten + 1]
            assert full.endswith(sampled_turn.appended[-40:]) if sampled_turn.appended else True
    return turn


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=PER_FORMAT)
@given(data=st.data())
def test_bridge_is_the_full_render(name: str, data: st.DataObject) -> None:
    tok = bpe.backend(name)
    variables: dict[str, Any] = {}
    if data.draw(st.booleans(), label="tools"):
        variables["tools"] = [TOOL]
    messages: list[Any] = []
    if data.draw(st.booleans(), label="system"):
        messages.append({"role": "system", "content": data.draw(texts)})
    messages.append({"role": "user", "content": data.draw(texts)})
    try:
        prompt = chatformats.start(name, messages, tokenizer=tok, now=FIXED_NOW, **variables)
    except chatformats.ChatFormatError:
        return
    for _ in range(data.draw(st.integers(1, 4), label="steps")):
        message = data.draw(assistant(name.startswith("deepseek"), reasoning_key(name)),
                            label="sampled message")
        completion = completion_of(name, list(prompt.messages), message, prompt.variables,
                                   cut=data.draw(st.integers(0, 3), label="cut") == 0)
        if completion is None:
            return
        new = data.draw(follow_up(message), label="new messages")
        turn = assert_bridge_laws(name, prompt, completion, message, new, tok,
                                  as_ids=data.draw(st.booleans(), label="completion as ids"))
        if turn is None:
            return
        prompt = turn


@st.composite
def rich_assistant(draw: st.DrawFn, text_arguments: bool,
                   field: str = "reasoning_content") -> dict[str, Any]:
    """:func:`assistant`, or one whose reasoning is written in its content (``<think>`` ...
    ``</think>``), which the Qwen3 templates split."""
    message = draw(assistant(text_arguments, field))
    if field not in message and draw(st.booleans()):
        message["content"] = f"<think>\n{draw(texts)}\n</think>\n\n{message['content']}"
    return message


@st.composite
def rich_follow_up(draw: st.DrawFn, message: dict[str, Any]) -> list[dict[str, Any]]:
    """:func:`follow_up`, or a user turn that only wraps a tool response (not a query, to the
    Qwen3 scan), one with content parts (an image among them, now and then), or a system
    message in the middle."""
    kind = draw(st.sampled_from(["plain", "plain", "plain", "wrapped", "parts", "system"]))
    if kind == "wrapped":
        return [{"role": "user", "content": f"<tool_response>\n{draw(texts)}\n</tool_response>"}]
    if kind == "parts":
        parts: list[Any] = [{"type": "text", "text": draw(texts)}]
        if draw(st.booleans()):
            parts.append({"type": "image"})
        return [{"role": "user", "content": parts}]
    if kind == "system":
        return [{"role": "system", "content": draw(texts)}, {"role": "user", "content": draw(texts)}]
    return draw(follow_up(message))


def first_prompt(name: str, data: st.DataObject, tok: Any) -> tuple[Any, dict[str, Any]] | None:
    """A rollout's first turn, drawn, and the variables it was started with: the tool or none,
    a system message or none, then a user message (``None`` where the template refuses it)."""
    variables: dict[str, Any] = {"tools": [TOOL]} if data.draw(st.booleans(), label="tools") else {}
    messages: list[Any] = []
    if data.draw(st.booleans(), label="system"):
        messages.append({"role": "system", "content": data.draw(texts)})
    messages.append({"role": "user", "content": data.draw(texts)})
    try:
        return chatformats.start(name, messages, tokenizer=tok, now=FIXED_NOW, **variables), variables
    except chatformats.ChatFormatError:
        return None


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=budget.per_format(40, floor=25))
@given(data=st.data())
def test_window_is_the_full_render(name: str, data: st.DataObject) -> None:
    """Law 4 on rollouts of up to eight steps; where the bridge answers ``None`` the rollout goes
    on from :func:`chatformats.start` of the whole conversation (a window state built at once)."""
    tok = bpe.backend(name)
    first = first_prompt(name, data, tok)
    if first is None:
        return
    prompt, variables = first
    for _ in range(data.draw(st.integers(1, 8), label="steps")):
        message = data.draw(rich_assistant(name.startswith("deepseek"), reasoning_key(name)),
                            label="sampled message")
        completion = completion_of(name, list(prompt.messages), message, prompt.variables,
                                   cut=data.draw(st.integers(0, 5), label="cut") == 0)
        if completion is None:
            return
        new = data.draw(rich_follow_up(message), label="new messages")
        given_message = None if has_parser(name) else message
        outcomes = []
        for start in (prompt, full_path(prompt)):
            try:
                outcomes.append(chatformats.bridge(name, start, completion, new, tokenizer=tok,
                                                   message=given_message))
            except chatformats.ChatFormatError as exc:  # the full render fails: both fail so
                outcomes.append(exc)
        turn, slow = outcomes
        if isinstance(turn, Exception) or isinstance(slow, Exception):
            assert (type(turn), str(turn)) == (type(slow), str(slow))
            return
        note(f"window={turn.context.windowed if turn is not None and turn.context else None}")
        same_turn(turn, slow)
        if turn is None:
            try:
                parsed = given_message or read_back(name, chatformats.parse_response(
                    name, completion, prefix=prompt.appended, tools=prompt.variables.get("tools")))
                turn = chatformats.start(name, [*prompt.messages, parsed, *new], tokenizer=tok,
                                         now=FIXED_NOW, **variables)
            except chatformats.ChatFormatError:
                return
        prompt = turn


def _tool_agent(name: str, turns: int) -> list[Any]:
    """A tool-agent rollout's bridged turns (``None`` where the bridge gives no answer): a user
    question, then tool calls with reasoning and their results."""
    tok = bpe.backend(name)
    prompt = chatformats.start(name, [{"role": "system", "content": "Be brief."},
                                      {"role": "user", "content": "Weather in Oslo?"}],
                               tokenizer=tok, tools=[TOOL], now=FIXED_NOW)
    out = []
    for i in range(turns):
        arguments: Any = {"city": "Oslo", "days": i + 1}
        if name.startswith("deepseek"):  # the DeepSeek templates concatenate the arguments
            arguments = f'{{"city": "Oslo", "days": {i + 1}}}'
        message = {"role": "assistant", "content": "", "reasoning_content": f"Step {i}.",
                   "tool_calls": [{"id": f"call_{i}", "type": "function",
                                   "function": {"name": "get_weather", "arguments": arguments}}]}
        completion = completion_of(name, list(prompt.messages), message, prompt.variables, cut=False)
        assert completion is not None, name
        result = {"role": "tool", "tool_call_id": f"call_{i}", "name": "get_weather", "content": f"sunny {i}"}
        turn = chatformats.bridge(name, prompt, completion, [result],
                                  tokenizer=tok, message=None if has_parser(name) else message)
        out.append(turn)
        if turn is None:
            break
        prompt = turn
    return out


@pytest.mark.parametrize("name", FORMATS)
def test_the_window_is_taken(name: str) -> None:
    """The formats with a window rule render a window on every turn of a tool-agent rollout once
    the history is longer than the window (the first bridged turns render whole); the others never
    do.  Where the bridge answers ``None`` (a format that rewrites this history), nothing is
    claimed but that no answer came from a window."""
    from chatformats._window import RULES

    turns = _tool_agent(name, 6)
    answered = [turn for turn in turns if turn is not None]
    if name in RULES and len(answered) == len(turns):
        assert [turn.context.windowed for turn in answered[2:]] == [True] * (len(answered) - 2), name
    else:
        assert not any(turn.context is not None and turn.context.windowed for turn in answered), name
    if name in ("qwen3-thinking-2507", "qwen3-instruct-2507", "llama-3.2-vision-2024-12", "cogito"):
        assert len(answered) == len(turns)  # the benchmark's formats keep this history


def test_a_turn_the_rule_cannot_follow_renders_whole_then_the_window_returns() -> None:
    """A new message with an image may change Llama 3.2 Vision's system block: that turn renders
    the whole conversation (and is its render); the state is then the whole conversation's, and
    the next turn renders a window again."""
    name = "llama-3.2-vision-2024-12"
    tok = bpe.backend(name)
    turn = _tool_agent(name, 4)[-1]
    assert turn.context.windowed
    for new, windowed in (([{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "This?"}]}], False),
                          ([{"role": "user", "content": "And now?"}], True)):
        message = {"role": "assistant", "content": "Sunny."}
        completion = completion_of(name, list(turn.messages), message, turn.variables, cut=False)
        turn = chatformats.bridge(name, turn, completion, new, tokenizer=tok)
        assert turn is not None and turn.context.windowed is windowed
        assert turn.text == chatformats.apply_chat_template(name, turn.messages, add_generation_prompt=True,
                                                            **turn.variables)


def test_joined_values_are_the_values() -> None:
    """A turn's text, ids and messages are joined when read; the turn compares, pickles and
    replaces as if they were plain values, and an earlier turn is not changed by a later one."""
    import pickle

    name = "qwen3-instruct-2507"
    turns = _tool_agent(name, 5)
    first, last = turns[0], turns[-1]
    assert last.text.startswith(first.text) and last.ids[:len(first.ids)] == first.ids
    before = (first.text, list(first.ids), first.messages)
    again = chatformats.bridge(name, turns[2], "Done.<|im_end|>", [{"role": "user", "content": "ok"}],
                               tokenizer=bpe.backend(name))  # a branch from an earlier turn
    assert again is not None and again.text.startswith(turns[2].text)
    assert (first.text, first.ids, first.messages) == before
    assert pickle.loads(pickle.dumps(last)) == last
    assert last._replace(context=None).ids == last.ids
    assert len(last.messages) == 2 + 2 * 5


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=PER_FORMAT)
@given(history=st.lists(st.one_of(assistant(), st.fixed_dictionaries(
    {"role": st.just("user"), "content": texts})), max_size=4), data=st.data())
def test_prefix_stable_holds(name: str, history: list[Any], data: st.DataObject) -> None:
    stable = chatformats.prefix_stable(name)
    variables = {"tools": [TOOL], "now": FIXED_NOW}
    base = [{"role": "user", "content": "Hi"}, *history]
    cases = []
    if base[-1]["role"] == "assistant":
        follow = data.draw(follow_up(base[-1]))
        cases.append(("tool" if follow[0]["role"] == "tool" else "user", base, follow[0], False))
    else:
        cases.append(("assistant", base, data.draw(assistant()), True))
        cases.append(("generation_prompt", base, None, False))
    for append, messages, message, prompted in cases:
        if append == "tool" and not base[-1].get("tool_calls"):
            continue
        if stable[append] is not None:
            continue
        try:
            earlier = chatformats.apply_chat_template(name, messages, add_generation_prompt=prompted, **variables)
            later = chatformats.apply_chat_template(
                name, messages if message is None else [*messages, message],
                add_generation_prompt=message is None, **variables)
        except chatformats.ChatFormatError:
            continue
        note(f"{append}: earlier={earlier!r}\nlater={later!r}")
        assert later.startswith(earlier), append


def test_a_cut_completion_gets_its_end_of_turn_as_context() -> None:
    name = "qwen3-instruct-2507"
    tok = bpe.backend(name)
    prompt = chatformats.start(name, [{"role": "user", "content": "Hi"}], tokenizer=tok, now=FIXED_NOW)
    turn = chatformats.bridge(name, prompt, "Hello, and", [{"role": "user", "content": "More?"}],
                              tokenizer=tok, message={"role": "assistant", "content": "Hello, and"})
    assert turn is not None
    assert turn.appended == "<|im_end|>\n<|im_start|>user\nMore?<|im_end|>\n<|im_start|>assistant\n"
    assert turn.ids[:len(prompt.ids)] == prompt.ids
    assert turn.text == chatformats.apply_chat_template(name, turn.messages, add_generation_prompt=True,
                                                        now=FIXED_NOW)


def test_qwen3_drops_reasoning_before_a_new_user_turn() -> None:
    name = "qwen3-thinking-2507"
    prompt = chatformats.start(name, [{"role": "user", "content": "Hi"}], now=FIXED_NOW)
    completion = "Greet.\n</think>\n\nHello!<|im_end|>"
    assert chatformats.bridge(name, prompt, completion, [{"role": "user", "content": "More?"}]) is None
    kept = chatformats.bridge(name, prompt, completion, [{"role": "user", "content": "More?"}],
                              policy="sampled")
    assert kept is not None and kept.text.startswith(prompt.text + completion)
    assert kept.rewritten is not None
    assert kept.appended == "\n<|im_start|>user\nMore?<|im_end|>\n<|im_start|>assistant\n<think>\n"
    # cut before its end-of-turn: the sampled policy writes the turn's end as prompt context
    cut = chatformats.bridge(name, prompt, completion[:-len("<|im_end|>")],
                             [{"role": "user", "content": "More?"}], policy="sampled")
    assert cut is not None and cut.rewritten is not None
    assert cut.appended == "<|im_end|>" + kept.appended
    # and later turns of the rewritten rollout (rendered whole) keep doing so
    later = chatformats.bridge(name, cut, "Again.\n</think>\n\nHi", [{"role": "user", "content": "Bye?"}],
                               policy="sampled")
    assert later is not None and later.rewritten == cut.rewritten
    assert later.appended == "<|im_end|>\n<|im_start|>user\nBye?<|im_end|>\n<|im_start|>assistant\n<think>\n"
    # a tool result keeps the reasoning: the template renders the history as sampled
    tool_prompt = chatformats.start(name, [{"role": "user", "content": "Hi"}], now=FIXED_NOW,
                                    tools=[TOOL])
    call = ('Ask.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n'
            '</tool_call><|im_end|>')
    turn = chatformats.bridge(name, tool_prompt, call, [{"role": "tool", "content": "sunny"}])
    assert turn is not None and turn.rewritten is None


def test_prefix_stable_names_the_reason() -> None:
    answers = chatformats.prefix_stable("qwen3-thinking-2507")
    assert answers["generation_prompt"] is None and answers["assistant"] is None
    # a later user turn drops earlier reasoning; a tool result drops the empty think block of a
    # tool call made without reasoning (it is written only for the last message)
    assert "offset" in answers["user"] and "offset" in answers["tool"]
    assert set(answers) == {"tool", "user", "assistant", "generation_prompt"}


def test_a_probe_the_template_refuses_says_nothing() -> None:
    """Llama's templates refuse two calls in one turn (one of the sampling step's probes): that is
    no render to keep as a prefix, so the step is stable as its other probes show; a format whose
    every probe is refused says so."""
    for name in ("llama-3.1", "llama-3.2", "llama-3.2-vision-2024-09", "llama-3.2-vision-2024-12"):
        assert chatformats.prefix_stable(name)["assistant"] is None, name
        user = [{"role": "user", "content": "Weather in Oslo?"}]
        call = {"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}
        earlier = chatformats.apply_chat_template(name, user, add_generation_prompt=True, tools=[TOOL],
                                                  now=FIXED_NOW)
        later = chatformats.apply_chat_template(name, [*user, call], tools=[TOOL], now=FIXED_NOW)
        assert later.startswith(earlier)
    answers = chatformats.prefix_stable("qwen3-instruct-2507", tools=[1])  # not a tool
    assert all(answer is not None and answer.startswith("no probe renders") for answer in answers.values())


def test_the_docs_table_is_prefix_stables() -> None:
    """Each cell of ``docs/ids.md``'s table (written by ``scripts/prefix_table.py``) says what
    ``prefix_stable`` says for that format and setting."""
    import ast
    import re
    from pathlib import Path

    from chatformats.rollout import APPENDS

    page = (Path(__file__).resolve().parent.parent / "docs" / "ids.md").read_text(encoding="utf-8")
    page = page.split("<!-- prefix-table: start -->", 1)[1].split("<!-- prefix-table: end -->", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]+) \| (.*) \|$", page, re.M)
    assert {name for name, _, _ in rows} == set(FORMATS)
    spec = importlib.util.spec_from_file_location("prefix_table", Path(__file__).resolve().parent.parent
                                                  / "scripts" / "prefix_table.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    settings_seen: dict[str, list[dict[str, Any]]] = {}
    for name, setting, cells in rows:
        variables = {} if setting.strip() == "(defaults)" else dict(
            (k, ast.literal_eval(v)) for k, v in re.findall(r"`(\w+)=([^`]+)`", setting))
        settings_seen.setdefault(name, []).append(variables)
        answers = chatformats.prefix_stable(name, **variables)
        for append, cell in zip(APPENDS, cells.split(" | ")):
            assert (cell.strip() == "yes") == (answers[append] is None), (name, setting, append)
    # every setting of the variables that change what a template keeps has its row
    for name in FORMATS:
        assert settings_seen[name] == script.settings_of(chatformats.get_format(name)), name


def test_regressions_hypothesis_found() -> None:
    """A completion cut inside a tool call's JSON (llama-3.2-vision-2024-09) raises no parser
    error: the recovering reading keeps the cut call as content (nothing lost), the template
    writes that content back as sampled, so the bridge answers with the full render's text
    (under either policy); the exact reading refuses it, and the bridge then answers ``None``.
    A tool result after a tool call made without reasoning drops the empty think block
    (qwen3-tool-agent): ``prefix_stable`` says so."""
    name = "llama-3.2-vision-2024-09"
    user = {"role": "user", "content": "Sunny"}
    prompt = chatformats.start(name, [user], now=FIXED_NOW)
    cut = '{"name": "get_weather", "parameters": {"city": "Oslo", "days": 1}'
    full = chatformats.apply_chat_template(
        name, [user, {"role": "assistant", "content": cut}, user], add_generation_prompt=True,
        now=FIXED_NOW)
    for policy in ("template", "sampled"):
        turn = chatformats.bridge(name, prompt, cut, [user], policy=policy)
        assert turn is not None and turn.text == full and turn.rewritten is None
    with pytest.raises(chatformats.ParseError):
        chatformats.parse_response(name, cut, prefix=prompt.appended, strict=True)
    assert chatformats.prefix_stable("qwen3-tool-agent")["tool"] is not None


def test_the_rollout_benchmark_engines_agree() -> None:
    """``benchmarks.rollout``'s bridge gives transformers' ids at every turn (the check it makes
    before timing), on demand too; ``benchmarks.parse_ids``' cases parse on ids as expected."""
    pytest.importorskip("transformers")
    from benchmarks import parse_ids, rollout

    name = "qwen3-thinking-2507"
    case = rollout.Case(name, 6, rollout.build_tokenizer(name))
    expected = rollout.transformers_engine(case)
    assert rollout.bridge_engine(case, check=True) == expected
    assert rollout.on_demand_engine(case) == expected[-1:]
    # a format whose template rewrites every sampled turn is bridged under the sampled policy
    # (what was sampled kept verbatim: not transformers' ids)
    r1 = rollout.Case("deepseek-r1", 4, rollout.build_tokenizer("deepseek-r1"))
    assert r1.sampled_policy and not rollout.Case(name, 2, case.tokenizer).sampled_policy
    assert rollout.bridge_engine(r1, check=True) != rollout.transformers_engine(r1)
    if importlib.util.find_spec("renderers") is not None:  # renderers' bridge, for a model it has
        llama = rollout.Case("llama-3.2", 4, rollout.build_tokenizer("llama-3.2"))
        assert "llama-3.2" in rollout.shared_formats()
        assert rollout.RenderersEngine(llama)(llama) == rollout.transformers_engine(llama)
    tok = parse_ids._tokenizer(name)
    for prefix, _, ids, message in parse_ids.cases(name).values():
        assert chatformats.parse_response(name, ids, prefix=prefix, tokenizer=tok) == message


def test_turns_bridged_from_one_prompt_in_threads_keep_their_own_history() -> None:
    """Parallel samples of one prompt, each bridged in its own thread: every turn is the render
    of its own conversation (the shared message list is appended to by one of them only)."""
    from concurrent.futures import ThreadPoolExecutor

    name = "qwen3-instruct-2507"
    tok = bpe.backend(name)
    prompt = _tool_agent(name, 3)[-1]

    def one(i: int) -> Any:
        turn = prompt
        for step in range(3):
            turn = chatformats.bridge(name, turn, f"Answer {i}.{step}<|im_end|>",
                                      [{"role": "user", "content": f"Next {i}.{step}?"}], tokenizer=tok)
        return i, turn

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(16)))
    for i, turn in results:
        assert turn.messages[-1]["content"] == f"Next {i}.2?"
        assert turn.text == chatformats.apply_chat_template(name, turn.messages, add_generation_prompt=True,
                                                            **turn.variables)
        assert turn.ids[:len(prompt.ids)] == prompt.ids
        assert tok.decode(turn.ids, skip_special_tokens=False) == turn.text
