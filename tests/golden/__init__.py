"""Golden cases: a small set of inputs every format renders (``shared.json``) plus a format's
own (``<port module>.json``, optional), covering its main branches and its failures, and each case's expected outcome at both layers stored as a file in
``<port module>/`` (the directory is named after the port module, as format names may change):

- ``<case>.txt``: the template layer's render (``Template.render(messages=..., **variables)``),
  exactly, byte for byte (no newline added);
- ``<case>.error.txt``: the template layer's failure, ``ExcType: message`` exactly, the class and
  message of the reference's exception (jinja2's ``TemplateError`` for the template's own
  ``raise_exception``, ``UndefinedError``, a Python ``TypeError``, ...);
- ``<case>.pipeline.txt`` / ``<case>.pipeline.error.txt``: the same for the pipeline layer,
  transformers' ``tokenizer.apply_chat_template(messages, tokenize=False, **variables)``.

``<case>`` is the case's name in lower case with every run of other characters than letters and
digits turned into ``-`` (``"tool agent, string arguments"`` -> ``tool-agent-string-arguments``).
The files are written by ``scripts/write_golden.py`` from the reference renderers (the test
suite's oracles: transformers' compiled template, transformers' ``apply_chat_template``), never
by hand. ``tests/test_golden.py`` checks that the port gives each file and that each file is what
the live oracles give now; so a change in any prompt shows in a diff.

The runtime tests (Pyodide, ``python -I -S``, an audited subprocess, another
``TZ``/``LC_ALL``/``PYTHONHASHSEED``, 8 threads) render the same cases and compare with CPython's
own render in the same run.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

import chatformats

HERE = Path(__file__).resolve().parent
#: The inputs every format renders.
SHARED = HERE / "shared.json"

#: The layers stored, and the suffix of their files.
LAYERS = {"template": "", "pipeline": ".pipeline"}


class Case(NamedTuple):
    format: str
    name: str
    messages: Any
    variables: dict
    now: datetime

    def key(self) -> tuple:
        return (self.format, self.messages, self.variables, self.now)

    @property
    def slug(self) -> str:
        """The case's file name stem."""
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


def ported_formats() -> list[str]:
    """Every format (each registered format has its port)."""
    return chatformats.formats()


def golden_file(name: str) -> Path:
    return HERE / f"{chatformats.get_format(name).module}.json"


def expected_dir(name: str) -> Path:
    """The directory of format ``name``'s expected outcomes, named after its port module."""
    return HERE / chatformats.get_format(name).module


def _cases(path: Path, name: str) -> list[Case]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc.get("format", name) == name, f"{path} is for {doc['format']!r}, not {name!r}"
    default_now = datetime.fromisoformat(doc["now"])
    return [
        Case(name, c["name"], c["messages"], c.get("variables", {}),
             datetime.fromisoformat(c["now"]) if "now" in c else default_now)
        for c in doc["cases"]
    ]


def load(name: str) -> list[Case]:
    """The golden cases of format ``name``: the shared ones (``shared.json``), then its own
    (``<port module>.json``, optional: a new format needs none)."""
    own = golden_file(name)
    return _cases(SHARED, name) + (_cases(own, name) if own.is_file() else [])


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


# ---------------------------------------------------------------- expected outcomes as files


def file_name(case: Case, layer: str, ok: bool) -> str:
    return case.slug + LAYERS[layer] + ("" if ok else ".error") + ".txt"


def file_text(outcome: Any) -> str:
    """A reference outcome as stored: the text, or ``ExcType: message``."""
    return outcome.text if outcome.ok else f"{outcome.exc_type}: {outcome.message}"


def reference_outcome(case: Case, layer: str) -> Any:
    """The live reference's outcome of ``case`` at ``layer`` (a ``tests.oracle.Outcome``)."""
    from .. import oracle, transformers_oracle

    if layer == "template":
        return oracle.render(case.format, case.messages, now=case.now, record_coverage=False,
                             **case.variables)
    tokenizer = transformers_oracle.tokenizer(case.format)
    with oracle.clock(case.now):
        try:
            return oracle.Outcome(text=tokenizer.apply_chat_template(
                case.messages, tokenize=False, **case.variables))
        except Exception as exc:  # noqa: BLE001 — every failure is an outcome
            return oracle.failure(exc)


def reference_files(name: str) -> dict[str, str]:
    """``{file name: content}`` of format ``name``'s expected outcomes, from the live references."""
    files: dict[str, str] = {}
    for case in load(name):
        for layer in LAYERS:
            outcome = reference_outcome(case, layer)
            files[file_name(case, layer, outcome.ok)] = file_text(outcome)
    return files


def stored_files(name: str) -> dict[str, str]:
    """``{file name: content}`` of format ``name``'s stored expected outcomes."""
    folder = expected_dir(name)
    if not folder.is_dir():
        return {}
    return {path.name: path.read_bytes().decode("utf-8") for path in sorted(folder.iterdir())}


def stored_outcome(case: Case, layer: str) -> tuple:
    """``("ok", text)`` or ``("error", ExcType, message)`` from the stored file of ``case`` at
    ``layer`` (exactly one of its two possible files exists)."""
    folder = expected_dir(case.format)
    found = [(ok, folder / file_name(case, layer, ok)) for ok in (True, False)
             if (folder / file_name(case, layer, ok)).is_file()]
    assert len(found) == 1, f"{case.format} / {case.name} ({layer}): expected one file, found {found}"
    ok, path = found[0]
    text = path.read_bytes().decode("utf-8")
    if ok:
        return ("ok", text)
    exc_type, _, message = text.partition(": ")
    return ("error", exc_type, message)
