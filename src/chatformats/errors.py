"""The error tree.

Every failure of a render is a :class:`ChatFormatError` (itself a ``ValueError``), one of:

- :class:`TemplateError`: the template called ``raise_exception(msg)``; ``str(err) == msg``.
- :class:`UndefinedValueError`: where Jinja raises ``UndefinedError`` (an attribute or item of
  an undefined value, an undefined value concatenated with ``+``, ``tojson`` of undefined).
- :class:`TemplateTypeError`: where Jinja fails with a Python ``TypeError`` or ``ValueError``
  (``None`` concatenated to a string, ``|items`` of a non-mapping, iterating ``None``,
  ``|length`` of a number, a circular structure given to ``tojson``).
- :class:`InvalidConversation`: input that is not JSON-like data, or is nested deeper than
  Python can serialise (:class:`NestingTooDeep`).
- :class:`UnknownFormatError`: a format name that is not registered.
- :class:`ParseError`: a completion that is not an assistant turn of its format (malformed
  tool-call JSON, text where the format allows none); raised by :mod:`chatformats.parsing`.
- :class:`UnknownVariableError`: with ``strict=True``, a variable the template never reads.
- :class:`ConcurrentModification`: the input was changed (by another thread) while it was
  being rendered.
- :class:`InternalError`: a bug in chatformats (an exception a port did not mean to raise);
  the test suite fails on any of these.
"""

from __future__ import annotations

__all__ = [
    "ChatFormatError",
    "TemplateError",
    "UndefinedValueError",
    "TemplateTypeError",
    "InvalidConversation",
    "NestingTooDeep",
    "UnknownFormatError",
    "UnknownVariableError",
    "ConcurrentModification",
    "InternalError",
    "ParseError",
]

# Resource errors are not rendering errors: ``MemoryError``, ``KeyboardInterrupt`` and every other
# ``BaseException`` that is not an ``Exception`` pass through chatformats unchanged.


class ChatFormatError(ValueError):
    """Base class of every error chatformats raises while rendering."""


class TemplateError(ChatFormatError):
    """The template's own ``raise_exception(message)``; the message is verbatim."""


class UndefinedValueError(ChatFormatError):
    """Jinja's ``UndefinedError``: an undefined value was used where a value is required."""


class TemplateTypeError(ChatFormatError):
    """Jinja failed with a Python ``TypeError``/``ValueError`` (wrong type where the template
    concatenates, iterates, measures or serialises a value)."""


class InvalidConversation(ChatFormatError):
    """The input is not a conversation chatformats accepts (not JSON-like data)."""


class NestingTooDeep(InvalidConversation):
    """A value is nested deeper than Python's ``json.dumps``/``repr`` can recurse."""


class UnknownFormatError(ChatFormatError):
    """No format with that name is registered."""


class UnknownVariableError(ChatFormatError):
    """With ``strict=True``: a variable was passed that the template never reads (a typo such as
    ``enable_thinkng``); the message lists the variables the template reads."""


class ConcurrentModification(ChatFormatError):
    """The input changed while it was being rendered (another thread added, removed or
    replaced a message or a value): the render saw no consistent conversation.  Render a copy,
    or synchronise the threads."""


class InternalError(ChatFormatError):
    """An unexpected exception inside a port: always a chatformats bug."""


class ParseError(ChatFormatError):
    """A completion that :func:`chatformats.parse_response` cannot read back as an assistant
    message of its format; the message says what is wrong and where."""
