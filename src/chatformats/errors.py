"""The error tree.

Every failure of a render is a :class:`ChatFormatError` (itself a ``ValueError``).  Where the
reference (jinja2 in transformers' environment, or transformers' pipeline) fails, chatformats
fails with the class the reference's exception maps to; the parity tests check this mapping at
both layers (``tests/parity.py``, ``tests/test_pipeline.py``):

============================================  ==========================================
the reference raises                          chatformats raises
============================================  ==========================================
``jinja2.TemplateError`` (``raise_exception``)  :class:`TemplateError`, message verbatim
``jinja2.UndefinedError``                     :class:`UndefinedValueError`
``TypeError`` / ``ValueError`` in the template  :class:`TemplateTypeError`
``RecursionError``                            :class:`NestingTooDeep`
transformers' pipeline ``ValueError``         :class:`InvalidConversation`, message verbatim
transformers' pipeline ``TypeError``          :class:`PipelineTypeError`, message verbatim
``TypeHintParsingException`` /
``DocstringParsingException``                 :class:`ToolSchemaError`, message verbatim
============================================  ==========================================

- :class:`TemplateError`: the template called ``raise_exception(msg)``; ``str(err) == msg``.
- :class:`UndefinedValueError`: where Jinja raises ``UndefinedError`` (an attribute or item of
  an undefined value, an undefined value concatenated with ``+``).
- :class:`TemplateTypeError`: where Jinja fails with a Python ``TypeError`` or ``ValueError``
  (``None`` concatenated to a string, ``|items`` of a non-mapping, iterating ``None``,
  ``|length`` of a number, ``tojson`` of undefined or of a circular structure, calling a global
  the caller shadowed with a variable).
- :class:`InvalidConversation`: input that is not JSON-like data, or that transformers' pipeline
  refuses; :class:`NestingTooDeep` (one of them): input nested deeper than the nesting limit
  (``chatformats._core.NESTING_LIMIT``), where the reference's own limit is Python's stack.
- :class:`UnknownFormatError`: a format name that is not registered.
- :class:`ParseError`: a completion that is not an assistant turn of its format (malformed
  tool-call JSON, text where the format allows none); raised by :mod:`chatformats.parsing`.
- :class:`UnknownVariableError`: with ``strict=True``, a variable the template never reads.
- :class:`SilentInput`: with ``strict=True``, input the template drops or prints as Python
  syntax (the audit's ``dropped`` and ``repr`` findings).
- :class:`InvalidClock`: ``now=`` that is neither a ``datetime`` nor an ISO 8601 string.
- :class:`ConcurrentModification`: the input was changed (by another thread) while it was
  being rendered.
- :class:`InternalError`: a bug in chatformats (an exception a port did not mean to raise);
  the test suite fails on any of these.

Misusing the Python API itself (an unknown keyword of ``render``'s own, a keyword that clashes
with a parameter of the reference's call chain) is a plain ``TypeError``, as in transformers.
"""

from __future__ import annotations

__all__ = [
    "ChatFormatError",
    "TemplateError",
    "UndefinedValueError",
    "TemplateTypeError",
    "InvalidConversation",
    "NestingTooDeep",
    "PipelineTypeError",
    "ToolSchemaError",
    "UnknownFormatError",
    "UnknownVariableError",
    "SilentInput",
    "InvalidClock",
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
    """A value is nested deeper than the nesting limit (or, past it, than Python can recurse)."""


class PipelineTypeError(InvalidConversation, TypeError):
    """Where transformers' pipeline raises ``TypeError`` (a message that is not a dict, a
    document that is not a dict, tools or documents that are not iterable, a continued field
    that is not text): an :class:`InvalidConversation` that is also a ``TypeError``, so
    ``except TypeError`` keeps working for code moved from transformers."""


class ToolSchemaError(InvalidConversation):
    """transformers' ``TypeHintParsingException`` / ``DocstringParsingException``: a function
    given as a tool cannot be converted to a JSON schema (message verbatim)."""


class UnknownFormatError(ChatFormatError):
    """No format with that name is registered."""


class UnknownVariableError(ChatFormatError):
    """With ``strict=True``: a variable was passed that the template never reads (a typo such as
    ``enable_thinkng``); the message lists the variables the template reads."""


class SilentInput(ChatFormatError):
    """With ``strict=True``: input the template drops (a message or a documented field that
    contributed no character to the prompt) or prints as Python syntax (a container, boolean or
    ``None`` through ``str()``); ``finding`` is the audit's :class:`~chatformats.Finding` for it
    (``docs/audit.md``, "Dropped and repr input")."""

    def __init__(self, message: str, finding: object = None) -> None:
        super().__init__(message)
        self.finding = finding


class InvalidClock(ChatFormatError, TypeError):
    """``now=`` is neither a ``datetime`` nor an ISO 8601 date or date-time string (what the CLI's
    ``--now`` takes); the message says what it takes.  Also a ``TypeError``, as misusing the
    API's own parameter is."""


class ConcurrentModification(ChatFormatError):
    """The input changed while it was being rendered (another thread added, removed or
    replaced a message or a value): the render saw no consistent conversation.  Render a copy,
    or synchronise the threads."""


class InternalError(ChatFormatError):
    """An unexpected exception inside a port: always a chatformats bug."""


class ParseError(ChatFormatError):
    """A completion that :func:`chatformats.parse_response` cannot read back as an assistant
    message of its format; the message says what is wrong and where."""
