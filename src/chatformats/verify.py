"""The reference side of ``chatformats verify``: each format's reference template rendered as
transformers renders it, at both layers, for anyone who wants to check a port on their own input.

This is the one module of the package that imports jinja2 (at the top, plainly: install the
``verify`` extra, ``python -m pip install 'chatformats[verify]'``), and the one that imports
transformers (inside the functions of the pipeline layer, which also need the ``tokenizers``
package that transformers installs).  Nothing on the render path imports it: the CLI loads it
when ``verify`` runs, and ``tests/test_static.py`` names it as the only exemption.

- **Template layer** (:func:`render`): jinja2 configured as
  ``transformers.utils.chat_template_utils._cached_compile_jinja_template`` (5.24.0) configures
  it: ``ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
  extensions=[loopcontrols])``, a ``tojson`` filter that is ``json.dumps(x, ensure_ascii=False,
  indent=indent, separators=separators, sort_keys=sort_keys)``, and the globals
  ``raise_exception`` (raises ``jinja2.exceptions.TemplateError(msg)``), ``strftime_now`` (on
  the clock given), ``dict`` and ``namespace`` (refusing underscore-prefixed names).  Left out:
  transformers' ``AssistantTracker`` extension, which only adds the ``{% generation %}`` tag
  that none of the templates uses.
- **Pipeline layer** (:func:`apply_chat_template`): transformers itself,
  ``tokenizer.apply_chat_template(messages, tokenize=False, **variables)`` on the tokenizer
  :func:`transformers_tokenizer` builds.
- :func:`transformers_tokenizer` is the one builder of that tokenizer; the CLI, the benchmarks
  and the test suite's pipeline oracle all use it.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Callable

import jinja2
import jinja2.exceptions
import jinja2.ext
import jinja2.sandbox
import jinja2.utils

from ._registry import get_format

__all__ = ["Outcome", "apply_chat_template", "make_environment", "render", "require_transformers",
           "template", "transformers_tokenizer"]


class Outcome:
    """What a render gave: ``text``, or an error ``kind`` (``raise_exception`` for the
    template's own error, ``other`` for any other failure, ``api`` for a misuse of the Python
    API) with its ``message`` and the exception's class name ``exc_type``.  One record for every
    side of a comparison: the port and the reference in ``chatformats verify``, and the oracles
    of the test suite.  Importing it imports jinja2 (this module): the command imports it only
    when it verifies."""

    __slots__ = ("text", "kind", "message", "exc_type")

    def __init__(self, text: str | None = None, kind: str | None = None,
                 message: str | None = None, exc_type: str | None = None) -> None:
        self.text = text
        self.kind = kind
        self.message = message
        self.exc_type = exc_type

    @property
    def ok(self) -> bool:
        return self.kind is None

    def describe(self) -> str:
        """One line: ``renders N characters``, or ``fails: ExcType: message``."""
        if self.ok:
            return f"renders {len(self.text or '')} characters"
        return f"fails: {self.exc_type}: {self.message}"

    def _fields(self) -> tuple[str | None, str | None, str | None, str | None]:
        return (self.text, self.kind, self.message, self.exc_type)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Outcome):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return (f"Outcome(text={self.text!r}, kind={self.kind!r}, message={self.message!r}, "
                f"exc_type={self.exc_type!r})")


def _failure(exc: Exception) -> Outcome:
    """The outcome of a render that raised ``exc``: jinja2's plain ``TemplateError`` is the
    template's ``raise_exception``; anything else is another failure."""
    if isinstance(exc, jinja2.exceptions.TemplateError):
        kind = "raise_exception" if type(exc) is jinja2.exceptions.TemplateError else "other"
        return Outcome(kind=kind, message=exc.message, exc_type=type(exc).__name__)
    return Outcome(kind="other", message=str(exc), exc_type=type(exc).__name__)


# ------------------------------------------------------------------ the template layer


