"""Parity of the qwen3 port with its reference template (Qwen3 hybrid thinking, the later
revision): what is this format's own.  The properties every format shares (realistic
conversations, any shape, role sequences, the pipeline layer, template-line coverage) run in
``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity
from .qwen3_2507 import SHARED_REGRESSIONS

NAME = "qwen3"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)

#: Inputs that pinned a behaviour of this template (found by the properties, or written to show
#: a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "user", "content": "2+2?"}], {"add_generation_prompt": True,
                                                          "enable_thinking": False},
                 id="enable_thinking false: an empty think block after the prompt"),
    *[pytest.param([{"role": "user", "content": "2+2?"}],
                   {"add_generation_prompt": True, "enable_thinking": value},
                   id=f"enable_thinking {value!r}: `is false` is identity, nothing written")
      for value in (True, None, 0, "false", "False")],
    pytest.param([{"role": "user", "content": "2+2?"}], {"enable_thinking": False},
                 id="enable_thinking false without the generation prompt: nothing"),
    pytest.param([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
                 {"enable_thinking": False},
                 id="the last message gets an empty think block whatever enable_thinking says"),
    *SHARED_REGRESSIONS,
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
