"""The parity check every format's tests share: the port against the oracle, on one input."""

from __future__ import annotations

import difflib
from datetime import datetime
from typing import Any

from hypothesis import note

import chatformats
from chatformats import ChatFormatError, InternalError, TemplateError

from . import oracle


def port_outcome(name: str, messages: Any, now: datetime, variables: dict[str, Any]) -> oracle.Outcome:
    """Render with the port; any exception that is not a ChatFormatError fails the test."""
    try:
        text = chatformats.render(name, messages, now=now, **variables)
    except InternalError as exc:
        raise AssertionError(f"the port raised an InternalError: {exc}") from exc
    except TemplateError as exc:
        return oracle.Outcome(kind="raise_exception", message=str(exc), exc_type=type(exc).__name__)
    except ChatFormatError as exc:
        return oracle.Outcome(kind="other", message=str(exc), exc_type=type(exc).__name__)
    return oracle.Outcome(text=text)


def diff(expected: str, got: str) -> str:
    return "\n".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True), got.splitlines(keepends=True),
            "oracle", "port", lineterm="",
        )
    )


def assert_parity(
    name: str, messages: Any, variables: dict[str, Any] | None = None,
    now: datetime = oracle.FIXED_NOW,
) -> oracle.Outcome:
    """``port(x) == oracle(x)``, or both fail — the template's ``raise_exception`` as a
    :class:`TemplateError` with the same message, any other Jinja failure as another
    ``ChatFormatError``.  Returns the oracle's outcome."""
    variables = dict(variables or {})
    expected = oracle.render(name, messages, now=now, **variables)
    got = port_outcome(name, messages, now, variables)
    note(f"oracle: {expected!r}")
    note(f"port:   {got!r}")
    if expected.ok:
        if not got.ok:
            raise AssertionError(
                f"the oracle rendered but the port raised {got.exc_type}: {got.message}\n"
                f"oracle text: {expected.text!r}"
            )
        if got.text != expected.text:
            assert expected.text is not None and got.text is not None
            raise AssertionError("output differs:\n" + diff(expected.text, got.text))
    else:
        if got.ok:
            raise AssertionError(
                f"the oracle failed ({expected.exc_type}: {expected.message}) "
                f"but the port rendered {got.text!r}"
            )
        if expected.kind == "raise_exception" or got.kind == "raise_exception":
            assert (got.kind, got.message) == (expected.kind, expected.message), (
                f"oracle: {expected.exc_type}: {expected.message!r}; "
                f"port: {got.exc_type}: {got.message!r}"
            )
    return expected


def assert_template_lines_exercised(name: str, unreachable: dict[int, str] | None = None) -> None:
    """Every template line that holds code ran in the oracle during this session's parity
    tests, except the listed ``unreachable`` lines (each with the reason no input reaches it
    in transformers' environment), which must indeed never have run."""
    import pytest

    if oracle.coverage_renders(name) == 0:
        pytest.skip(f"no parity test for {name} ran in this session")
    unreachable = unreachable or {}
    exercised, total, missed = oracle.coverage_report(name)
    stale = sorted(set(unreachable) - set(missed))
    assert not stale, f"{name}: lines listed as unreachable did run: {stale}"
    really_missed = [line for line in missed if line not in unreachable]
    source = chatformats.get_format(name).template_source().splitlines()
    assert not really_missed, f"{name}: template lines never exercised:\n" + "\n".join(
        f"  {line}: {source[line - 1].strip()}" for line in really_missed
    )
