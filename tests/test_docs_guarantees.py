"""The examples of ``docs/guarantees.md`` run as written (each fenced ``python`` block, in
order, in one namespace)."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "guarantees.md"


def test_the_parity_section_examples_run() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "\n## Parity\n" in text
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) >= 3
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 — the doc's own examples
