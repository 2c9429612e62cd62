"""Nothing generated is stale: ``scripts/regenerate.py --check`` for every kind it writes but the
golden outcomes (``tests/test_golden.py`` checks those against the live oracles), and the check
can fail."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "regenerate.py"


def _script():
    spec = importlib.util.spec_from_file_location("regenerate", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_nothing_generated_is_stale():
    result = subprocess.run([sys.executable, str(SCRIPT), "--check", "--only", "index", "sources",
                             "generation", "workloads"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_spec_index_lists_every_spec_module_in_registry_order():
    script = _script()
    present = sorted(p.stem for p in (ROOT / "src" / "chatformats" / "specs").glob("*.py")
                     if not p.stem.startswith("_"))
    assert sorted(script.spec_modules()) == present
    import chatformats

    assert [chatformats.get_format(n).module for n in chatformats.formats()] == script.spec_modules()


def test_a_new_spec_module_is_appended_and_a_stale_index_reported(tmp_path, monkeypatch):
    script = _script()
    specs = tmp_path / "specs"
    specs.mkdir()
    for path in (ROOT / "src" / "chatformats" / "specs").glob("*.py"):
        (specs / path.name).write_bytes(path.read_bytes())
    (specs / "aaa_new.py").write_text("SPEC = None\n", encoding="utf-8")
    monkeypatch.setattr(script, "SPECS", specs)
    monkeypatch.setattr(script, "ROOT", tmp_path)
    modules = script.spec_modules()
    assert modules[-1] == "aaa_new" and modules[:-1] == _script().spec_modules()
    assert script.run(["index"], check=True)[0] == ["specs/__init__.py"]
    assert script.run(["index"], check=False)[0] == ["specs/__init__.py"]
    assert script.run(["index"], check=True) == ([], [])
    assert "    aaa_new.SPEC,\n)" in (specs / "__init__.py").read_text(encoding="utf-8")
