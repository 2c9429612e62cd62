"""The safety net's rules: what an exception that is not a :class:`ChatFormatError` means.

Only :class:`ChatFormatError` subclasses leave a render (plus ``TypeError`` for misuse of the
Python API).  Resource errors are not rendering errors and pass through unchanged:
``MemoryError``, and every ``BaseException`` that is not an ``Exception`` (``KeyboardInterrupt``,
``SystemExit``, ``GeneratorExit``); the one deliberate conversion is ``RecursionError``, which
becomes :class:`NestingTooDeep` where the layers catch it.  Any other exception is classified by
:func:`unexpected`:

- ``RuntimeError: dictionary changed size during iteration`` (and its kin): the input changed
  while it was read, :class:`ConcurrentModification`;
- ``ValueError: Exceeds the limit (4300 digits) for integer string conversion``: Jinja fails the
  same way wherever the template writes such an integer (``str()``, ``tojson``):
  :class:`TemplateTypeError`;
- anything else: the port is run once more on a copy of the input taken now.  If the copy
  renders, or fails with a :class:`ChatFormatError`, the first failure came from input that
  changed during the render (:class:`ConcurrentModification`); if the copy fails the same way,
  it is a bug in chatformats (:class:`InternalError`, which the test suite fails on).

All of this runs only after a failure: a render that succeeds pays nothing for it.
"""

from __future__ import annotations

from typing import Any, Callable

from .errors import (
    ChatFormatError,
    ConcurrentModification,
    InternalError,
    NestingTooDeep,
    TemplateTypeError,
)

__all__ = ["is_mutation", "is_int_digits_limit", "unexpected", "concurrent"]

#: The messages CPython gives when a dict, set, deque or OrderedDict changes under an iterator.
_MUTATION_MESSAGES = ("changed size during iteration", "changed during iteration",
                      "mutated during iteration")


def is_mutation(exc: BaseException) -> bool:
    """Whether ``exc`` is CPython's error for a container changed while it was iterated."""
    if type(exc) is not RuntimeError:  # RecursionError is a RuntimeError: not this one
        return False
    text = str(exc)
    return any(message in text for message in _MUTATION_MESSAGES)


def is_int_digits_limit(exc: BaseException) -> bool:
    """Whether ``exc`` is CPython's refusal to convert an integer of more than
    ``sys.get_int_max_str_digits()`` digits to text."""
    return type(exc) is ValueError and "integer string conversion" in str(exc)


def concurrent(where: str) -> ConcurrentModification:
    return ConcurrentModification(
        f"{where} changed while it was being rendered (another thread modified it): render a "
        "copy, or do not modify a conversation while it renders"
    )


def unexpected(name: str, port: Callable[..., str], messages: Any, variables: Any, now: Any,
               exc: Exception, recorder: Any = None) -> ChatFormatError:
    """The :class:`ChatFormatError` that stands for ``exc``, raised by ``port`` on this input
    (see the module docstring); ``recorder``: the class of the spans recorder the failed call
    was given, if any, so the copy is rendered with a fresh one too (a bug in a port's spans
    code is a bug, not a change of the input)."""
    if is_mutation(exc):
        return concurrent("the input")
    if is_int_digits_limit(exc):
        return TemplateTypeError(f"an integer is too large to write as text: {exc}")
    bug = InternalError(
        f"{name}: unexpected {type(exc).__name__}: {exc} (this is a chatformats bug)"
    )
    try:
        snapshot = _copy(messages), _copy(variables)
    except RecursionError:  # a cyclic input: no copy, no way to tell; assume the worse
        return bug
    except RuntimeError as again:
        if is_mutation(again):
            return concurrent("the input")
        return bug
    try:
        if recorder is not None:
            port(snapshot[0], snapshot[1], now, recorder())
        else:
            port(snapshot[0], snapshot[1], now)
    except ChatFormatError:
        return concurrent("the input")
    except MemoryError:
        raise
    except Exception as again:  # noqa: BLE001 — the same input fails again: a bug
        return concurrent("the input") if is_mutation(again) else bug
    return concurrent("the input")


def _copy(value: Any) -> Any:
    """A copy of JSON-like data (dicts, lists and tuples rebuilt; leaves shared)."""
    tp = type(value)
    if tp is dict:
        return {key: _copy(item) for key, item in value.items()}
    if tp is list:
        return [_copy(item) for item in value]
    if tp is tuple:
        return tuple([_copy(item) for item in value])
    return value