def make_environment(clock: Callable[[], datetime]) -> jinja2.sandbox.ImmutableSandboxedEnvironment:
    """A fresh environment configured as transformers configures it; ``strftime_now(fmt)``
    formats ``clock()``."""

    def raise_exception(message: Any) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
               sort_keys: bool = False) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def strftime_now(format: str) -> str:
        return clock().strftime(format)

    class TemplateDict:
        def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
            return dict(*args, **kwargs)

        def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
            return dict.fromkeys(*args, **kwargs)

    def check_name(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(
                f"Chat templates cannot store underscore-prefixed attributes on a namespace, "
                f"but got {name!r}. Please rename the attribute."
            )

    class TemplateNamespace(jinja2.utils.Namespace):
        def __init__(*args: Any, **kwargs: Any) -> None:  # jinja2's own signature trick
            self, args = args[0], args[1:]
            attrs = dict(*args, **kwargs)
            for name in attrs:
                check_name(name)
            jinja2.utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name: str, value: Any) -> None:
            check_name(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["dict"] = TemplateDict()
    env.globals["namespace"] = TemplateNamespace
    return env


class _Reference:
    """One environment, its compiled templates, and the clock of the current render."""

    def __init__(self) -> None:
        self.now = datetime.now()
        self.env = make_environment(lambda: self.now)
        self.templates: dict[str, jinja2.Template] = {}

    def template(self, name: str) -> jinja2.Template:
        if name not in self.templates:
            self.templates[name] = self.env.from_string(get_format(name).template_source())
        return self.templates[name]


_STATE: list[_Reference] = []


def _reference() -> _Reference:
    if not _STATE:
        _STATE.append(_Reference())
    return _STATE[0]


def template(name: str) -> jinja2.Template:
    """The reference template of format ``name``, compiled in :func:`make_environment`'s
    environment."""
    return _reference().template(name)


def render(name: str, messages: Any, variables: dict[str, Any], now: datetime) -> Outcome:
    """The reference template of format ``name`` rendered as ``Template.render(messages=...,
    **variables)`` with ``strftime_now`` on ``now``; a failure is the outcome, never raised."""
    ref = _reference()
    tmpl = ref.template(name)
    ref.now = now
    try:
        return Outcome(text=tmpl.render(messages=messages, **variables))
    except Exception as exc:  # noqa: BLE001 — every failure is an outcome
        return _failure(exc)


# ------------------------------------------------------------------ the pipeline layer


def require_transformers() -> str:
    """The installed transformers version; ``ImportError`` when transformers (or the
    ``tokenizers`` package it installs) cannot be imported."""
    import tokenizers  # noqa: F401
    import transformers
    import transformers.utils.chat_template_utils  # noqa: F401

    return str(getattr(transformers, "__version__", "?"))


_TOKENIZERS: dict[str, Any] = {}


def transformers_tokenizer(name: str) -> Any:
    """A transformers tokenizer carrying format ``name``'s reference template and its model's
    special tokens, built in-process (no download): a ``PreTrainedTokenizerFast`` around a
    ``tokenizers`` word-level model whose vocabulary is the special tokens, which are passed as
    the model's tokenizer config passes them, so ``tokenizer.special_tokens_map`` is what the
    model's own tokenizer gives the template.  One tokenizer per format, built on first use."""
    if name not in _TOKENIZERS:
        from tokenizers import Tokenizer, models
        from transformers import PreTrainedTokenizerFast

        tokenizer_class: Any = PreTrainedTokenizerFast  # untyped in transformers
        fmt = get_format(name)
        specials = dict(fmt.special_tokens)
        vocab = {"[UNK]": 0}
        for token in specials.values():
            vocab.setdefault(token, len(vocab))
        backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
        _TOKENIZERS[name] = tokenizer_class(
            tokenizer_object=backend, chat_template=fmt.template_source(), **specials
        )
    return _TOKENIZERS[name]


def apply_chat_template(name: str, messages: Any, variables: dict[str, Any],
                        now: datetime) -> Outcome:
    """transformers' own ``tokenizer.apply_chat_template(messages, tokenize=False,
    **variables)`` on :func:`transformers_tokenizer`'s tokenizer, with the template's
    ``strftime_now`` on ``now``; a failure is the outcome, never raised.

    transformers' ``strftime_now`` reads the module global ``datetime`` of
    ``transformers.utils.chat_template_utils`` at each call: it is swapped for the duration of
    the render.  A batch (a list of conversations) is refused as a failure."""
    import transformers.utils.chat_template_utils

    ctu: Any = transformers.utils.chat_template_utils
    tokenizer = transformers_tokenizer(name)
    real_datetime = ctu.datetime

    class _Clock(real_datetime):  # type: ignore[misc, valid-type]
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return now if tz is None else now.replace(tzinfo=tz)

    ctu.datetime = _Clock
    try:
        result = tokenizer.apply_chat_template(messages, tokenize=False, **variables)
    except Exception as exc:  # noqa: BLE001 — every failure is an outcome
        return _failure(exc)
    finally:
        ctu.datetime = real_datetime
    if not isinstance(result, str):
        return Outcome(kind="other", message="a batch of conversations", exc_type="InputError")
    return Outcome(text=result)
