"""The template layer's oracle: transformers' own compiled chat template.

``transformers.utils.chat_template_utils._compile_jinja_template(source)`` (5.24.0) is what
``tokenizer.apply_chat_template`` renders with: jinja2 in transformers' sandboxed environment,
with its ``tojson``, ``raise_exception``, ``strftime_now``, ``dict`` and ``namespace``.  The
oracle renders that very object as ``Template.render(messages=..., **variables)``, so a variable
not passed is undefined, exactly as the template layer promises.  The source is the pinned file
in ``reference_templates/`` (``tests/test_registry.py`` checks its sha256), not the package's copy.
``tests/test_oracle_vs_transformers.py`` cross-checks it against a plain jinja2 environment built
in the tests (``tests/jinja_env.py``) and against ``chatformats.verify``.

The clock: transformers' ``strftime_now`` is ``datetime.now().strftime(fmt)``, reading the module
global ``datetime`` of ``chat_template_utils`` at each call; :func:`clock` swaps that global for
a class whose ``now()`` is fixed, for the duration of a render.

While rendering, the oracle records which lines of the compiled template ran, mapped back to
template lines through jinja2's debug info (``Template.debug_info``: (template line, line of the
generated module) pairs; the generated module's globals identify its frames):
:func:`coverage_report` gives "lines exercised N/M" per template.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator

os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

import jinja2  # noqa: E402
from transformers.utils import chat_template_utils as tcu  # noqa: E402

import chatformats  # noqa: E402
from chatformats.verify import Outcome  # noqa: E402

FIXED_NOW = datetime(2026, 3, 7, 14, 5, 9)
REFERENCE_TEMPLATES = Path(__file__).resolve().parent.parent / "reference_templates"


def failure(exc: BaseException) -> Outcome:
    """The outcome of a render that raised ``exc``: jinja2's plain ``TemplateError`` is the
    template's ``raise_exception``, anything else another failure."""
    if isinstance(exc, jinja2.exceptions.TemplateError):
        kind = "raise_exception" if type(exc) is jinja2.exceptions.TemplateError else "other"
        return Outcome(kind=kind, message=exc.message, exc_type=type(exc).__name__)
    return Outcome(kind="other", message=str(exc), exc_type=type(exc).__name__)


@functools.lru_cache(maxsize=64)
def _fixed_clock(now: datetime) -> type:
    """A ``datetime`` subclass whose ``now()`` is ``now`` (one class per instant, reused)."""

    class FixedClock(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
            return now if tz is None else now.replace(tzinfo=tz)

    return FixedClock


@contextlib.contextmanager
def clock(now: datetime) -> Iterator[None]:
    """transformers' ``strftime_now`` (and ``datetime.now()`` in ``chat_template_utils``) on
    ``now`` while the block runs."""
    saved = tcu.datetime
    tcu.datetime = _fixed_clock(now)
    try:
        yield
    finally:
        tcu.datetime = saved


def compile_source(source: str) -> jinja2.Template:
    """``source`` compiled by transformers, as ``apply_chat_template`` compiles it (cached)."""
    template: jinja2.Template = tcu._compile_jinja_template(source)
    return template


def source(name: str) -> str:
    """The pinned reference template of format ``name``, read from ``reference_templates/``: its
    bytes as they are pinned (no newline translation: a CRLF file stays CRLF, as the registry
    holds it)."""
    return (REFERENCE_TEMPLATES / chatformats.get_format(name).template_file).read_bytes().decode("utf-8")


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
    """Format ``name``'s reference template as transformers compiles it."""
    if name not in _templates:
        _templates[name] = compile_source(source(name))
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
    """Render with transformers' compiled reference template at ``now``; never raises for a
    template failure.

    Lines executed count towards the template's coverage only with ``record_coverage`` (the
    default): tests that do not compare a port pass False, so coverage speaks of parity tests."""
    tmpl = template(name)
    cov = _coverage[name]
    previous = sys.gettrace()
    with clock(now):
        if record_coverage:
            cov.renders += 1
            sys.settrace(_tracer_for(cov))
        try:
            text = tmpl.render(messages=messages, **variables)
        except Exception as exc:  # noqa: BLE001 — every failure is an outcome
            return failure(exc)
        finally:
            sys.settrace(previous)
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
