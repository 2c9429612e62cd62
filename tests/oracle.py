"""The reference renderer: jinja2 configured exactly as transformers configures it.

Mirrors ``transformers.utils.chat_template_utils._cached_compile_jinja_template`` (5.24.0):
``ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
extensions=[loopcontrols])``, transformers' ``tojson`` filter, the ``raise_exception``,
``strftime_now``, ``dict`` and ``namespace`` globals.  The one piece left out is transformers'
``AssistantTracker`` extension, which only adds the ``{% generation %}`` tag that none of the
five templates uses.  The environment itself is built by ``chatformats._reference`` (the
package's reference renderer, which ``chatformats verify`` uses), so it is defined in one place.
``tests/test_oracle_vs_transformers.py`` proves this oracle renders what
transformers itself renders.

The clock behind ``strftime_now`` is injected per render (``now=``).  While rendering, the oracle
records which lines of the compiled template ran, mapped back to template lines through jinja2's
debug info: :func:`coverage_report` gives "lines exercised N/M" per template.
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any, Callable

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

import chatformats
from chatformats import _reference

FIXED_NOW = datetime(2026, 3, 7, 14, 5, 9)

_clock: list[datetime] = [FIXED_NOW]


def make_environment() -> ImmutableSandboxedEnvironment:
    """The environment, built by the package's reference renderer (``chatformats._reference``,
    the one place it is defined; ``chatformats verify`` uses it too), on this module's clock."""
    env: ImmutableSandboxedEnvironment = _reference.make_environment(lambda: _clock[0])
    return env


ENV = make_environment()

Outcome = _reference.Outcome


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


def render(name: str, messages: Any, now: datetime = FIXED_NOW, *, record_coverage: bool = True,
           **variables: Any) -> Outcome:
    """Render with the reference template; never raises for a template failure.

    Lines executed count towards the template's coverage only with ``record_coverage`` (the
    default): tests that do not compare a port pass False, so coverage speaks of parity tests."""
    tmpl = template(name)
    cov = _coverage[name]
    _clock[0] = now
    previous = sys.gettrace()
    if record_coverage:
        cov.renders += 1
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


def coverage_sets(name: str) -> tuple[set[int], set[int]]:
    """(exercised template lines, template lines holding code) for format ``name``."""
    template(name)
    cov = _coverage[name]
    return cov.exercised(), cov.template_lines()


def coverage_renders(name: str) -> int:
    return _coverage[name].renders if name in _coverage else 0
