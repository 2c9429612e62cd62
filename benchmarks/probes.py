"""What the minijinja engine needs to render each format exactly: the same render without its
``pycompat`` mode, and with minijinja's own ``tojson``."""

from __future__ import annotations

from typing import Dict, Sequence

from . import engines as E
from . import workloads as W
from .measure import first_difference

def minijinja_needs(formats: Sequence[str]) -> Dict[str, Dict[str, str]]:
    """What minijinja renders, per format, without ``pycompat`` and with its own ``tojson``
    (on the short chat and the tool agent): ``same``, or the first difference or error."""
    out: Dict[str, Dict[str, str]] = {}
    for fmt in formats:
        reference = E.jinja2_engine(fmt)
        for label, pycompat, own in (("pycompat=False", False, True), ("minijinja's tojson", True, False)):
            try:
                engine = E.minijinja_probe(fmt, pycompat, own)
            except Exception as exc:  # noqa: BLE001
                out.setdefault(fmt, {})[label] = f"{type(exc).__name__}: {exc}"
                continue
            verdict = "same"
            for wl in ("short_chat", "tool_agent"):
                data = W.generate(wl, fmt)
                data["variables"] = E.variables(fmt, data)
                expected = reference(data)
                try:
                    got = engine(data)
                except Exception as exc:  # noqa: BLE001
                    verdict = f"{wl}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
                    break
                if got != expected:
                    verdict = f"{wl}: {first_difference(expected, got)}"
                    break
            out.setdefault(fmt, {})[label] = verdict
    return out
