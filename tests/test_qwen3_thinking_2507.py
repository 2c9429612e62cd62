"""Parity of the qwen3-thinking-2507 port with its reference template (Qwen3 Thinking-2507): what
is this format's own.  The properties every format shares (realistic conversations, any shape,
role sequences, the pipeline layer, template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity
from .qwen3_2507 import SHARED_REGRESSIONS

NAME = "qwen3-thinking-2507"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

#: Inputs that pinned a behaviour of this template (found by the properties, or written to show
#: a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "user", "content": "2+2?"},
                  {"role": "assistant", "content": "<think>\nsum\n</think>\n\n4"},
                  {"role": "user", "content": "3+3?"},
                  {"role": "assistant", "content": "6", "reasoning_content": "again"},
                  {"role": "assistant", "content": "\n\nmore"}],
                 {"add_generation_prompt": True},
                 id="history split; the turns after the last query keep their reasoning"),
    pytest.param([{"role": "user", "content": "<tool_response>x</tool_response>"},
                  {"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}], {},
                 id="no real query: last_query_index is the last message"),
    *SHARED_REGRESSIONS,
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
