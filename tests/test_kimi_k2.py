"""Parity of the kimi-k2 port with its reference template (Kimi K2 Instruct, July 2025): what is
this format's own.  The properties every format shares (realistic conversations, any shape, role
sequences, the pipeline layer, template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAME = "kimi-k2"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

_CALL = {"id": "call_9", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}

#: Inputs that pinned a behaviour of this template (found by the properties, or written to show
#: a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [_CALL, _CALL]},
                  {"role": "assistant", "tool_calls": [_CALL]}], {},
                 id="ids are functions.NAME:INDEX, restarting each turn; string arguments quoted again"),
    pytest.param([{"role": "tool", "content": None}, {"role": "tool", "tool_call_id": 3, "content": {"a": 1}}], {},
                 id="a tool result's id and content with str(): None, a number, a dict's repr"),
    pytest.param(["assistant", None, [{"role": "assistant"}]], {"add_generation_prompt": True},
                 id="a message that is not a dict: no header, no get(), only <|im_end|>"),
    pytest.param([{"role": "assistant", "tool_calls": "ab"}], {},
                 id="string tool_calls: a character has no function (undefined['name'] fails)"),
    pytest.param([{"role": "assistant", "tool_calls": [{"function": None}]}], {},
                 id="a None function: its name is undefined, the concatenation fails"),
    pytest.param([{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}], {},
                 id="missing arguments: undefined|tojson fails"),
    pytest.param([{"role": "assistant", "content": ["x"], "tool_calls": {"k": 1}}], {},
                 id="content before the section with str() (a list's repr); a dict of calls iterates keys"),
    pytest.param([{"role": "user", "content": ["image", "text", ["image_url"], ("a",), {"text": 5}]}], {},
                 id="image tests on strings, lists and dicts; other parts' text or nothing"),
    pytest.param([{"role": "user", "content": [None]}], {}, id="a None part: 'image' in None fails"),
    pytest.param([{"role": "user", "content": {"image": 1, "b": 2}}], {},
                 id="dict content iterates its keys: 'image' is an image part, 'b' renders nothing"),
    pytest.param([{"role": "user", "content": 0}], {}, id="number content is not none and not iterable"),
    pytest.param([{"role": "system", "content": "s"}], {"tools": "ab"},
                 id="a string tools is declared as one JSON string; no default system message"),
    pytest.param([{"role": "tool", "content": "r", "tool_calls": [_CALL]}], {},
                 id="a tool message with tool_calls is a tool result"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
