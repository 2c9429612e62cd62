"""Allocation failures at every allocation of a render, for each format and layer: no wrong
text, and no resource error turned into another error (``tests/fault_injection.py`` does the
injecting, in a subprocess of its own; under the ``deep`` Hypothesis profile it covers every
golden case too).

Before the fix, 910 of 1,667 injected failures (this conversation, every format, both layers)
came back as ``InternalError`` (567) or ``InvalidConversation`` (343).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

import chatformats

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("_testcapi")


def test_every_allocation_failure_is_the_same_outcome_or_memory_error() -> None:
    import _testcapi

    if not hasattr(_testcapi, "set_nomemory"):  # pragma: no cover — another interpreter
        pytest.skip("this interpreter cannot inject allocation failures")
    deep = settings.default.max_examples > 2000
    src = str(Path(chatformats.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, str(ROOT)])}
    result = subprocess.run(
        [sys.executable, "-m", "tests.fault_injection", *(["--golden"] if deep else [])],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]  # a crash is a failure too
    report = json.loads(result.stdout)
    ported = chatformats.formats()
    assert {key.split("/")[0] for key in report} == set(ported)
    assert {key.split("/")[1] for key in report} == {"template", "pipeline"}
    bad = {key: case["bad"] for key, case in report.items() if case["bad"]}
    assert not bad, json.dumps(bad)[:3000]
    for key, case in report.items():
        assert case["allocations"] > 0, key  # the counting found the render's allocations
        assert case["same"] + case["MemoryError"] + case["SystemError"] == case["allocations"]
        assert case["MemoryError"] > 0, key
