"""The fixed work around a port, as both layers do it with less of it: the clock read only for a
template that calls ``strftime_now``, the pipeline's template variables rebuilt in place.  Each
test states what the shortcut must keep: the same output, the same error, the same values
reaching the port (``benchmarks/results/overhead.md`` has what each saves)."""

from __future__ import annotations

import copy
import json
import pickle
from datetime import datetime
from pathlib import Path
from typing import Any, Dict, List

import pytest

import chatformats
from chatformats import _core, pipeline

NOW = datetime(2026, 3, 7, 14, 5, 9)
FORMATS = chatformats.formats()
CLOCKED = [name for name in FORMATS if "strftime_now" in chatformats.get_format(name).calls]
UNCLOCKED = [name for name in FORMATS if name not in CLOCKED]
WORKLOADS = Path(__file__).resolve().parent.parent / "benchmarks" / "workloads"


def workload(name: str, kind: str) -> Dict[str, Any]:
    """The benchmark's saved ``kind`` workload of format ``name`` (every format renders it)."""
    with open(WORKLOADS / name / f"{kind}.json", encoding="utf-8") as f:
        data: Dict[str, Any] = json.load(f)
    return data


def recording(name: str, seen: List[Any]) -> chatformats.ChatFormat:
    """Format ``name`` with its own port behind a function that records the ``now`` it gets."""
    registered = chatformats.get_format(name).port

    def port(messages, variables, now, spans=None):  # type: ignore[no-untyped-def]
        seen.append(now)
        return registered(messages, variables, now, spans)

    return chatformats.get_format(name).with_port(port)


def test_the_clocked_formats_are_the_ones_whose_templates_call_strftime_now() -> None:
    # ``calls`` is each template's own (tests/test_core.py proves it); these six read the time.
    assert sorted(CLOCKED) == ["gpt-oss", "llama-3.2", "llama-3.2-vision-2024-09",
                               "llama-3.2-vision-2024-12", "llama-3.2-vision-variant", "solar-open"]


@pytest.mark.parametrize("name", FORMATS)
def test_the_clock_is_read_only_where_the_template_calls_strftime_now(name: str) -> None:
    seen: List[Any] = []
    fmt = recording(name, seen)
    messages = workload(name, "short_chat")["messages"]
    chatformats.render(fmt, messages, add_generation_prompt=True)
    fmt.render(messages, add_generation_prompt=True)
    chatformats.render_spans(fmt, messages, add_generation_prompt=True)
    chatformats.apply_chat_template(fmt, messages, add_generation_prompt=True)
    chatformats.apply_chat_template_spans(fmt, messages, add_generation_prompt=True)
    assert len(seen) == 5
    for now in seen:
        if name in CLOCKED:
            assert type(now) is datetime
        else:
            assert now is _core.UNREAD_CLOCK
    # A clock the caller gives reaches every port as given, read or not.
    seen.clear()
    chatformats.render(fmt, messages, now=NOW)
    chatformats.apply_chat_template(fmt, messages, now="2026-03-07T14:05:09")
    assert seen == [NOW, NOW]


@pytest.mark.parametrize("name", UNCLOCKED)
@pytest.mark.parametrize("kind", ["short_chat", "tool_agent"])
def test_a_template_without_strftime_now_renders_the_same_without_a_clock(name: str, kind: str) -> None:
    # Every registered port of such a template renders without reading UNREAD_CLOCK (reading it
    # raises), at both layers, and prints what it prints at a fixed time.
    data = workload(name, kind)
    messages, tools = data["messages"], data.get("tools")
    assert (chatformats.render(name, messages, tools=tools, add_generation_prompt=True)
            == chatformats.render(name, messages, tools=tools, add_generation_prompt=True, now=NOW))
    assert (chatformats.apply_chat_template(name, messages, tools=tools, add_generation_prompt=True)
            == chatformats.apply_chat_template(name, messages, tools=tools, add_generation_prompt=True,
                                               now=NOW))


@pytest.mark.parametrize("name", ["qwen3", "llama-3.2"])
def test_a_bad_clock_fails_for_every_format(name: str) -> None:
    # The time is not read for qwen3, but a ``now`` that is not a clock is refused there too.
    messages = [{"role": "user", "content": "Hi"}]
    for bad in (5, "yesterday"):
        with pytest.raises(chatformats.InvalidClock):
            chatformats.render(name, messages, now=bad)
        with pytest.raises(chatformats.InvalidClock):
            chatformats.apply_chat_template(name, messages, now=bad)


def test_a_port_that_reads_the_unread_clock_is_an_internal_error() -> None:
    def port(messages, variables, now, spans=None):  # type: ignore[no-untyped-def]
        return now.strftime("%Y")

    fmt = chatformats.get_format("qwen3").with_port(port)
    messages = [{"role": "user", "content": "Hi"}]
    with pytest.raises(chatformats.InternalError, match="strftime_now"):
        chatformats.render(fmt, messages)
    with pytest.raises(chatformats.InternalError, match="strftime_now"):
        chatformats.apply_chat_template(fmt, messages)
    assert chatformats.render(fmt, messages, now=NOW) == "2026"
    assert repr(_core.UNREAD_CLOCK) == "UNREAD_CLOCK"
    # Copying or pickling it (a recorder, a worker) gives the constant back, not an error.
    assert copy.deepcopy(_core.UNREAD_CLOCK) is _core.UNREAD_CLOCK
    assert pickle.loads(pickle.dumps(_core.UNREAD_CLOCK)) is _core.UNREAD_CLOCK


class Str(str):
    pass


class Thing:
    pass


def test_the_pipeline_variables_are_transformers_plain_data() -> None:
    # The template variables are ``_plain_template_data({**special_tokens, **kwargs})``: rebuilt
    # in place while the keys are exact strings, by the whole walk from a key that is not one
    # (a bound format's special tokens may have any keys).  Either way the port sees what the
    # walk gives, in its order.
    seen: List[Dict[Any, Any]] = []
    registered = chatformats.get_format("qwen3").port

    def port(messages, variables, now, spans=None):  # type: ignore[no-untyped-def]
        seen.append(dict(variables))
        return registered(messages, variables, now, spans)

    base = chatformats.get_format("qwen3").with_port(port)
    kwargs = {"enable_thinking": Str("yes"), "extra": (Str("a"), {Str("k"): Thing()}), "flag": True}
    messages = [{"role": "user", "content": "Hi"}]
    for special in ({"eos_token": Str("<e>"), "pad_token": "<p>"},
                    {"eos_token": "<e>", 7: Str("seven"), Str("pad_token"): ["<p>"]}):
        fmt = base.bind(special)
        chatformats.apply_chat_template(fmt, messages, add_generation_prompt=True, now=NOW, **kwargs)
        expected = pipeline._plain({**special, **kwargs}, pipeline._room(0))
        expected.update(tools=None, documents=None, add_generation_prompt=True)
        got = seen.pop()
        assert list(got) == list(expected) and got == expected
        assert [type(key) for key in got] == [type(key) for key in expected]
        assert [type(value) for value in got.values()] == [type(value) for value in expected.values()]
        assert got["extra"] == ("a", {"k": "<Thing>"}) and type(got["extra"][0]) is str
