"""Never fails badly, for any input: a render returns a ``str`` or raises a ``ChatFormatError``
(never an ``InternalError``, never a bare TypeError/KeyError/RecursionError), for messages and
template variables in any shape.  1,500 examples per format under the ``ci`` profile,
100,000 under ``deep``.

Every test covers every ported format (``chatformats.get_format(name).status == "ported"``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, note, settings

import chatformats
from chatformats import ChatFormatError, InternalError, InvalidConversation, NestingTooDeep

from . import fuzz, golden
from .oracle import FIXED_NOW

PORTED = golden.ported_formats()

# ---------------------------------------------------------------- the fuzz property

#: Examples per format: its share of ``TOTALS["fuzz"]`` under ``ci`` (``tests/budget.py``).
from . import budget  # noqa: E402

#: Every variable any template reads; each format also gets the others' (unused) names.
ALL_VARIABLES = sorted({v for name in chatformats.formats() for v in fuzz.template_variables(name)})
any_variables = fuzz.any_variables(ALL_VARIABLES)


def render_any(name: str, messages: Any, variables: dict[str, Any]) -> str | ChatFormatError:
    """Render; a text, or the ChatFormatError raised.  Anything else escaping fails the test, and
    so does an InternalError (a port bug that leaked an exception, wrapped by ``render``)."""
    try:
        return chatformats.render(name, messages, now=FIXED_NOW, **variables)
    except InternalError as exc:
        raise AssertionError(f"{name}: a port bug leaked an exception: {exc}") from exc
    except ChatFormatError as exc:
        return exc


@pytest.mark.parametrize("name", PORTED)
def test_any_input_gives_text_or_chatformaterror(name: str) -> None:
    @settings(max_examples=budget.examples(name, "fuzz"))
    @given(messages=fuzz.any_messages, variables=any_variables)
    @example(messages={"role": "user", "content": "not a list"}, variables={})
    @example(messages=[{"role": 3, "content": None}, {"role": ["user"], "content": {"a": 1}}], variables={})
    @example(messages=[[{"role": "user"}], "user", None, 1.5], variables={"tools": 7})
    @example(messages=[{"role": "user", "content": "x" * 1_000_000}], variables={"add_generation_prompt": "yes"})
    @example(messages=[{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": fuzz.deep(3_000, "mixed")}}]},
                       {"role": "user", "content": "q"}], variables={})
    @example(messages=[{"role": "user", "content": "q"}],
             variables={"tools": [{"type": "object", "properties": fuzz.deep(3_000, "dict")}]})
    @example(messages=[fuzz.cyclic("message"), {"role": "user", "content": "q"}], variables={"tools": [fuzz.cyclic("list")]})
    @example(messages=[{"role": "user", "content": "q"}], variables={"tools": [{1, 2}]})
    @example(messages=[{"role": "user", "content": fuzz.FOREIGN[6]}], variables={})
    @example(messages=[{"role": "tool", "content": None}, {"role": "tool", "tool_call_id": ("a",)}],
             variables={var: None for var in ALL_VARIABLES})
    @example(messages=[{"role": "user", "content": "q"}], variables={var: {"a": [1]} for var in ALL_VARIABLES})
    def check(messages: Any, variables: dict[str, Any]) -> None:
        any_input_gives_text_or_chatformaterror(name, messages, variables)

    check()


def any_input_gives_text_or_chatformaterror(name: str, messages: Any, variables: dict[str, Any]) -> None:
    """Any input: a text or a ChatFormatError, the right one for input that is not JSON-like or
    nested beyond the limit."""
    messages, variables = fuzz.expand(messages), fuzz.expand(variables)
    outcome = render_any(name, messages, variables)
    note(f"outcome: {outcome!r}"[:2000])
    read = fuzz.read_variables(name, variables)
    if len(read) < len(variables) and (fuzz.is_foreign([], variables) or fuzz.input_depth([], variables) > fuzz.GUARANTEED_DEPTH):
        # A variable the template never reads is not checked, whatever it holds: the outcome is
        # the outcome without it.
        alone = render_any(name, messages, read)
        assert (outcome == alone if type(outcome) is str
                else (type(outcome), str(outcome)) == (type(alone), str(alone))), (outcome, alone)
    if fuzz.is_foreign(messages, variables, name) or type(messages) not in (list, tuple):
        assert isinstance(outcome, InvalidConversation), f"accepted input that is not JSON-like: {outcome!r}"[:500]
    elif fuzz.input_depth(messages, variables, name) > fuzz.GUARANTEED_DEPTH:
        assert isinstance(outcome, NestingTooDeep), (
            f"an input nested beyond the limit ({fuzz.GUARANTEED_DEPTH}) gave {outcome!r}"[:500])
    elif isinstance(outcome, NestingTooDeep):
        depth = fuzz.input_depth(messages, variables, name)
        raise AssertionError(
            f"NestingTooDeep for an input nested only {depth} levels deep "
            f"(documented: never at {fuzz.GUARANTEED_DEPTH} or less): {outcome}")
    elif not isinstance(outcome, ChatFormatError):
        assert type(outcome) is str
