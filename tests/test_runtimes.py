"""Runs where Jinja cannot: Pyodide, an audited interpreter, ``python -I -S``.

Each test renders the golden cases of every ported format (``tests/golden/``) plus generated
any-shape cases in another runtime, through ``scripts/render_cases.py``, and compares the results
with CPython's renders of the same cases in this process, byte for byte (texts, error classes and
messages).
"""

from __future__ import annotations

import functools
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import chatformats

from . import fuzz, golden
from . import oracle
from .oracle import FIXED_NOW
from .parity import port_outcome

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
SCRIPT = ROOT / "scripts" / "render_cases.py"
PYODIDE_DIR = ROOT / "tests" / "pyodide"

#: Generated any-shape cases per format added to the golden ones in every runtime.
GENERATED_PER_FORMAT = 60


@functools.lru_cache(maxsize=None)
def _cases() -> list[tuple[Any, ...]]:
    """The golden cases of every ported format and ``GENERATED_PER_FORMAT`` generated ones, as
    ``(format, messages, variables, now)`` (built once per session; never mutated)."""
    cases = [case.key() for case in golden.load_all()]
    for name in golden.ported_formats():
        cases.extend(fuzz.generated_cases(name, GENERATED_PER_FORMAT, FIXED_NOW))
    return cases


@pytest.fixture(scope="module")
def cases() -> list[tuple[Any, ...]]:
    return _cases()


