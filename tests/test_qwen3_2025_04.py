"""Parity of the qwen3-2025-04 port with its reference template (the Qwen3 hybrid text of the
April 2025 release): what is this format's own.  The properties every format shares (realistic
conversations, any shape, role sequences, the pipeline layer, template-line coverage) run in
``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAME = "qwen3-2025-04"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

U = {"role": "user", "content": "q"}

#: Inputs that pinned a behaviour of this template (found by the properties, or written to show
#: a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "user", "content": [{"type": "text", "text": "x"}]}], {},
                 id="the scan calls .startswith on a list: undefined"),
    pytest.param([{"role": "user", "content": {"startswith": "x"}}], {},
                 id="a mapping with the method's key: not callable"),
    pytest.param([{"role": "user", "content": {"startswith": 1, "endswith": 2}}], {},
                 id="a mapping with both keys: not callable either"),
    pytest.param([{"role": "user"}], {}, id="no content: undefined in the scan"),
    pytest.param([{"role": "user", "content": None}, U], {},
                 id="the scan stops at the last real query: an earlier None is not read by it, "
                    "but its turn concatenates it"),
    pytest.param([U, {"role": "user", "content": "<tool_response>x</tool_response>"},
                  {"role": "assistant", "content": "a"}], {},
                 id="a tool-response-shaped user message is not the query"),
    pytest.param([{"role": "system", "content": 1}, U], {}, id="system content concatenated"),
    pytest.param([U, {"role": "assistant", "content": None,
                      "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}], {},
                 id="content None with tool calls: the think branch's lstrip fails"),
    pytest.param([U, {"role": "assistant", "content": None,
                      "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}, U], {},
                 id="content None before the last query: concatenation fails"),
    pytest.param([U, {"role": "assistant", "content": "a", "reasoning_content": ["r"]}], {},
                 id="a list reasoning_content: .strip undefined"),
    pytest.param([U, {"role": "assistant", "content": "a", "reasoning_content": {"strip": 0}}], {},
                 id="a mapping reasoning_content with strip: not callable"),
    pytest.param([U, {"role": "assistant", "content": "a", "reasoning_content": []}, U], {},
                 id="a reasoning_content before the last query is not read"),
    pytest.param([U, {"role": "assistant", "content": "<think>x</think>y", "reasoning_content": None}], {},
                 id="reasoning_content None: the content is split"),
    pytest.param([U, {"role": "assistant", "content": ["</think>"]}], {},
                 id="a list holding </think> passes the in test and fails at split"),
    pytest.param([U, {"role": "assistant", "content": {"</think>": 1, "split": 2}}], {},
                 id="a mapping with </think> and split keys: not callable"),
    pytest.param([U, {"role": "assistant", "content": 5}], {}, id="in on a number: TypeError"),
    pytest.param([U, {"role": "assistant", "reasoning_content": "r"}], {},
                 id="no content, reasoning given: lstrip on undefined"),
    pytest.param([U, {"role": "assistant", "content": "a"}, {"role": "tool", "content": None},
                  {"role": "tool", "content": ["x", 1]}, {"role": "tool"}], {},
                 id="tool contents render as str()"),
    pytest.param([U, {"role": "assistant", "content": "a"}], {"add_generation_prompt": True,
                                                               "enable_thinking": False},
                 id="enable_thinking false: an empty think block after the prompt"),
    pytest.param([U], {"add_generation_prompt": True, "enable_thinking": 0},
                 id="enable_thinking 0: `is false` is identity"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
