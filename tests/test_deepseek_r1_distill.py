"""Parity of the deepseek-r1-distill port (and its January revision, deepseek-r1-distill-2025-01:
one shared port) with their reference templates: what is these formats' own.  The properties
every format shares run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAME = "deepseek-r1-distill"

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
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": None}],
                 {"add_generation_prompt": True}, id="content None, no tool_calls: the turn renders nothing"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": None}],
                 {}, id="tool_calls None fails to iterate"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [_CALL]}],
                 {}, id="one call: the list is never closed"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": None, "tool_calls": [_CALL, _CALL, _CALL]}],
                 {}, id="the close follows every later call"),
    pytest.param([{"role": "user", "content": "q1"}, {"role": "assistant", "content": None, "tool_calls": [_CALL]},
                  {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
                  {"role": "assistant", "content": "a</think>b"}, {"role": "user", "content": "q2"},
                  {"role": "assistant", "content": None, "tool_calls": [_CALL]},
                  {"role": "tool", "content": "t3"}],
                 {"add_generation_prompt": True},
                 id="is_first and is_output_first never reset; later outputs joined with a newline"),
    pytest.param([{"role": "system", "content": "S1"}, {"role": "user", "content": "q"},
                  {"role": "system", "content": {"a": [1, None]}}], {},
                 id="the last system message is kept, rendered with str()"),
    pytest.param([{"role": "system", "content": "S1"}, {"role": "system"}], {},
                 id="a last system message without content renders nothing"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant"}], {},
                 id="an assistant turn without content: undefined + str"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": {"</think>": 1, "split": "x"}}], {},
                 id="a dict content's split key is called: TypeError"),
    pytest.param([{"role": "user", "content": "q"}], {"namespace": []}, id="a shadowed namespace"),
]


@pytest.mark.parametrize("name", ["deepseek-r1-distill", "deepseek-r1-distill-2025-01"])
@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(name: str, messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(name, messages, variables)
