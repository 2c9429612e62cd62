"""Parity of the qwen3-tool-agent port with its reference template: what is this format's own.
The properties every format shares (realistic conversations, any shape, role sequences,
template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAME = "qwen3-tool-agent"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

#: Inputs that pinned a behaviour of this template, each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "assistant", "content": "a</think>b", "tool_calls": [{"function": {"name": "f"}}]}],
                 {}, id="a </think> split before a tool call"),
    pytest.param(["user", {"role": "user", "content": "<tool_response>x</tool_response>"},
                  {"role": "assistant", "content": "<think>r</think>\n\nok"}],
                 {"add_generation_prompt": True},
                 id="a message that is a string; a tool response as the only query; a think split"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
