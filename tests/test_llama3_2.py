"""Parity of the llama-3.2 port (Meta Llama 3.2 1B/3B Instruct, text) with its reference template:
what is this format's own (its regressions, the clock).  The properties every format shares
run in ``test_format_parity.py``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

import chatformats

from .llama_vision import ANY_SHAPE_REGRESSIONS
from .parity import assert_parity

NAME = "llama-3.2"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

#: Inputs that pinned a behaviour of this template (found by the properties, or written to show
#: a branch), each with what it shows.
REGRESSIONS = [
    *(p for p in ANY_SHAPE_REGRESSIONS if p.id not in (
        "L30 iterates None",  # no image scan here: a None content renders as "None"
        "text parts without a string text; date_string a number")),
    pytest.param([{"role": "user", "content": None}], {}, id="a None content renders None"),
    pytest.param([{"role": "user", "content": [{"type": "text", "text": "a"}]}], {},
                 id="a list content renders as its repr (no content parts)"),
    pytest.param([{"role": "user", "content": "hi"}], {"date_string": 5}, id="date_string a number fails"),
    pytest.param([{"role": "user", "content": "hi"}], {"strftime_now": None}, id="a shadowed clock fails"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)


def test_the_date_is_the_clock() -> None:
    """Unlike Llama 3.1's literal ``26 Jul 2024``, this template dates the prompt."""
    text = chatformats.render(NAME, [{"role": "user", "content": "hi"}], now=datetime(2026, 3, 7))
    assert "Today Date: 07 Mar 2026\n\n" in text


def test_the_tools_json_cache_follows_the_tools() -> None:
    """Each tool's indented JSON is cached by its compact JSON (``ports._llama3._tool_json``): a
    tool changed in place between renders, a tool equal to an earlier one under another key
    order, and tools that are not dicts (their JSON or their failure) all render as the template
    does, render after render."""
    from chatformats.ports import _llama3

    tool = {"type": "function", "function": {"name": "f", "description": "first", "parameters": {}}}
    reordered = {"function": tool["function"], "type": "function"}
    user = [{"role": "user", "content": "hi"}]
    for tools in ([tool], [tool], [reordered], ["a string", 1.5, [1, {"x": None}]], [{1: float("nan")}]):
        assert_parity(NAME, user, {"tools": tools})
        assert_parity(NAME, user, {"tools": tools})
    tool["function"]["description"] = "second"
    assert_parity(NAME, user, {"tools": [tool]})
    assert '"description": "second"' in chatformats.render(NAME, user, tools=[tool])
    assert _llama3._TOOL_JSON  # the cache was used
