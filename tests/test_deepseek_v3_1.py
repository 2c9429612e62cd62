"""Parity of the deepseek-v3.1 port with its reference template (DeepSeek-V3.1): what is this
format's own.  The properties every format shares (realistic conversations, any shape, role
sequences, the pipeline layer, template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAME = "deepseek-v3.1"

pytestmark = pytest.mark.xdist_group("format-" + NAME)

_CALL = {"type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}

#: Inputs that pinned a behaviour of this template, each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": None,
                   "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}], {},
                 id="mapping arguments are concatenated: TypeError"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [_CALL]}], {},
                 id="a tool-call turn without content: undefined + str"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "c", "tool_calls": []}],
                 {}, id="empty tool_calls: the content is never written, the turn still ends"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "x", "tool_calls": "ab"}],
                 {}, id="string tool_calls iterate characters: undefined function"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": "", "tool_calls": [_CALL, _CALL]},
                  {"role": "tool", "content": "t"},
                  {"role": "assistant", "content": "", "tool_calls": [_CALL]}],
                 {"add_generation_prompt": True},
                 id="is_first resets per tool-call turn; no generation prompt after a tool result"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "tool", "content": "t"},
                  {"role": "assistant", "content": "r</think>a"}], {"add_generation_prompt": True},
                 id="an answer after a tool result: no header, no split"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "prefix": 1}],
                 {"thinking": True}, id="a prefix turn under thinking opens <think>"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "prefix": 1}],
                 {"thinking": 0}, id="a prefix turn without thinking closes it"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": ["</think>"]}], {},
                 id="a list content holding '</think>' has no split: undefined call"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": {"</think>": 1, "split": "x"}}], {},
                 id="a dict content's split key is called: TypeError"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": None}], {},
                 id="'</think>' in None: TypeError"),
    pytest.param([{"role": "assistant", "content": "a"}, {"role": "system", "content": "S"},
                  {"role": "system", "content": "T"}], {"bos_token": None},
                 id="system messages joined and written first; bos_token None renders None"),
    pytest.param([{"role": "system", "content": "S"}, {"role": "system"}], {},
                 id="a second system message without content: undefined + str"),
    pytest.param([{"role": "user", "content": "q"}], {"add_generation_prompt": "yes", "thinking": []},
                 id="truthiness of the switches"),
    pytest.param([{"role": "user", "content": "q"}], {"namespace": 1}, id="a shadowed namespace"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
