"""The examples of ``docs/formats.md`` run as written, and each one renders as the reference
templates render it (every ``chatformats`` call in them is checked against the oracles)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import chatformats

from . import oracle
from .test_pipeline import assert_pipeline_parity

DOC = Path(__file__).resolve().parent.parent / "docs" / "formats.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def test_the_page_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs_and_matches_the_oracles(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, Any, dict[str, Any]]] = []
    real = chatformats.apply_chat_template

    def recording(name: str, messages: Any, **kwargs: Any) -> str:
        calls.append((name, messages, dict(kwargs)))
        return real(name, messages, now=oracle.FIXED_NOW, **kwargs)

    monkeypatch.setattr(chatformats, "apply_chat_template", recording)
    exec(compile(BLOCKS[index], f"{DOC.name}[{index}]", "exec"), {"__name__": "docs_example"})
    assert calls, "the example renders nothing"
    monkeypatch.undo()
    for name, messages, kwargs in calls:
        assert_pipeline_parity(name, messages, kwargs)
