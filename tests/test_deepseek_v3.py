"""Parity of the deepseek-v3 port with its reference template (DeepSeek-V3): what is this
format's own.  The properties every format shares run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAME = "deepseek-v3"

pytestmark = pytest.mark.xdist_group("format-" + NAME)

_CALL = {"type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}

#: Inputs that pinned a behaviour of this template, each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": None,
                   "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]}],
                 {}, id="mapping arguments are concatenated: TypeError"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": [_CALL]}],
                 {}, id="content '' drops the calls"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": None, "tool_calls": [_CALL, _CALL]},
                  {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
                  {"role": "assistant", "content": "r</think>a"}, {"role": "user", "content": "q2"},
                  {"role": "assistant", "content": None, "tool_calls": [_CALL]}, {"role": "tool", "content": "t3"}],
                 {"add_generation_prompt": True},
                 id="no split; is_first and is_output_first never reset; outputs joined with a newline"),
    pytest.param([{"role": "system", "content": "S"}, {"role": "user", "content": "q"},
                  {"role": "system", "content": ["x"]}], {}, id="a list system content: str + list"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": {"</think>": 1}}], {},
                 id="a dict answer: str + dict"),
    pytest.param([{"role": "user", "content": "q"}], {"namespace": 0}, id="a shadowed namespace"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
