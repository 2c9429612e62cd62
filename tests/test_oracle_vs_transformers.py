"""The oracle renders what transformers itself renders.

transformers 5.24.0 compiles chat templates in ``chat_template_utils._compile_jinja_template``;
here both that compiled template and the oracle render the same generated conversations and
variables (with one fixed clock), and must give the same text or fail with the same exception
type and message.  This is what lets every parity test trust the oracle.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatformats

from . import oracle
from . import strategies as s

tcu = pytest.importorskip("transformers.utils.chat_template_utils")

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


class _FixedClock(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return oracle.FIXED_NOW


def transformers_outcome(name: str, messages: Any, variables: dict[str, Any]) -> oracle.Outcome:
    template = tcu._compile_jinja_template(chatformats.get_format(name).template_source())
    with pytest.MonkeyPatch.context() as m:
        m.setattr(tcu, "datetime", _FixedClock)
        try:
            return oracle.Outcome(text=template.render(messages=messages, **variables))
        except Exception as exc:  # noqa: BLE001
            return oracle.Outcome(kind="error", message=str(exc), exc_type=type(exc).__name__)


@pytest.mark.parametrize("name", chatformats.formats())
@settings(max_examples=300)
@given(messages=s.conversations, variables=all_variables)
def test_oracle_renders_what_transformers_renders(name, messages, variables):
    expected = transformers_outcome(name, messages, variables)
    got = oracle.render(name, messages, record_coverage=False, **variables)
    if expected.ok:
        assert got.text == expected.text
    else:
        assert not got.ok, f"transformers failed ({expected.exc_type}: {expected.message}), oracle rendered"
        assert (got.exc_type, got.message) == (expected.exc_type, expected.message)
