"""Parity of the two Qwen2.5 Instruct ports with their reference templates (``qwen2.5-instruct``
and its September 2024 text ``qwen2.5-instruct-2024-09``, one function with line 13 bound):
what is theirs.  The properties every format shares (realistic conversations, any shape, role
sequences, the pipeline layer, template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAMES = ["qwen2.5-instruct", "qwen2.5-instruct-2024-09"]

U = {"role": "user", "content": "q"}
CALL = {"type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}}
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]

#: Inputs that pinned a behaviour of these templates (found by the properties, or written to
#: show a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([U], {"add_generation_prompt": True}, id="no system message: the default one"),
    pytest.param([U], {"tools": TOOLS}, id="tools without a system message: the default one"),
    pytest.param([{"role": "system", "content": None}, U], {"tools": TOOLS},
                 id="with tools the system content is {{ }}: None renders as None"),
    pytest.param([{"role": "system", "content": None}, U], {},
                 id="without tools it is concatenated: None fails"),
    pytest.param([U, {"role": "assistant", "content": None, "tool_calls": [CALL]}], {},
                 id="a call after no content: the newline is the call's; string arguments re-encoded"),
    pytest.param([U, {"role": "assistant", "content": ["x"], "tool_calls": [CALL]}], {},
                 id="a truthy non-string content with calls fails"),
    pytest.param([U, {"role": "assistant", "content": "a", "tool_calls": "ab"}], {},
                 id="a string tool_calls iterates its characters"),
    pytest.param([U, {"role": "assistant", "content": "a", "tool_calls": 3}], {},
                 id="a number tool_calls is not iterable"),
    pytest.param([U, {"role": "assistant", "content": "a",
                      "tool_calls": [{"function": None}, {"name": "g"}]}], {},
                 id="function None is defined; arguments undefined fail tojson"),
    pytest.param([U, {"role": "assistant", "content": "a", "tool_calls": []}], {},
                 id="empty tool_calls: the plain line"),
    pytest.param([U, {"role": "assistant"}], {}, id="an assistant turn without content fails"),
    pytest.param([{"role": "tool", "content": None}, {"role": "tool", "content": ["x"]}, U], {},
                 id="tool contents render as str(); a first tool message opens the turn"),
    pytest.param([], {}, id="no messages: messages[0] undefined"),
    pytest.param(["user", U, {"role": "system", "content": "s"}], {"tools": "ab"},
                 id="a string message; a later system turn; tools iterated as characters"),
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(name: str, messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(name, messages, variables)


def test_the_two_texts_differ_in_the_example_call_only() -> None:
    import chatformats

    early = chatformats.render(NAMES[1], [U], tools=TOOLS)
    assert '{{"name": <function-name>, "arguments": <args-json-object>}}' in early
    undoubled = early.replace('{{"name"', '{"name"').replace("object>}}", "object>}")
    assert undoubled == chatformats.render(NAMES[0], [U], tools=TOOLS) != early
