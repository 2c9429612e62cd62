"""Parity of the qwen3-instruct-2507-2025-07 port with its reference template (the earlier
Qwen3 Instruct-2507 text): what is this format's own.  The properties every format shares
(realistic conversations, any shape, role sequences, the pipeline layer, template-line coverage)
run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity
from .qwen3_2507 import SHARED_REGRESSIONS

NAME = "qwen3-instruct-2507-2025-07"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

#: Inputs that pinned a behaviour of this template (found by the properties, or written to show
#: a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}],
                 {"add_generation_prompt": True},
                 id="a non-thinking model's last turn gets an empty think block; the prompt none"),
    pytest.param([{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"},
                  {"role": "user", "content": "3+3?"}], {"add_generation_prompt": True},
                 id="before the last query: no think block"),
    *SHARED_REGRESSIONS,
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
