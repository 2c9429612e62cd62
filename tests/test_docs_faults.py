"""The examples of the manual's fault sections run: ``docs/guarantees.md`` (``## Under
faults``) and ``docs/cli.md`` (``## Output files, exit statuses and signals``); every fenced
``python`` block is executed, in order, each section in a namespace of its own."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import chatformats

DOCS = Path(__file__).resolve().parent.parent / "docs"
SECTIONS = [("guarantees.md", "## Under faults"), ("cli.md", "## Output files, exit statuses and signals")]


def blocks(page: str, heading: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    section = text[start:] if end < 0 else text[start:end]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


@pytest.mark.parametrize("page,heading", SECTIONS)
def test_the_examples_run(page: str, heading: str, monkeypatch: pytest.MonkeyPatch) -> None:
    src = str(Path(chatformats.__file__).resolve().parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    found = blocks(page, heading)
    assert found, f"{page}: no python example under {heading!r}"
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    for code in found:
        exec(compile(code, f"{page} example", "exec"), namespace)
