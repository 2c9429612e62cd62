"""``docs/serving.md``: every fenced ``python`` block runs, in order, each in a fresh namespace
(the examples assert what they show).  A block that parses a completion back needs
``chatformats.parse_response`` (the parsing module); it is skipped where that is absent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import chatformats

DOC = Path(__file__).resolve().parent.parent / "docs" / "serving.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_page_has_examples():
    assert len(BLOCKS) >= 7


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index, monkeypatch):
    code = BLOCKS[index]
    if "parse_response" in code and not hasattr(chatformats, "parse_response"):
        pytest.skip("chatformats.parse_response is not in this tree")
    if "transformers" in code:
        pytest.importorskip("transformers")
    monkeypatch.setenv("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    exec(compile(code, f"{DOC.name} block {index + 1}", "exec"), {"__name__": "docs_example"})
