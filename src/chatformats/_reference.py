"""The reference renderer: jinja2 configured exactly as transformers configures it.

Used only by ``chatformats verify`` (and by the test suite's oracle, ``tests/oracle.py``); the
rest of the package never imports this module, and this module imports jinja2 only inside its
functions, so ``import chatformats`` never needs jinja2.

Mirrors ``transformers.utils.chat_template_utils._cached_compile_jinja_template`` (5.24.0):
``ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
extensions=[loopcontrols])``, transformers' ``tojson`` filter (``json.dumps`` with
``ensure_ascii=False``, no key sorting, no HTML escaping), the ``raise_exception``,
``strftime_now``, ``dict`` and ``namespace`` globals.  The one piece left out is transformers'
``AssistantTracker`` extension, which only adds the ``{% generation %}`` tag that none of the
five templates uses.  The clock behind ``strftime_now`` is a callable given to
:func:`make_environment`, so a caller can inject a fixed time.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

__all__ = ["JINJA2_MISSING", "Outcome", "make_environment", "render", "template_variables"]

#: The message shown when jinja2 cannot be imported.
JINJA2_MISSING = (
    "the reference renderer needs jinja2, which chatformats itself never imports; "
    "install it with: python -m pip install 'chatformats[test]'  (or: pip install jinja2)"
)

#: Names transformers' environment defines as globals (plus jinja2's own): a template reading
#: them reads no caller variable.
ENVIRONMENT_GLOBALS = frozenset(
    {"raise_exception", "strftime_now", "dict", "namespace", "range", "lipsum", "cycler", "joiner"}
)


def _jinja2() -> Any:
    """jinja2, imported on first use (raises ``ImportError`` with :data:`JINJA2_MISSING`)."""
    try:
        return importlib.import_module("jinja2")
    except ImportError as exc:
        raise ImportError(JINJA2_MISSING) from exc


def make_environment(clock: Callable[[], datetime]) -> Any:
    """A fresh ``ImmutableSandboxedEnvironment`` configured as transformers configures it;
    ``strftime_now(fmt)`` formats ``clock()``."""
    _jinja2()
    ext = importlib.import_module("jinja2.ext")
    utils = importlib.import_module("jinja2.utils")
    sandbox = importlib.import_module("jinja2.sandbox")
    exceptions = importlib.import_module("jinja2.exceptions")

    def raise_exception(message: Any) -> None:
        raise exceptions.TemplateError(message)

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
            raise exceptions.SecurityError(
                f"Chat templates cannot store underscore-prefixed attributes on a namespace, "
                f"but got {name!r}. Please rename the attribute."
            )

    namespace_base: Any = utils.Namespace

    class TemplateNamespace(namespace_base):  # type: ignore[misc]
        def __init__(*args: Any, **kwargs: Any) -> None:  # jinja2's own signature trick
            self, args = args[0], args[1:]
            attrs = dict(*args, **kwargs)
            for name in attrs:
                check_name(name)
            utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name: str, value: Any) -> None:
            check_name(name)
            utils.Namespace.__setitem__(self, name, value)

    env = sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[ext.loopcontrols]
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["dict"] = TemplateDict()
    env.globals["namespace"] = TemplateNamespace
    return env


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

    def describe(self) -> str:
        """One line: the text's length, or the failure."""
        if self.ok:
            return f"rendered {len(self.text or '')} characters"
        return f"{self.exc_type}: {self.message}"


class _Reference:
    """One environment, its compiled templates, and the clock of the current render."""

    def __init__(self) -> None:
        self.now = datetime.now()
        self.env = make_environment(lambda: self.now)
        self.templates: dict[str, Any] = {}

    def template(self, name: str) -> Any:
        if name not in self.templates:
            from ._registry import get_format

            self.templates[name] = self.env.from_string(get_format(name).template_source())
        return self.templates[name]


_STATE: list[_Reference] = []


def _reference() -> _Reference:
    if not _STATE:
        _STATE.append(_Reference())
    return _STATE[0]


def template(name: str) -> Any:
    """The compiled reference template of format ``name`` (a ``jinja2.Template``)."""
    return _reference().template(name)


def render(name: str, messages: Any, variables: dict[str, Any], now: datetime) -> Outcome:
    """Render with the reference template as ``Template.render(messages=..., **variables)``;
    never raises for a template failure (the failure is the outcome)."""
    ref = _reference()
    tmpl = ref.template(name)
    exceptions = importlib.import_module("jinja2.exceptions")
    ref.now = now
    try:
        text = tmpl.render(messages=messages, **variables)
    except exceptions.TemplateError as exc:
        kind = "raise_exception" if type(exc) is exceptions.TemplateError else "other"
        return Outcome(kind=kind, message=exc.message, exc_type=type(exc).__name__)
    except Exception as exc:  # noqa: BLE001 — any other failure is an outcome too
        return Outcome(kind="other", message=str(exc), exc_type=type(exc).__name__)
    return Outcome(text=text)


def template_variables(name: str) -> list[str]:
    """The names the reference template of format ``name`` reads from its caller (jinja2's
    ``meta.find_undeclared_variables``, minus the environment's globals), sorted."""
    meta = importlib.import_module("jinja2.meta")
    ref = _reference()
    from ._registry import get_format

    ast = ref.env.parse(get_format(name).template_source())
    names: set[str] = meta.find_undeclared_variables(ast)
    return sorted(names - ENVIRONMENT_GLOBALS)
