"""The reference renderer: jinja2 configured exactly as transformers configures it.

Mirrors ``transformers.utils.chat_template_utils._cached_compile_jinja_template`` (5.24.0):
``ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
extensions=[loopcontrols])``, transformers' ``tojson`` filter, the ``raise_exception``,
``strftime_now``, ``dict`` and ``namespace`` globals.  The one piece left out is transformers'
``AssistantTracker`` extension, which only adds the ``{% generation %}`` tag that none of the
five templates uses.  ``tests/test_oracle_vs_transformers.py`` proves this oracle renders what
transformers itself renders.

The clock behind ``strftime_now`` is injected per render (``now=``).  While rendering, the oracle
records which lines of the compiled template ran, mapped back to template lines through jinja2's
debug info: :func:`coverage_report` gives "lines exercised N/M" per template.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

import jinja2
import jinja2.ext
import jinja2.utils
from jinja2.sandbox import ImmutableSandboxedEnvironment

import chatformats

FIXED_NOW = datetime(2026, 3, 7, 14, 5, 9)

_clock: list[datetime] = [FIXED_NOW]


def _raise_exception(message: Any) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
            sort_keys: bool = False) -> str:
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def _strftime_now(format: str) -> str:
    return _clock[0].strftime(format)


class _TemplateDict:
    def __call__(self, *args: Any, **kwargs: Any) -> dict:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict:
        return dict.fromkeys(*args, **kwargs)


class _TemplateNamespace(jinja2.utils.Namespace):
    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 (jinja2's own signature trick)
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            _TemplateNamespace._check_name(name)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _TemplateNamespace._check_name(name)
        jinja2.utils.Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check_name(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(
                f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}. "
                "Please rename the attribute."
            )


def make_environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["dict"] = _TemplateDict()
    env.globals["namespace"] = _TemplateNamespace
    return env


ENV = make_environment()


@dataclass
class Outcome:
    """What a render gave: ``text``, or an error ``kind`` (``raise_exception`` for the
    template's own error, ``other`` for any other failure) with its message."""

    text: str | None = None
    kind: str | None = None
    message: str | None = None
    exc_type: str | None = None

    @property
    def ok(self) -> bool:
        return self.kind is None


class _Coverage:
    """Template lines executed, per format, through jinja2's debug info."""

    def __init__(self, template: jinja2.Template) -> None:
        self.globals = template.root_render_func.__globals__  # type: ignore[attr-defined]
        self.marks = list(template.debug_info)  # (template line, code line)
        self.code_lines_hit: set[int] = set()
        self.renders = 0

    def template_lines(self) -> set[int]:
        return {t for t, _ in self.marks}

    def exercised(self) -> set[int]:
        return {t for t, c in self.marks if c in self.code_lines_hit}


_templates: dict[str, jinja2.Template] = {}
_coverage: dict[str, _Coverage] = {}


def template(name: str) -> jinja2.Template:
    if name not in _templates:
        source = chatformats.get_format(name).template_source()
        _templates[name] = ENV.from_string(source)
        _coverage[name] = _Coverage(_templates[name])
    return _templates[name]


def _tracer_for(cov: _Coverage) -> Callable[..., Any]:
    hits = cov.code_lines_hit
    target = cov.globals

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            hits.add(frame.f_lineno)
        return local

    def global_(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_globals is target:
            hits.add(frame.f_lineno)
            return local
        return None

    return global_


def render(name: str, messages: Any, now: datetime = FIXED_NOW, **variables: Any) -> Outcome:
    """Render with the reference template; never raises for a template failure."""
    tmpl = template(name)
    cov = _coverage[name]
    cov.renders += 1
    _clock[0] = now
    previous = sys.gettrace()
    sys.settrace(_tracer_for(cov))
    try:
        text = tmpl.render(messages=messages, **variables)
    except jinja2.exceptions.TemplateError as exc:
        kind = "raise_exception" if type(exc) is jinja2.exceptions.TemplateError else "other"
        return Outcome(kind=kind, message=exc.message, exc_type=type(exc).__name__)
    except Exception as exc:  # noqa: BLE001 — any other failure is an outcome too
        return Outcome(kind="other", message=str(exc), exc_type=type(exc).__name__)
    finally:
        sys.settrace(previous)
        _clock[0] = FIXED_NOW
    return Outcome(text=text)


def coverage_report(name: str) -> tuple[int, int, list[int]]:
    """(exercised, total, missed template lines) for format ``name``."""
    template(name)
    cov = _coverage[name]
    total = cov.template_lines()
    hit = cov.exercised()
    return len(hit), len(total), sorted(total - hit)


def coverage_renders(name: str) -> int:
    return _coverage[name].renders if name in _coverage else 0
