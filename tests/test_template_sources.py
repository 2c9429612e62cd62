"""The package's one copy of each reference template is what ``scripts/regenerate.py`` writes
from ``reference_templates/``, and every way of getting it wrong is a ``ChatFormatError``."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import chatformats
from chatformats import ChatFormatError, _template_sources

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "regenerate.py"


def _script():
    spec = importlib.util.spec_from_file_location("regenerate", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_module_is_not_stale():
    module = ROOT / "src" / "chatformats" / "_template_sources.py"
    assert module.read_text(encoding="utf-8") == _script().sources_text(), (
        "src/chatformats/_template_sources.py is stale: run python scripts/regenerate.py")


def test_check_mode_reports_a_stale_module(tmp_path, monkeypatch):
    script = _script()
    assert script.main(["--check", "--only", "sources"]) == 0
    stale = tmp_path / "_template_sources.py"
    stale.write_text(script.sources_text().replace("{%- ", "{%-  ", 1), encoding="utf-8")
    monkeypatch.setattr(script, "SOURCES_MODULE", stale)
    monkeypatch.setattr(script, "ROOT", tmp_path)
    assert script.main(["--check", "--only", "sources"]) == 1
    assert script.main(["--only", "sources"]) == 0  # rewritten
    assert stale.read_text(encoding="utf-8") == script.sources_text()


def test_script_refuses_a_template_that_is_not_the_pinned_one(tmp_path, monkeypatch):
    script = _script()
    for path in (ROOT / "reference_templates").glob("*.jinja"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    victim = chatformats.get_format("cogito").template_file
    (tmp_path / victim).write_bytes((tmp_path / victim).read_bytes() + b"\n")
    monkeypatch.setattr(script, "TEMPLATES", tmp_path)
    monkeypatch.setattr(script, "ROOT", tmp_path)
    with pytest.raises(script.Stale, match=f"{victim} has sha256 .*; its spec pins"):
        script.sources_text()
    assert script.main(["--check", "--only", "sources"]) == 1
    (tmp_path / victim).unlink()
    with pytest.raises(script.Stale, match=victim):
        script.sources_text()


def test_script_runs_from_a_shell():
    result = subprocess.run([sys.executable, str(SCRIPT), "--check", "--only", "index", "sources",
                             "generation"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", chatformats.formats())
def test_each_text_is_the_pinned_file(name):
    fmt = chatformats.get_format(name)
    pinned = (ROOT / fmt.template_path).read_bytes()
    assert hashlib.sha256(pinned).hexdigest() == fmt.template_sha256
    assert fmt.template_source().encode("utf-8") == pinned
    assert fmt.template_path == f"reference_templates/{fmt.template_file}"


def test_a_modified_text_is_a_chatformaterror(monkeypatch):
    fmt = chatformats.get_format("cogito")
    monkeypatch.setitem(_template_sources.SOURCES, fmt.template_file, fmt.template_source() + " ")
    with pytest.raises(ChatFormatError, match="has sha256 .*, expected " + fmt.template_sha256):
        fmt.template_source()
    monkeypatch.setitem(_template_sources.SOURCES, fmt.template_file, "\ud800")
    with pytest.raises(ChatFormatError, match="has sha256"):
        fmt.template_source()
    monkeypatch.delitem(_template_sources.SOURCES, fmt.template_file)
    with pytest.raises(ChatFormatError, match="holds no text for cogito.jinja"):
        fmt.template_source()


def test_the_wheel_ships_no_second_copy():
    """``pyproject.toml`` packages ``src/chatformats`` only: no ``force-include`` of
    ``reference_templates/`` (the generated module is the one copy)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "force-include" not in text and "reference_templates" not in text