@pytest.fixture(scope="module")
def expected(cases: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """CPython's renders in this process; an InternalError is a port bug and fails here."""
    results = [golden.render_outcome(*case) for case in cases]
    internal = [(case[0], case[1], case[2], r) for case, r in zip(cases, results)
                if r[0] == "error" and r[1] == "InternalError"]
    assert not internal, f"InternalError (a port bug) on {internal[:3]}"
    return results


def run_script(cases: list[tuple[Any, ...]], tmp_path: Path, *flags: str, python: list[str] | None = None,
               env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``scripts/render_cases.py`` on ``cases`` in a fresh interpreter; its report."""
    cases_file, out_file = tmp_path / "cases.pickle", tmp_path / "results.pickle"
    cases_file.write_bytes(pickle.dumps(cases, protocol=4))
    command = (python or [sys.executable, "-B"]) + [
        str(SCRIPT), "--src", str(SRC), "--cases", str(cases_file), "--out", str(out_file), *flags]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, f"{command} exited {proc.returncode}:\n{proc.stderr[-4000:]}"
    report: dict[str, Any] = pickle.loads(out_file.read_bytes())
    return report


def assert_same_results(cases: list[tuple[Any, ...]], expected: list[tuple[Any, ...]],
                        got: list[tuple[Any, ...]], where: str) -> None:
    assert len(got) == len(expected), f"{where}: {len(got)} results for {len(expected)} cases"
    differ = [(case[0], case[1], case[2], want, have)
              for case, want, have in zip(cases, expected, got) if want != have]
    assert not differ, (
        f"{where} rendered {len(differ)} case(s) differently from CPython; first: "
        f"format={differ[0][0]!r} messages={differ[0][1]!r} variables={differ[0][2]!r}\n"
        f"  CPython: {differ[0][3]!r}\n  {where}: {differ[0][4]!r}"
    )


# ---------------------------------------------------------------- golden cases


def test_golden_cases_cover_every_ported_format() -> None:
    ported = golden.ported_formats()
    assert ported, "no format is ported"
    for name in ported:
        path = golden.golden_file(name)
        cases = golden.load(name)
        names = [case.name for case in cases]
        assert len(cases) >= 10, f"{path}: only {len(cases)} golden cases"
        assert len(set(names)) == len(names), f"{path}: duplicate case names"
        outcomes = [golden.render_outcome(*case.key())[0] for case in cases]
        assert "ok" in outcomes and "error" in outcomes, f"{path}: cover renders and failures"


@pytest.mark.parametrize("name", golden.ported_formats())
def test_golden_cases_match_the_oracle(name: str) -> None:
    """Every golden case renders as the reference template renders it (or both fail)."""
    for case in golden.load(name):
        want = oracle.render(name, case.messages, now=case.now, **case.variables)
        got = port_outcome(name, case.messages, case.now, dict(case.variables))
        if want.ok:
            assert got.ok and got.text == want.text, (
                f"{name} / {case.name}: oracle {want.text!r}, port {got.describe()}: {got.text!r}")
        else:
            assert not got.ok, f"{name} / {case.name}: oracle {want.describe()}, port rendered"
            if want.kind == "raise_exception" or got.kind == "raise_exception":
                assert (got.kind, got.message) == (want.kind, want.message), f"{name} / {case.name}"


# ---------------------------------------------------------------- Pyodide


def test_pyodide_renders_like_cpython(cases: list[tuple[Any, ...]], expected: list[tuple[Any, ...]],
                                      tmp_path: Path) -> None:
    """CPython compiled to WebAssembly (the ``pyodide`` npm package, loaded offline from
    ``tests/pyodide/node_modules``) renders every case byte for byte as CPython does, under the
    same audit hook (no dynamic code or I/O while rendering)."""
    node = shutil.which("node")
    runtime = PYODIDE_DIR / "node_modules" / "pyodide" / "pyodide.asm.wasm"
    missing = ("node is not installed" if node is None else
               None if runtime.is_file() else
               "tests/pyodide/node_modules is absent (install it: npm ci --prefix tests/pyodide)")
    if missing is not None:
        # CI (.ci/run) installs node and the npm package and sets CHATFORMATS_REQUIRE_PYODIDE=1:
        # there a missing runtime fails this test instead of skipping it.
        if os.environ.get("CHATFORMATS_REQUIRE_PYODIDE") == "1":
            pytest.fail(f"{missing}, and CHATFORMATS_REQUIRE_PYODIDE=1")
        pytest.skip(f"{missing}; CI installs it and runs this test")
    assert node is not None
    cases_file, out_file = tmp_path / "cases.pickle", tmp_path / "results.pickle"
    cases_file.write_bytes(pickle.dumps(cases, protocol=4))
    command = [node, str(PYODIDE_DIR / "run.js"), str(SRC), str(SCRIPT), str(cases_file),
               str(out_file), "--audit"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the Pyodide driver failed:\n{proc.stderr[-4000:]}"
    report = pickle.loads(out_file.read_bytes())
    assert report["chatformats_file"] == "/chatformats-test/src/chatformats/__init__.py"
    assert_same_results(cases, expected, report["results"], f"Pyodide (Python {report['version'].split()[0]})")
    assert report["violations"] == [], report["violations"]
    assert not any(m == "jinja2" or m.startswith("jinja2.") for m in report["modules"])


# ---------------------------------------------------------------- audit hook


def _foreign_modules(report: dict[str, Any]) -> list[str]:
    new = set(report["modules"]) - set(report["preloaded"])
    return sorted(m for m in new if m.partition(".")[0] not in sys.stdlib_module_names
                  and m != "chatformats" and not m.startswith("chatformats."))


def test_audit_hook_no_dynamic_code_or_io(cases: list[tuple[Any, ...]], expected: list[tuple[Any, ...]],
                                          tmp_path: Path) -> None:
    """In a subprocess with ``sys.addaudithook`` installed before ``import chatformats``:
    importing loads only the package and the standard library and runs no code compiled from a
    string; rendering every case raises no
    ``compile``/``exec``/``open``/``import``/``subprocess``/``socket`` event (no audit event at
    all but ``builtins.id``); jinja2 is never imported."""
    report = run_script(cases, tmp_path, "--audit")
    assert report["violations"] == [], "\n".join(map(repr, report["violations"][:20]))
    assert_same_results(cases, expected, report["results"], "the audited interpreter")
    assert "jinja2" not in report["modules"] and "transformers" not in report["modules"]
    assert _foreign_modules(report) == []
    render_events = {k: n for k, n in report["events"].items() if k.startswith("render:")}
    assert set(render_events) <= {"render:builtins.id"}, render_events


@pytest.mark.parametrize("kind,event", [
    ("open", "open"), ("compile", "compile"), ("exec", "exec"), ("import", "import"),
    ("import-stdlib", "import"), ("socket", "socket.__new__"), ("subprocess", "subprocess.Popen"),
])
def test_audit_hook_sees_each_violation(kind: str, event: str, tmp_path: Path) -> None:
    """The audit test can fail: each forbidden action done during the render phase is reported."""
    report = run_script([golden.load_all()[0].key()], tmp_path, "--audit", "--inject", kind)
    seen = {(phase, name) for phase, name, _, _ in report["violations"]}
    assert ("render", event) in seen, report["violations"]


def test_audit_hook_sees_generated_code_at_import(tmp_path: Path) -> None:
    """Importing runs no code compiled from a string: a dataclass defined while importing (the
    standard library generates its methods with ``exec``) is reported."""
    report = run_script([golden.load_all()[0].key()], tmp_path, "--audit", "--inject", "dataclass")
    seen = {(phase, name) for phase, name, _, _ in report["violations"]}
    assert ("import", "compile") in seen and ("import", "exec") in seen, report["violations"]


# ---------------------------------------------------------------- python -I -S


def test_isolated_no_site_renders_from_source_tree(cases: list[tuple[Any, ...]],
                                                   expected: list[tuple[Any, ...]], tmp_path: Path) -> None:
    """``python -I -S`` (isolated mode, no site-packages: jinja2 and transformers cannot even be
    imported) imports chatformats from ``src/`` and renders every case as this process does."""
    report = run_script(cases, tmp_path, python=[sys.executable, "-I", "-S", "-B"])
    assert report["flags"] == {"isolated": 1, "no_site": 1}
    assert Path(report["chatformats_file"]).resolve() == (SRC / "chatformats" / "__init__.py").resolve()
    assert not any("site-packages" in m for m in report["modules"])
    assert "site" not in report["modules"]
    assert_same_results(cases, expected, report["results"], "python -I -S")


def test_source_tree_package_is_the_one_tested() -> None:
    """The in-process renders above come from the same source tree the subprocesses load."""
    assert Path(chatformats.__file__).resolve().is_relative_to(SRC.resolve())
