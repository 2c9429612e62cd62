"""``ChatFormat.with_port``: a copy of a format whose template layer calls another port function.
Every entry point that takes a format takes the copy and calls that function (with ``spans`` for
``render_spans``), with the same checks; the registry is left as it was."""

from __future__ import annotations

import pickle
from datetime import datetime

import pytest

import chatformats
from chatformats import _registry

NOW = datetime(2026, 3, 7, 14, 5, 9)
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"}, {"role": "user", "content": "Bye"}]
PORTED = chatformats.formats()


@pytest.mark.parametrize("name", PORTED)
def test_the_copy_renders_through_its_port_as_the_format(name: str) -> None:
    fmt = chatformats.get_format(name)
    registered = fmt.port
    calls: list[bool] = []

    def port(messages, variables, now, spans=None):  # type: ignore[no-untyped-def]
        calls.append(spans is not None)
        return registered(messages, variables, now, spans)

    copy = fmt.with_port(port)
    assert copy != fmt and copy == copy and copy.name == fmt.name
    assert chatformats.render(copy, MESSAGES, now=NOW) == chatformats.render(name, MESSAGES, now=NOW)
    assert copy.render(MESSAGES, now=NOW) == chatformats.render(name, MESSAGES, now=NOW)
    assert chatformats.render_spans(copy, MESSAGES, now=NOW) == chatformats.render_spans(name, MESSAGES, now=NOW)
    assert (chatformats.apply_chat_template(copy, MESSAGES, add_generation_prompt=True, now=NOW)
            == chatformats.apply_chat_template(name, MESSAGES, add_generation_prompt=True, now=NOW))
    assert calls == [False, False, True, False]
    with pytest.raises(chatformats.UnknownVariableError):
        chatformats.render(copy, MESSAGES, now=NOW, strict=True, enable_thinkng=True)
    assert _registry.port(name)[0] is registered and chatformats.get_format(name) is fmt


def test_another_port_is_what_renders() -> None:
    copy = chatformats.get_format("qwen3-instruct-2507").with_port(lambda messages, variables, now, spans=None: "x")
    assert chatformats.render(copy, MESSAGES) == "x"
    assert chatformats.render("qwen3-instruct-2507", MESSAGES) != "x"


def test_the_copy_pickles_with_its_port() -> None:
    copy = chatformats.get_format("cogito").with_port(chatformats.get_format("qwen3-instruct-2507").port)
    clone = pickle.loads(pickle.dumps(copy))
    assert clone.port is copy.port and clone.name == "cogito"
    assert chatformats.render(clone, MESSAGES, now=NOW) == chatformats.render("qwen3-instruct-2507", MESSAGES, now=NOW)
