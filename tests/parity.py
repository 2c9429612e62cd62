"""The parity check every format's tests share: the port against the oracle, on one input."""

from __future__ import annotations

import difflib
from datetime import datetime
from typing import Any

from hypothesis import note as _hypothesis_note
from hypothesis.errors import InvalidArgument

import chatformats
from chatformats import ChatFormatError, InternalError, TemplateError
from chatformats._core import NESTING_LIMIT

from . import oracle

#: The error-class mapping of the parity contract (``chatformats.errors``): the class of what
#: the reference raises -> the ``ChatFormatError`` subclass chatformats raises there.
ERROR_CLASSES = {
    "TemplateError": "TemplateError",  # raise_exception(msg)
    "UndefinedError": "UndefinedValueError",
    "TypeError": "TemplateTypeError",
    "ValueError": "TemplateTypeError",
    "RecursionError": "NestingTooDeep",
}


def expected_class(reference_exc_type: str | None) -> str:
    """The chatformats error class the parity contract maps the reference's exception to."""
    assert reference_exc_type in ERROR_CLASSES, f"no mapping for the reference's {reference_exc_type}"
    return ERROR_CLASSES[reference_exc_type]


def depth(value: Any) -> int:
    """How many containers deep ``value`` nests, as the render core measures it: breadth first,
    each container once (a tree's depth; for shared or cyclic references, the shortest path to
    the deepest container).  Written independently of ``chatformats._core``."""
    level, seen, levels = [value], set(), 0
    while True:
        fresh = [v for v in level if type(v) in (dict, list, tuple) and id(v) not in seen]
        if not fresh:
            return levels
        levels += 1
        below: list[Any] = []
        for v in fresh:
            if id(v) in seen:
                continue
            seen.add(id(v))
            below.extend(v.values() if type(v) is dict else v)
        level = below


def beyond_limit(*values: Any) -> bool:
    """Whether some value nests deeper than the declared nesting limit (where chatformats
    refuses with ``NestingTooDeep`` whatever the reference does)."""
    return any(depth(v) > NESTING_LIMIT for v in values)


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
    except TypeError as exc:  # API misuse, as Template.render's own signature refuses it
        return oracle.Outcome(kind="api", message=str(exc), exc_type="TypeError")
    return oracle.Outcome(text=text)


def note(text: str) -> None:
    """Hypothesis's ``note`` (shown with a failing example); nothing outside a given test."""
    try:
        _hypothesis_note(text)
    except InvalidArgument:  # a plain test: the assertion message says enough
        pass


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
    """``port(x) == oracle(x)``, or both fail with mapped error classes (:data:`ERROR_CLASSES`):
    the template's ``raise_exception`` as a :class:`TemplateError` with the same message, an
    ``UndefinedError`` as ``UndefinedValueError``, a ``TypeError``/``ValueError`` as
    ``TemplateTypeError``, a ``RecursionError`` as ``NestingTooDeep``; a keyword that
    ``Template.render`` refuses as the same ``TypeError``.  Beyond the nesting limit the port
    raises ``NestingTooDeep`` whatever the oracle does.  Returns the oracle's outcome."""
    variables = dict(variables or {})
    expected = oracle.render(name, messages, now=now, **variables)
    got = port_outcome(name, messages, now, variables)
    note(f"oracle: {expected!r}")
    note(f"port:   {got!r}")
    # The limit holds for what the template reads: a variable it never looks up is not checked.
    fmt = chatformats.get_format(name)
    read = [value for key, value in variables.items() if key in fmt.variables or key in fmt.calls]
    if got.exc_type == "NestingTooDeep" and beyond_limit(messages, *read):
        return expected  # the declared limit: refused before rendering, deterministically
    if beyond_limit(messages, *read):
        raise AssertionError(f"a value nests beyond the limit, but the port gave {got!r}")
    if isinstance(messages, (list, tuple)) and messages and isinstance(messages[0], (list, tuple)):
        # A batch given to the template layer (deliberate difference 6 in docs/guarantees.md):
        # refused before rendering, whatever the template would make of it.
        assert (got.exc_type, (got.message or "").startswith("messages is a batch of")) == (
            "InvalidConversation", True), f"a batch given to render: the port gave {got!r}"
        return expected
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
        if got.kind == "api":
            assert (expected.exc_type, expected.message) == ("TypeError", got.message), (
                f"the port refused the call ({got.message}); oracle: {expected.exc_type}: {expected.message}")
        else:
            assert got.exc_type == expected_class(expected.exc_type), (
                f"error class: oracle {expected.exc_type}: {expected.message!r} -> expected "
                f"{expected_class(expected.exc_type)}; port {got.exc_type}: {got.message!r}"
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
