"""Parity of the glm-4.5 port with its reference template (Z.ai GLM-4.5): what is this format's
own.  The properties every format shares (realistic conversations, any shape, role sequences,
the pipeline layer, template-line coverage) run in ``test_format_parity.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .parity import assert_parity

NAME = "glm-4.5"

# The format's tests share one xdist worker with its shared properties (test_format_parity.py).
pytestmark = pytest.mark.xdist_group("format-" + NAME)


def _call(function: Any) -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": function}


#: Inputs that pinned a behaviour of this template (found by the properties, or written to show
#: a branch), each with what it shows.
REGRESSIONS = [
    pytest.param([{"role": "assistant", "tool_calls": [_call({"name": "f", "arguments": '{"a": 1}'})]}], {},
                 id="string arguments: _args.items() is undefined (UndefinedError)"),
    pytest.param([{"role": "assistant", "tool_calls": [_call({"name": "f"})]}], {},
                 id="missing arguments: undefined.items() fails"),
    pytest.param([{"role": "assistant", "tool_calls": [{"name": "f", "arguments": {"a": [1, "é"], "b": "s"}}]}], {},
                 id="a call without function is its own function; a string value bare, others tojson"),
    pytest.param([{"role": "assistant", "tool_calls": "ab"}], {}, id="a character has no name"),
    pytest.param([{"role": "assistant", "tool_calls": [None]}], {}, id="None.function is undefined"),
    pytest.param([{"role": "assistant", "tool_calls": [_call({"name": 1, "arguments": {}})]}], {},
                 id="a number name: the concatenation fails"),
    pytest.param([{"role": "tool", "content": None}], {}, id="a None tool content is not iterable"),
    pytest.param([{"role": "tool", "content": {"a": 1}}, {"role": "tool", "content": [{"output": None}, None, 3]}], {},
                 id="list tool results: each its output or itself with str(), <|observation|> every time"),
    pytest.param([{"role": "user", "content": {"a": 1}}, {"role": "user", "content": None},
                  {"role": "user", "content": [{"type": "text"}]}], {"enable_thinking": None},
                 id="visible_text: a dict's repr, None, a text part without text; None is defined and false"),
    pytest.param([{"role": "assistant", "content": "<think>\n a \n</think>\n\n b ", "reasoning_content": 5}], {},
                 id="a non-string reasoning_content: the content is split at </think>"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": "<think>r</think>x", "reasoning_content": ""}], {},
                 id="an empty string reasoning_content wins: no split, the think tags stay in the content"),
    pytest.param([{"role": "user", "content": "q"},
                  {"role": "assistant", "content": [{"type": "text", "text": "<think>r</think>"}, "x"]}], {},
                 id="the split runs on the macro's text of list content"),
    pytest.param([{"role": "user", "content": "x/nothink"}, {"role": "user", "content": ["a/", "nothink"]}],
                 {"enable_thinking": False, "add_generation_prompt": True},
                 id="/nothink not doubled: endswith on the macro's result"),
    pytest.param(["user", {"role": "tool", "content": "a"}, {"role": "tool", "content": "b"}], {},
                 id="a previous message that is not a dict has no role: a new <|observation|>"),
]


@pytest.mark.parametrize("messages, variables", REGRESSIONS)
def test_regressions(messages: Any, variables: dict[str, Any]) -> None:
    assert_parity(NAME, messages, variables)
