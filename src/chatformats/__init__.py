"""chatformats: LLM chat prompts rendered byte-for-byte as the models' Jinja chat templates
render them, in pure Python.

- :func:`render` — the template layer: the template alone, exactly as jinja2 renders it in
  transformers' environment with exactly the variables given.
- :func:`apply_chat_template` — the pipeline layer: what transformers 5.24's
  ``tokenizer.apply_chat_template(..., tokenize=False)`` returns (see :mod:`chatformats.pipeline`).
- :func:`formats`, :func:`get_format` — the registry.
- :func:`parse_response`, :class:`ResponseParser` — completions read back into assistant
  messages (see :mod:`chatformats.parsing` and ``docs/parsing.md``).
- the errors, all subclasses of :class:`ChatFormatError` (a ``ValueError``).
"""

from __future__ import annotations

from datetime import datetime

from .errors import (
    ChatFormatError,
    ConcurrentModification,
    InternalError,
    InvalidConversation,
    NestingTooDeep,
    ParseError,
    TemplateError,
    TemplateTypeError,
    UndefinedValueError,
    UnknownFormatError,
    UnknownVariableError,
)

# Importing chatformats loads only this module and the errors: the registry, the pipeline, the
# Jinja primitives and each port load on first use (``render`` imports a format's port the
# first time it renders that format; the names below come from ``__getattr__``), so the import
# stays in the low milliseconds in a process that has already imported ``json`` and
# ``datetime``.  ``TYPE_CHECKING`` is a plain constant so that ``typing`` itself is not imported.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._lookup import detect, from_pretrained
    from ._registry import ChatFormat, PortFunction, formats, get_format
    from .parsing import ResponseParser, parse_response
    from .pipeline import apply_chat_template

_LAZY = {
    "formats": "._registry",
    "get_format": "._registry",
    "ChatFormat": "._registry",
    "apply_chat_template": ".pipeline",
    "parse_response": ".parsing",
    "ResponseParser": ".parsing",
    "detect": "._lookup",
    "from_pretrained": "._lookup",
}


if not TYPE_CHECKING:  # type checkers see the imports above, not a catch-all __getattr__

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module 'chatformats' has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "render",
    "apply_chat_template",
    "formats",
    "get_format",
    "ChatFormat",
    "detect",
    "from_pretrained",
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
    "parse_response",
    "ResponseParser",
]


_LEAVES = frozenset((str, int, float, bool, type(None)))  # as _jinja's: JSON-like leaves

#: Each format's port function, looked up on first use (importing the port lazily).
_PORTS: dict[Any, PortFunction] = {}


def _load_port(name: str | ChatFormat) -> PortFunction:
    """The port of format ``name`` (importing the registry, the primitives and the port on first
    use); raises :class:`UnknownFormatError` or, for a format not ported, ``ChatFormatError``."""
    global _check_json_like
    from ._jinja import check_json_like
    from ._registry import get_format

    _check_json_like = check_json_like
    port = get_format(name).port
    _PORTS[name] = port
    return port


def _check_json_like(value: Any, path: str) -> None:  # replaced by _jinja's on first render
    from ._jinja import check_json_like

    check_json_like(value, path)


def render(name: str | ChatFormat, messages: Any, *, now: datetime | None = None,
           strict: bool = False, **variables: Any) -> str:
    """Render ``messages`` with the chat template of format ``name`` (a format name or a model
    id it serves, in any case, or a :class:`ChatFormat`).

    ``variables`` are the template's own names (``tools``, ``add_generation_prompt``,
    ``enable_thinking``, ``bos_token``, ...); one not passed is undefined to the template, as in
    jinja2's ``Template.render(**context)``.  ``now`` is the clock behind ``strftime_now``
    (default: ``datetime.now()``, as transformers).

    ``messages`` is a list (or tuple) of JSON-like values; every value must be JSON-like data
    (``dict``, ``list``, ``tuple``, ``str``, ``int``, ``float``, ``bool``, ``None``), else
    :class:`InvalidConversation`.  Where the template calls ``raise_exception(msg)`` this raises
    :class:`TemplateError` with ``msg``; where Jinja would fail otherwise, another
    :class:`ChatFormatError`.  With ``strict=True`` a variable the template never reads is an
    :class:`UnknownVariableError` (a typo such as ``enable_thinkng`` would render silently).
    """
    try:
        port = _PORTS[name]
    except (KeyError, TypeError):  # first use of this format, or a name that is not one
        port = _load_port(name)
    if type(messages) is not list and type(messages) is not tuple:
        raise InvalidConversation(
            f"messages must be a list of messages, not {type(messages).__name__}"
        )
    if strict:
        _check_variables(name, variables)
    check_json_like = _check_json_like
    check_json_like(messages, "messages")
    for key, value in variables.items():
        if type(value) not in _LEAVES:  # a flag or a token needs no walk
            check_json_like(value, key)
    if now is None:
        now = datetime.now()
    elif not isinstance(now, datetime):
        raise TypeError(f"now must be a datetime, not {type(now).__name__}")
    return _call_port(name, port, messages, variables, now)


def _check_variables(name: str | ChatFormat, variables: Any, known: Any = ()) -> None:
    """``strict=True``: every name in ``variables`` is one the template reads (or in ``known``);
    raises :class:`UnknownVariableError` listing the template's variables else."""
    from ._registry import get_format

    fmt = get_format(name)
    if fmt.variables is None:
        return
    unknown = sorted(set(variables) - set(fmt.variables) - set(known))
    if unknown:
        raise UnknownVariableError(
            f"{fmt.name}: the template does not read {', '.join(unknown)}; it reads "
            f"{', '.join(fmt.variables) or 'no variables'} (and messages)"
        )


def _call_port(name: str | ChatFormat, port: PortFunction, messages: Any, variables: Any, now: datetime) -> str:
    """``port(messages, variables, now)`` behind the safety net both layers share: a
    ``RecursionError`` becomes :class:`NestingTooDeep`, ``MemoryError`` and ``SystemError`` (and
    every ``BaseException`` that is not an ``Exception``) pass through unchanged, and any other
    exception that is not a :class:`ChatFormatError` is classified by
    :func:`chatformats._safety.unexpected` (input changed during the render, an integer too long
    to write, or an :class:`InternalError`: a port bug, which the tests fail on)."""
    try:
        return port(messages, variables, now)
    except ChatFormatError:
        raise
    except RecursionError:
        raise NestingTooDeep("input is nested too deeply to render") from None
    except (MemoryError, SystemError):  # resource and interpreter faults: unchanged
        raise
    except Exception as exc:
        from ._safety import unexpected

        raise unexpected(name, port, messages, variables, now, exc) from exc
