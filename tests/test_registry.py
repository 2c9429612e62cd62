"""The registry, the port modules and reference_templates/ agree, and the public API holds."""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path

import pytest

import chatformats
from chatformats import ChatFormatError, InvalidConversation, UnknownFormatError

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "reference_templates"
PORTS = ROOT / "src" / "chatformats" / "ports"

PINNED = {
    "solar_open.jinja": "e7a5ad7d23b2a9cac020db4582dd076cc400007ae7daecb08f30ca1cb53f9dd0",
    "llama3_2_vision_2024_09.jinja": "e407323269d15bba92fc431b5b7d757e66d920d01b45cae58149a692d7697d3c",
    "llama3_2_vision_2024_12.jinja": "53ff0dc467531d098a8bdd2ba38a3b2c157c9a90e96e16a0a79aa86476d47eea",
    "llama3_2_vision.jinja": "d3e97dc81677b7918ffae734b13999c4b4ea5eb3939a8506bbf501602f4d2b62",
    "minicpm_v4_6_thinking.jinja": "19356d2fd1c60dc46c92f3b05a5e01a32cdd1ab10b68d649a0081e6bba7c8137",
    "cogito.jinja": "ee97f6ef49c5eaee00242bb0547c231b7b1b1fd1ec5623273954ca0dda913d1c",
    "qwen3_tool_agent.jinja": "ff80afbfb2bfc83da910c94d8333a10df14b6ad76cc00e5549c3fa16ebed374f",
    "qwen3_instruct_2507.jinja": "64f85b198065d0fba2a81f37e10ed68161ce2c19a754c7100e67e0ca2ee9c326",
    "qwen3_thinking_2507.jinja": "3802169b2a02b81e6adb7ab4f64f91ff02db753c8c3a64a01c35192d3a61d8d7",
}


#: Pinned reference texts that are no format yet, each with its facts in
#: ``reference_templates/facts/<stem>.json`` (``tests/test_reference_facts.py``).
FACTS_PINNED = {
    facts["template_file"]: facts["template_sha256"]
    for facts in (json.loads(p.read_text(encoding="utf-8")) for p in (TEMPLATES / "facts").glob("*.json"))
}


def test_reference_templates_are_pinned():
    assert sorted(p.name for p in TEMPLATES.glob("*.jinja")) == sorted({**PINNED, **FACTS_PINNED})
    for name, digest in [*PINNED.items(), *FACTS_PINNED.items()]:
        assert hashlib.sha256((TEMPLATES / name).read_bytes()).hexdigest() == digest, name


def test_registry_ties_templates_and_ports_together():
    names = chatformats.formats()
    assert names == ["solar-open", "llama-3.2-vision-2024-09", "llama-3.2-vision-2024-12",
                     "llama-3.2-vision-variant",
                     "minicpm-v-4.6-thinking", "cogito", "qwen3-tool-agent",
                     "qwen3-instruct-2507", "qwen3-thinking-2507"]
    assert sorted(chatformats.get_format(n).template_file for n in names) == sorted(PINNED)
    # Modules named ``_*`` hold what several ports share (``_qwen3_2507``): no format of their own.
    ported_modules = {p.stem for p in PORTS.glob("*.py") if not p.stem.startswith("_")}
    for name in names:
        fmt = chatformats.get_format(name)
        assert fmt.template_sha256 == PINNED[fmt.template_file]
        assert ROOT / fmt.template_path == TEMPLATES / fmt.template_file
        assert fmt.template_source() == (TEMPLATES / fmt.template_file).read_text(encoding="utf-8")
        assert fmt.module == Path(fmt.template_file).stem
        assert fmt.module in ported_modules and callable(fmt.port)
    assert ported_modules <= {chatformats.get_format(n).module for n in names}


def test_aliases_resolve_to_current_names():
    """An alias is a former name: never a current one, always resolving to a registered format,
    with a line saying what it is now; ``formats()`` lists current names only."""
    from chatformats._registry import ALIASES

    names = chatformats.formats()
    for alias, (current, about) in ALIASES.items():
        assert alias not in names and current in names and about
        assert chatformats.get_format(alias) is chatformats.get_format(current)
    model_ids = [m for n in names for m in chatformats.get_format(n).model_ids]
    assert len(model_ids) == len(set(model_ids)), "a model id is claimed by two formats"


def test_unknown_format():
    with pytest.raises(UnknownFormatError, match="unknown format 'nope'"):
        chatformats.render("nope", [])
    with pytest.raises(UnknownFormatError):
        chatformats.get_format(["not", "hashable"])  # type: ignore[arg-type]


def test_messages_must_be_a_list_of_json_like_values():
    with pytest.raises(InvalidConversation, match="messages must be a list"):
        chatformats.render("qwen3-tool-agent", "hello")
    with pytest.raises(InvalidConversation, match=r"messages\[0\]\.content"):
        chatformats.render("qwen3-tool-agent", [{"role": "user", "content": object()}])
    with pytest.raises(InvalidConversation, match=r"tools\[0\]"):
        chatformats.render("qwen3-tool-agent", [{"role": "user", "content": "x"}], tools=[{1, 2}])
    with pytest.raises(TypeError):
        chatformats.render("qwen3-tool-agent", [], now="2024-01-01")


def test_errors_are_value_errors_and_formats_pickle():
    assert issubclass(ChatFormatError, ValueError)
    for name in chatformats.formats():
        fmt = chatformats.get_format(name)
        assert pickle.loads(pickle.dumps(fmt)) is fmt


def test_importing_chatformats_loads_no_template_engine():
    import subprocess
    import sys

    code = ("import sys, chatformats; chatformats.render('qwen3-tool-agent', [{'role': 'user', 'content': 'x'}]);"
            "bad = [m for m in ('jinja2', 'transformers', 'markupsafe') if m in sys.modules];"
            "print(bad); sys.exit(1 if bad else 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
