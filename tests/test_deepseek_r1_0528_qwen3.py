"""Parity of the deepseek-r1-0528-qwen3 port with its reference template (DeepSeek-R1-0528-Qwen3-8B):
what is this format's own.  The properties every format shares run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAME = "deepseek-r1-0528-qwen3"

pytestmark = pytest.mark.xdist_group("format-" + NAME)

_CALL = {"type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}

#: Inputs that pinned a behaviour of this template, each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [_CALL]}],
                 {}, id="content None fails at the split, before the tool-call branch"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": "",
                   "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]}],
                 {}, id="mapping arguments are concatenated: TypeError"),
    pytest.param([{"role": "user", "content": "q"}], {"add_generation_prompt": True},
                 id="after a user turn the generation prompt writes nothing"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
                 {"add_generation_prompt": True}, id="after an answer it writes <｜Assistant｜>"),
    pytest.param([{"role": "user", "content": "q1"}, {"role": "assistant", "content": "", "tool_calls": [_CALL]},
                  {"role": "tool", "content": "t1"}, {"role": "assistant", "content": "x", "tool_calls": [_CALL]},
                  {"role": "tool", "content": "t2"}, {"role": "tool", "content": "t3"},
                  {"role": "assistant", "content": "r</think>a"}],
                 {"add_generation_prompt": True},
                 id="a tool-call turn closes the outputs and resets is_first and is_output_first"),
    pytest.param(["text", None, {"role": "user", "content": "q"}], {},
                 id="messages that are not mappings: content undefined, nothing written"),
    pytest.param([{"role": "tool"}], {}, id="a tool message without content: undefined + str"),
    pytest.param([{"role": "user", "content": "q"}], {"namespace": "x"}, id="a shadowed namespace"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
