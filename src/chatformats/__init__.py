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

from . import _core, _registry
from .errors import (
    ChatFormatError,
    ConcurrentModification,
    InternalError,
    InvalidClock,
    InvalidConversation,
    NestingTooDeep,
    ParseError,
    TemplateError,
    TemplateTypeError,
    UndefinedValueError,
    UnknownFormatError,
    UnknownVariableError,
    SilentInput,
)

# Importing chatformats loads only this module, the errors, the render core and the registry's
# table (no port, no ``typing``): the pipeline, the Jinja primitives and each port load on
# first use (``render`` imports a format's port the
# first time it renders that format; the names below come from ``__getattr__``), so the import
# stays in the low milliseconds in a process that has already imported ``json`` and
# ``datetime``.  ``TYPE_CHECKING`` is a plain constant so that ``typing`` itself is not imported.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._lookup import detect, from_pretrained
    from ._registry import ChatFormat, formats, get_format
    from ._finding import Finding
    from ._spans import Rendering, Span
    from .parsing import ResponseParser, parse_response
    from .pipeline import apply_chat_template, apply_chat_template_spans
    from .ids import Ids, TokenSource
    from .rollout import Turn, bridge, prefix_stable, start

_LAZY = {
    "formats": "._registry",
    "get_format": "._registry",
    "ChatFormat": "._registry",
    "apply_chat_template": ".pipeline",
    "apply_chat_template_spans": ".pipeline",
    "parse_response": ".parsing",
    "ResponseParser": ".parsing",
    "detect": "._lookup",
    "from_pretrained": "._lookup",
    "Rendering": "._spans",
    "Span": "._spans",
    "Finding": "._finding",
    "Ids": ".ids",
    "TokenSource": ".ids",
    "start": ".rollout",
    "bridge": ".rollout",
    "Turn": ".rollout",
    "prefix_stable": ".rollout",
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


from ._version import __version__  # noqa: E402 — after the lazy names, as before

__all__ = [
    "render",
    "render_spans",
    "Rendering",
    "Span",
    "audit",
    "audit_chat_template",
    "Finding",
    "apply_chat_template",
    "apply_chat_template_spans",
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
    "SilentInput",
    "InvalidClock",
    "ConcurrentModification",
    "InternalError",
    "ParseError",
    "parse_response",
    "ResponseParser",
    "NESTING_LIMIT",
    "render_ids",
    "Ids",
    "TokenSource",
    "start",
    "bridge",
    "Turn",
    "prefix_stable",
]

#: The deepest nesting of containers either layer accepts (see ``docs/guarantees.md``).
NESTING_LIMIT = _core.NESTING_LIMIT

_core_render = _core.render
_render_spans = _registry.render_spans
_port = _registry.port
#: The registry's port table (``_registry.entry`` without ``strict``): read here directly, since
#: a hit is all a render by a name already used needs.
_PORTS = _registry._PORTS


def render(name: str | ChatFormat, messages: Any, *, now: datetime | None = None,
           strict: bool = False, **variables: Any) -> str:
    """Render ``messages`` with the chat template of format ``name`` (a format name or a model
    id it serves, in any case, or a :class:`ChatFormat`).

    ``variables`` are the template's own names (``tools``, ``add_generation_prompt``,
    ``enable_thinking``, ``bos_token``, ...); one not passed is undefined to the template, as in
    jinja2's ``Template.render(**context)``, and one named like a global the template calls
    (``namespace``, ``raise_exception``, ``strftime_now``) shadows that global, as there.  ``now``
    is the clock behind ``strftime_now`` (default: ``datetime.now()``, as transformers).

    ``messages`` is a list (or tuple) of JSON-like values; every value in it and in each variable
    the template reads must be JSON-like data (``dict``, ``list``, ``tuple``, ``str``, ``int``,
    ``float``, ``bool``, ``None``) nested at most ``NESTING_LIMIT`` (400) levels deep, else
    :class:`InvalidConversation` (or :class:`NestingTooDeep`); a variable the template never
    reads is not checked (it cannot change the output).  Where the template calls
    ``raise_exception(msg)`` this raises :class:`TemplateError` with ``msg``; where Jinja would
    fail otherwise, another :class:`ChatFormatError` (see :mod:`chatformats.errors` for the
    mapping).  A variable named ``self`` is a ``TypeError``, as in ``Template.render``.  With
    ``strict=True`` a variable the
    template never reads is an :class:`UnknownVariableError` (a typo such as ``enable_thinkng``
    would render silently), and input the template drops or prints as Python syntax a
    :class:`SilentInput` (``docs/audit.md``, "Dropped and repr input").
    """
    if strict:
        text: str = _render_spans(name, messages, now, strict, variables).text
        return text
    try:  # _registry.entry(name, variables, strict=False)
        port, calls, names = _PORTS[name]
    except (KeyError, TypeError):  # first use of this name, a format object, or not a format
        port, calls, names = _port(name)
    return _core_render(name, port, calls, names, messages, now, variables)


def render_spans(name: str | ChatFormat, messages: Any, *, now: datetime | None = None,
                 strict: bool = False, **variables: Any) -> Rendering:
    """:func:`render`, with the structure behind the text: a read-only :class:`Rendering` whose
    ``.text`` is exactly what :func:`render` returns for the same arguments (and which fails
    where it fails), ``.spans`` say which input value each character came from and
    ``.assistant_spans`` what the model generates (``docs/spans.md``)."""
    rendering: Rendering = _render_spans(name, messages, now, strict, variables)
    return rendering


def render_ids(name: str | ChatFormat, messages: Any, *, tokenizer: Any, safe: bool = False,
               now: datetime | None = None, strict: bool = False, **variables: Any) -> Ids:
    """:func:`render_spans` encoded by ``tokenizer`` (a ``tokenizers.Tokenizer`` or a transformers
    fast tokenizer) with no special tokens added, as transformers encodes a rendered chat: an
    :class:`Ids` (ids, offsets, each token's provenance); with ``safe=True`` control tokens only
    where the template writes them (``docs/ids.md``)."""
    from . import ids

    enc = ids.encoder(tokenizer)
    return ids.encode_rendering(render_spans(name, messages, now=now, strict=strict, **variables),
                                enc, safe)


def audit(name: str | ChatFormat, messages: Any, *, now: datetime | None = None,
          strict: bool = False, **variables: Any) -> tuple[Finding, ...]:
    """The format's control strings (``get_format(name).control_strings``: its tokenizer's special
    tokens and its template's structural tags) wherever input-derived text put them in the prompt
    :func:`render` gives for these arguments: one :class:`Finding` per occurrence, with the input
    path, the offset in the input value, the offset in the prompt and the token
    (``docs/audit.md``); and, beside them, input the render dropped (``kind == "dropped"``) and
    values it printed as Python syntax (``kind == "repr"``).  The prompt itself is not changed;
    an input that fails to render fails here the same way (with ``strict=True``, a dropped or
    repr input too)."""
    from . import _audit

    return _audit.template_layer(name, messages, now, strict, variables)[1]


def audit_chat_template(name: str | ChatFormat, messages: Any, *, tools: Any = None,
                        documents: Any = None, add_generation_prompt: Any = False,
                        continue_final_message: Any = False, now: datetime | None = None,
                        **kwargs: Any) -> tuple[Finding, ...]:
    """:func:`audit` at the pipeline layer: the findings in the prompt
    :func:`apply_chat_template` gives for these arguments (from ``apply_chat_template_spans``).
    Paths name the values as the template received them: a ``reasoning`` that transformers
    copies to ``reasoning_content`` is reported under ``reasoning_content``, with offsets in the
    rendered text."""
    from . import _audit

    if _core.is_batch(messages):  # one conversation's findings: a batch is audited one by one
        raise _core.batch_given(messages)
    kwargs.update(tools=tools, documents=documents, add_generation_prompt=add_generation_prompt,
                  continue_final_message=continue_final_message)
    return _audit.pipeline_layer(name, messages, now, kwargs)[1]
