"""Golden inputs: a small set of cases per format (``<template stem>.json``) covering its main
branches and its failures.

No expected output is stored: every test that uses them compares a render elsewhere (Pyodide,
``python -I -S``, an audited subprocess, another ``TZ``/``LC_ALL``/``PYTHONHASHSEED``, 8 threads)
with CPython's own render of the same case in the same run, and
``tests/test_runtimes.py::test_golden_cases_match_the_oracle`` checks every case against the
oracle.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import chatformats

HERE = Path(__file__).resolve().parent


class Case(NamedTuple):
    format: str
    name: str
    messages: Any
    variables: dict
    now: datetime

    def key(self) -> tuple:
        return (self.format, self.messages, self.variables, self.now)


def ported_formats() -> list[str]:
    """Every format whose port has landed (status ``ported``)."""
    return [name for name in chatformats.formats() if chatformats.get_format(name).status == "ported"]


def golden_file(name: str) -> Path:
    return HERE / f"{chatformats.get_format(name).module}.json"


def load(name: str) -> list[Case]:
    """The golden cases of format ``name``."""
    doc = json.loads(golden_file(name).read_text(encoding="utf-8"))
    assert doc["format"] == name, f"{golden_file(name)} is for {doc['format']!r}, not {name!r}"
    default_now = datetime.fromisoformat(doc["now"])
    return [
        Case(name, c["name"], c["messages"], c.get("variables", {}),
             datetime.fromisoformat(c["now"]) if "now" in c else default_now)
        for c in doc["cases"]
    ]


def load_all() -> list[Case]:
    """The golden cases of every ported format."""
    return [case for name in ported_formats() for case in load(name)]


def render_outcome(name: str, messages: Any, variables: dict, now: datetime) -> tuple:
    """``("ok", text)`` or ``("error", class name, message)`` — the shape
    ``scripts/render_cases.py`` reports, so the two compare directly."""
    try:
        return ("ok", chatformats.render(name, messages, now=now, **variables))
    except chatformats.ChatFormatError as exc:
        return ("error", type(exc).__name__, str(exc))
