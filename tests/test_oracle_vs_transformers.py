"""The oracle is cross-checked: transformers' own compiled template (``tests/oracle.py``), a
plain jinja2 environment built in the tests from transformers' published definition
(``tests/jinja_env.py``), and the package's ``chatformats.verify`` render the same generated
conversations and variables (with one fixed clock) to the same text, or fail with the same
exception type and message.  The oracle's template-line coverage works on the template
transformers compiles.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import verify

from . import budget
from . import jinja_env, oracle
from . import strategies as s

# Every variable any of the five templates reads, each passed or not.
all_variables = s.variables(
    tools=s.tools_any, custom_tools=s.tools_any, add_generation_prompt=s.variable_values,
    enable_thinking=s.variable_values, reasoning_effort=st.one_of(st.sampled_from(["low", "minimal", "high"]),
                                                                  s.variable_values),
    think_render_option=st.one_of(st.sampled_from(["all", "lastthink", "none"]), s.variable_values),
    default_system_prompt=s.variable_values, response_format=s.variable_values,
    tools_in_user_message=s.variable_values, date_string=s.variable_values,
    bos_token=st.one_of(st.just("<|begin_of_text|>"), s.variable_values),
)


def as_tuple(outcome: oracle.Outcome | verify.Outcome) -> tuple:
    if outcome.ok:
        return ("ok", outcome.text)
    return ("error", outcome.exc_type, outcome.message)


@pytest.mark.parametrize("name", chatformats.formats())
@settings(max_examples=budget.per_format(300))
@given(messages=s.conversations, variables=all_variables,
       now=st.sampled_from([oracle.FIXED_NOW, datetime(1999, 12, 31, 23, 59, 59)]))
def test_three_references_agree(name, messages, variables, now):
    expected = oracle.render(name, messages, now=now, record_coverage=False, **variables)
    file = chatformats.get_format(name).template_file
    assert jinja_env.render(file, messages, now, **variables) == as_tuple(expected)
    assert as_tuple(verify.render(name, messages, variables, now)) == as_tuple(expected)


@pytest.mark.parametrize("name", chatformats.formats())
def test_the_oracle_is_transformers_compiled_template(name):
    from transformers.utils import chat_template_utils as tcu

    source = oracle.source(name)
    assert oracle.template(name) is tcu._compile_jinja_template(source)
    assert source == chatformats.get_format(name).template_source()


def test_coverage_maps_the_compiled_template_lines():
    """``Template.debug_info`` of transformers' compiled template maps generated lines back to
    template lines, and a traced render marks some of them (and only lines that hold code)."""
    name = "qwen3-tool-agent"
    exercised_before, lines = oracle.coverage_sets(name)
    assert lines and max(lines) <= len(oracle.source(name).splitlines())
    oracle.render(name, [{"role": "user", "content": "hi"}], record_coverage=True)
    exercised, _ = oracle.coverage_sets(name)
    assert exercised and exercised <= lines and exercised >= exercised_before
