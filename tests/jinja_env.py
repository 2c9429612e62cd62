"""A plain jinja2 environment, built here from the published definition of transformers'
chat-template environment, to cross-check the oracle (``tests/oracle.py``, transformers' own
compiled template) and the package's ``chatformats.verify``.

The definition (``transformers.utils.chat_template_utils``, 5.24.0):
``ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])``;
the ``tojson`` filter is ``json.dumps(x, ensure_ascii=False, indent=indent, separators=separators,
sort_keys=sort_keys)``; the globals are ``raise_exception(msg)`` raising
``jinja2.exceptions.TemplateError(msg)``, ``strftime_now(fmt)`` (here on an injected clock),
``dict`` (calling and ``fromkeys`` only) and ``namespace`` (jinja2's, refusing names that start
with ``_``).  transformers' ``{% generation %}`` extension is left out: no template uses it.

Nothing here comes from package code: the template text is read from ``reference_templates/``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import jinja2
from jinja2 import meta
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

REFERENCE_TEMPLATES = Path(__file__).resolve().parent.parent / "reference_templates"

#: Names the environment defines as globals (transformers' and jinja2's own): a template that
#: reads them reads no caller variable.
ENVIRONMENT_GLOBALS = frozenset(
    {"raise_exception", "strftime_now", "dict", "namespace", "range", "lipsum", "cycler", "joiner"}
)


def make_environment(clock: Callable[[], datetime]) -> ImmutableSandboxedEnvironment:
    """The environment, with ``strftime_now(fmt)`` formatting ``clock()``."""

    def raise_exception(message: Any) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
               sort_keys: bool = False) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    class Dict:
        def __call__(self, *args: Any, **kwargs: Any) -> dict:
            return dict(*args, **kwargs)

        def fromkeys(self, *args: Any, **kwargs: Any) -> dict:
            return dict.fromkeys(*args, **kwargs)

    def refuse_underscore(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(
                "Chat templates cannot store underscore-prefixed attributes on a namespace, "
                f"but got {name!r}. Please rename the attribute.")

    class Namespace(jinja2.utils.Namespace):
        def __init__(*args: Any, **kwargs: Any) -> None:
            self, args = args[0], args[1:]
            attrs = dict(*args, **kwargs)
            for name in attrs:
                refuse_underscore(name)
            jinja2.utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name: str, value: Any) -> None:
            refuse_underscore(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals.update(raise_exception=raise_exception,
                       strftime_now=lambda fmt: clock().strftime(fmt),
                       dict=Dict(), namespace=Namespace)
    return env


_clock: list[datetime] = [datetime(2026, 3, 7, 14, 5, 9)]
ENV = make_environment(lambda: _clock[0])
_templates: dict[str, jinja2.Template] = {}


def template_text(template_file: str) -> str:
    """The pinned reference template ``reference_templates/<template_file>``, its bytes decoded
    as they are pinned (a CRLF file stays CRLF)."""
    return (REFERENCE_TEMPLATES / template_file).read_bytes().decode("utf-8")


def render(template_file: str, messages: Any, now: datetime, **variables: Any) -> tuple:
    """``("ok", text)`` or ``("error", exception class name, message)``: the template rendered
    in this environment as ``Template.render(messages=..., **variables)`` at ``now``."""
    if template_file not in _templates:
        _templates[template_file] = ENV.from_string(template_text(template_file))
    _clock[0] = now
    try:
        return ("ok", _templates[template_file].render(messages=messages, **variables))
    except jinja2.exceptions.TemplateError as exc:
        return ("error", type(exc).__name__, exc.message)
    except Exception as exc:  # noqa: BLE001 — every failure is an outcome
        return ("error", type(exc).__name__, str(exc))


def template_variables(template_file: str) -> list[str]:
    """The names the template reads from its caller (``jinja2.meta.find_undeclared_variables``
    minus the environment's globals), sorted."""
    names: set[str] = meta.find_undeclared_variables(ENV.parse(template_text(template_file)))
    return sorted(names - ENVIRONMENT_GLOBALS)


def parse(template_file: str) -> jinja2.nodes.Template:
    """The template's syntax tree."""
    return ENV.parse(template_text(template_file))
