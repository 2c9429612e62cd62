"""Parity of the deepseek-r1 port (and its January revision, deepseek-r1-2025-01: one shared
port) with their reference templates: what is these formats' own.  The properties every format
shares run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAME = "deepseek-r1"

pytestmark = pytest.mark.xdist_group("format-" + NAME)

_CALL = {"type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}

#: Inputs that pinned a behaviour of this template, each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": None,
                   "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]}],
                 {}, id="mapping arguments are concatenated: TypeError"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": None, "tool_calls": [{"function": _CALL["function"]}]}],
                 {}, id="a call without type: undefined + str"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "c", "tool_calls": None}],
                 {}, id="'tool_calls' in message with None: the loop fails"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "c", "tool_calls": []}],
                 {}, id="empty tool_calls: no header, no content, the end alone"),
    pytest.param([{"role": "user", "content": "q1"}, {"role": "assistant", "content": "", "tool_calls": [_CALL]},
                  {"role": "tool", "content": "t1"}, {"role": "assistant", "content": "a1"},
                  {"role": "user", "content": "q2"}, {"role": "assistant", "content": "", "tool_calls": [_CALL]},
                  {"role": "tool", "content": "t2"}, {"role": "tool", "content": "t3"}],
                 {"add_generation_prompt": True},
                 id="is_first and is_output_first never reset; no generation prompt after a tool"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": [_CALL]},
                  {"role": "tool", "content": "t"}, {"role": "user", "content": "q2"}],
                 {"add_generation_prompt": True}, id="a user turn after tool outputs leaves them open"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "tool", "content": "t"},
                  {"role": "assistant", "content": "r</think>a"}], {},
                 id="an answer after a tool result keeps its reasoning"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a</think>b</think>c"}], {},
                 id="the split keeps what follows the last </think>"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": {"</think>": 1, "split": "x"}}], {},
                 id="a dict content's split key is called: TypeError"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": ["</think>"]}], {},
                 id="a list content holding '</think>': undefined call"),
    pytest.param([{"role": "assistant", "content": "a"}, {"role": "system", "content": "S"},
                  {"role": "system", "content": "T"}], {"bos_token": 0},
                 id="system messages joined and written first"),
    pytest.param([{"role": "user", "content": "q"}], {"namespace": None}, id="a shadowed namespace"),
]


@pytest.mark.parametrize("name", ["deepseek-r1", "deepseek-r1-2025-01"])
@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(name: str, messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(name, messages, variables)
