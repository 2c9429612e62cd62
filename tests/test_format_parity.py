"""The parity properties every format shares, run for each format of :data:`FORMATS` (the pattern
of ``test_fuzz.py``, ``test_golden.py`` and ``test_odd_paths.py``): realistic conversations,
messages of any shape, any sequence of roles, the pipeline layer, and the check that every line
of the template ran.  Each format's own module (``tests/test_<format>.py``) keeps only what is
its own: its regressions, its strategies, its format-specific properties.

A format's entry (:class:`Format`) holds what the shared properties need: the template variables
to draw, the covering cases (conversations that together run every template line) and how many
examples each property draws under the ``ci`` profile.

Every test of a format, here and in its own module, runs in one xdist worker (the group
``format-<name>``; pyproject: ``--dist loadgroup``) and the line-coverage checks run last
(``conftest.py``), so a check sees what all of the format's parity tests executed; the covering
cases run in the check itself, so it holds in any selection of tests.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from . import strategies as s
from .parity import assert_parity, assert_template_lines_exercised
from .test_pipeline import assert_pipeline_parity

Case = tuple[list[Any], dict[str, Any]]


def examples(ci: int | None) -> int:
    """``ci`` examples under the ``ci`` profile (sized for the suite's time budget), fewer under
    ``dev``, the profile's own count under ``deep``; ``None``: the profile's own count."""
    profile = settings.default.max_examples
    if ci is None:
        return profile
    return min(profile, ci) if profile <= 2000 else profile


class Format:
    """What the shared properties need of one format."""

    def __init__(self, variables: st.SearchStrategy[dict[str, Any]], covering: list[Case], *,
                 realistic: int | None = None, any_shape: int | None = None,
                 role_sequences: int | None = None, pipeline: int | None = None,
                 unreachable: dict[int, str] | None = None) -> None:
        #: The template variables drawn with every conversation.
        self.variables = variables
        #: Conversations that, together, run every line of the template that holds code.
        self.covering = covering
        #: Examples per property under ``ci`` (``None``: the profile's count); ``pipeline``:
        #: ``None`` runs no pipeline property here (``tests/test_pipeline.py`` covers the format).
        self.realistic = realistic
        self.any_shape = any_shape
        self.role_sequences = role_sequences
        self.pipeline = pipeline
        #: Template lines no input reaches, each with the reason.
        self.unreachable = unreachable or {}


# ---------------------------------------------------------------- the Qwen3 family

#: The variables the Qwen3 templates read.
QWEN3_VARIABLES = s.variables(tools=s.tools_any, add_generation_prompt=s.variable_values)

#: One conversation that runs every line of a Qwen3 template (tools with a system message, a
#: later system message, reasoning from ``reasoning_content`` and from a ``</think>`` split, turns
#: before and after the last user query, tool calls with dict and string arguments after content,
#: consecutive tool responses, the generation prompt) and one without tools, with a content that
#: is not a string.
QWEN3_COVERING: list[Case] = [
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "q1"},
      {"role": "assistant", "content": "<think>\nr\n</think>\n\na",
       "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
                      {"type": "function", "function": {"name": "g", "arguments": "{\"y\": 2}"}}]},
      {"role": "tool", "content": "t1"}, {"role": "tool", "content": "t2"},
      {"role": "user", "content": "q2"}, {"role": "system", "content": "s2"},
      {"role": "assistant", "content": "b", "reasoning_content": "rc"},
      {"role": "assistant", "content": "c"}, {"role": "assistant", "content": "d"}],
     {"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
      "add_generation_prompt": True}),
    ([{"role": "system", "content": "S"}, {"role": "user", "content": "<tool_response>x</tool_response>"},
      {"role": "user", "content": [{"type": "text", "text": "a list content renders as ''"}]}],
     {"add_generation_prompt": True}),
]

FORMATS: dict[str, Format] = {
    "qwen3-tool-agent": Format(QWEN3_VARIABLES, QWEN3_COVERING),
    "qwen3-instruct-2507": Format(QWEN3_VARIABLES, QWEN3_COVERING, realistic=300, any_shape=400,
                                  role_sequences=300, pipeline=100),
    "qwen3-thinking-2507": Format(QWEN3_VARIABLES, QWEN3_COVERING, realistic=300, any_shape=400,
                                  role_sequences=300, pipeline=100),
}


def _params(names: Any) -> list[Any]:
    return [pytest.param(name, marks=pytest.mark.xdist_group("format-" + name)) for name in names]


NAMES = _params(FORMATS)
WITH_PIPELINE = _params(name for name, fmt in FORMATS.items() if fmt.pipeline is not None)


# ---------------------------------------------------------------- the properties


@pytest.mark.parametrize("name", NAMES)
def test_realistic_conversations(name: str) -> None:
    fmt = FORMATS[name]

    @settings(max_examples=examples(fmt.realistic))
    @given(messages=s.realistic_conversation(), variables=fmt.variables)
    def check(messages: Any, variables: dict[str, Any]) -> None:
        assert_parity(name, messages, variables)

    check()


@pytest.mark.parametrize("name", NAMES)
def test_any_shape(name: str) -> None:
    fmt = FORMATS[name]

    @settings(max_examples=examples(fmt.any_shape))
    @given(messages=s.adversarial_messages, variables=fmt.variables)
    @example(messages=[], variables={})  # messages[0] of an empty list: undefined.role fails
    @example(messages=[], variables={"tools": [{"a": 1}]})
    @example(messages=[{"role": "tool", "content": "x"}, {"role": "tool"}], variables={})
    @example(messages=[{"role": "assistant", "tool_calls": "ab"}], variables={})  # each character a call
    @example(messages=[{"role": "assistant", "tool_calls": 3}], variables={})  # not iterable
    @example(messages=[{"role": "system", "content": None}], variables={"tools": "ab"})  # None + str fails
    def check(messages: Any, variables: dict[str, Any]) -> None:
        assert_parity(name, messages, variables)

    check()


@pytest.mark.parametrize("name", NAMES)
def test_role_sequences(name: str) -> None:
    fmt = FORMATS[name]

    @settings(max_examples=examples(fmt.role_sequences))
    @given(messages=st.lists(s.message(roles=st.sampled_from(["user", "assistant", "tool", "system"])),
                             max_size=8),
           variables=fmt.variables)
    def check(messages: Any, variables: dict[str, Any]) -> None:
        assert_parity(name, messages, variables)

    check()


@pytest.mark.parametrize("name", WITH_PIPELINE)
def test_pipeline_layer(name: str) -> None:
    fmt = FORMATS[name]

    @settings(max_examples=examples(fmt.pipeline))
    @given(messages=s.conversations, tools=s.tools_any, add_generation_prompt=st.booleans())
    def check(messages: Any, tools: Any, add_generation_prompt: bool) -> None:
        assert_pipeline_parity(name, messages, {"tools": tools, "add_generation_prompt": add_generation_prompt})

    check()


@pytest.mark.parametrize("name", NAMES)
def test_template_lines_exercised(name: str) -> None:
    """The covering cases, then: every template line ran (here and in the format's other parity
    tests in this worker)."""
    fmt = FORMATS[name]
    for messages, variables in fmt.covering:
        assert_parity(name, messages, variables)
    assert_template_lines_exercised(name, fmt.unreachable)
