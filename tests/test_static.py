"""Static checks of the package source: Python 3.9 compatibility (vermin) and no dynamic code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "chatformats"


def test_source_is_valid_for_python_3_9():
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from vermin import main; sys.exit(main())",
         "--no-tips", "--violations", "-t=3.9-", "--eval-annotations", str(SRC)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_dynamic_code_and_no_template_engine_imports():
    offenders = []
    for path in SRC.rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"(^|[^.\w])(exec|eval|compile)\(", line) or re.match(
                r"\s*(import|from)\s+(jinja2|transformers)\b", line
            ):
                offenders.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
