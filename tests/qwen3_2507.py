"""Regressions the two Qwen3 2507 formats share: their system block, tool calls and tool
responses are one piece of code (``chatformats.ports._qwen3_2507``), so an input that pinned a
behaviour of one pins it for the other."""

from __future__ import annotations

import pytest

SHARED_REGRESSIONS = [
    pytest.param([{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f"}}, "x"]}], {},
                 id="a first call after empty content: no newline; a string call: name undefined"),
    pytest.param([{"role": "system", "content": ["a"]}], {}, id="list + str fails"),
    pytest.param(["user", {"role": "user", "content": ["x"]}, {"role": "system", "content": 1}],
                 {"add_generation_prompt": True}, id="non-string contents render as ''"),
]
