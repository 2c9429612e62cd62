"""The registry, the port modules and reference_templates/ agree, and the public API holds."""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

import chatformats
from chatformats import ChatFormatError, InvalidConversation, UnknownFormatError

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "reference_templates"
PORTS = ROOT / "src" / "chatformats" / "ports"

#: Each format's pin, from its spec; the provenance (``reference_templates/README.md``) must name
#: the file and the same sha256, and the file must have it.
PINNED = {chatformats.get_format(n).template_file: chatformats.get_format(n).template_sha256
          for n in chatformats.formats()}
PROVENANCE = (TEMPLATES / "README.md").read_text(encoding="utf-8")


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


def test_every_pin_is_in_the_provenance():
    for file, digest in PINNED.items():
        assert f"`{file}`" in PROVENANCE, f"reference_templates/README.md does not name {file}"
        assert digest in PROVENANCE, f"reference_templates/README.md does not record {file}'s sha256"


def test_registry_ties_templates_and_ports_together():
    names = chatformats.formats()
    assert names[:9] == ["solar-open", "llama-3.2-vision-2024-09", "llama-3.2-vision-2024-12",
                         "llama-3.2-vision-variant",
                         "minicpm-v-4.6-thinking", "cogito", "qwen3-tool-agent",
                         "qwen3-instruct-2507", "qwen3-thinking-2507"]  # later ones: appended
    assert len(set(names)) == len(names) and len(PINNED) == len(names)
    assert sorted(chatformats.get_format(n).template_file for n in names) == sorted(PINNED)
    # Modules named ``_*`` hold what several ports share (``_qwen3_2507``): no format of their own.
    ported_modules = {p.stem for p in PORTS.glob("*.py") if not p.stem.startswith("_")}
    for name in names:
        fmt = chatformats.get_format(name)
        assert fmt.template_sha256 == PINNED[fmt.template_file]
        assert ROOT / fmt.template_path == TEMPLATES / fmt.template_file
        assert fmt.template_source() == (TEMPLATES / fmt.template_file).read_bytes().decode("utf-8")
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
    with pytest.raises(TypeError):  # an InvalidClock: a ChatFormatError and a TypeError
        chatformats.render("qwen3-tool-agent", [], now="the first of January")
    with pytest.raises(chatformats.ChatFormatError, match="ISO 8601"):
        chatformats.render("qwen3-tool-agent", [], now=20240101)


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


def test_call_arguments_is_what_the_template_takes() -> None:
    """A spec's ``call_arguments``, against the reference, beside a content of ``None`` or
    ``""`` (some templates write calls beside only one of them): ``"mapping"``, a call whose
    arguments are a mapping renders, and wherever their JSON text renders a mapping does too;
    ``"string"`` (the template concatenates them), where their JSON text renders a mapping
    fails."""
    from . import oracle

    for name in chatformats.formats():
        fmt = chatformats.get_format(name)
        assert fmt.call_arguments in ("mapping", "string"), name
        outcomes = []
        for content in (None, ""):
            def turn(arguments: Any) -> list[dict[str, Any]]:
                call = {"id": "call_1", "type": "function",
                        "function": {"name": "get_weather", "arguments": arguments}}
                return [{"role": "user", "content": "Weather?"},
                        {"role": "assistant", "content": content, "tool_calls": [call]}]

            as_text = oracle.render(name, turn('{"city": "Paris"}'), record_coverage=False).ok
            as_mapping = oracle.render(name, turn({"city": "Paris"}), record_coverage=False).ok
            outcomes.append((as_text, as_mapping))
        if fmt.call_arguments == "string":
            assert (True, False) in outcomes, (name, outcomes)
        else:
            assert any(m for _, m in outcomes) and (True, False) not in outcomes, (name, outcomes)


def test_every_parsed_format_has_its_grammars_facts() -> None:
    """What the shared parsing properties read of a format's grammar (``parsing/grammars.py``'s
    docstring), so that a new format's tests need no table of their own: its ``RESERVED``
    strings, the ``PREFIXES`` a completion is read after (``""`` first, every other one holding
    an assistant header the grammar reads a turn after, and each one the parser takes), whether
    string arguments read back as strings, whether one call per turn, the openers its recovering
    reading reads inside content; and a format whose
    template concatenates the arguments (``call_arguments`` ``"string"``) reads them back as
    the strings they were."""
    from chatformats import ResponseParser
    from chatformats.parsing import grammar, reserved
    from chatformats.parsing._canonical import check_facts

    parsed = [n for n in chatformats.formats() if chatformats.get_format(n).grammar]
    assert parsed
    for name in parsed:
        g = grammar(name)
        facts = {fact: getattr(g, fact, None) for fact in
                 ("RESERVED", "PREFIXES", "STRING_ARGUMENTS", "SINGLE_CALL", "RECOVER_OPENERS", "ANCHOR")}
        assert None not in facts.values(), (name, facts)
        assert type(facts["RESERVED"]) is tuple and all(type(s) is str and s for s in facts["RESERVED"])
        assert len(set(reserved(name))) == len(reserved(name)) and set(facts["RESERVED"]) <= set(reserved(name))
        anchors = g.ANCHOR if isinstance(g.ANCHOR, tuple) else (g.ANCHOR,)
        prefixes = facts["PREFIXES"]
        assert type(prefixes) is tuple and prefixes[0] == "" and len(set(prefixes)) == len(prefixes), name
        for prefix in prefixes[1:]:
            assert any(a in prefix for a in anchors), (name, prefix)
            ResponseParser(name, prefix=prefix)
        assert type(facts["STRING_ARGUMENTS"]) is bool and type(facts["SINGLE_CALL"]) is bool
        assert type(facts["RECOVER_OPENERS"]) is tuple and all(type(o) is str and o for o in facts["RECOVER_OPENERS"])
        if chatformats.get_format(name).call_arguments == "string":
            assert facts["STRING_ARGUMENTS"], name
        # the canonical facts (parsing/_canonical.py): the grammar's, then the spec's overrides,
        # each a known fact with a known value; a grammar that writes a turn's calls states
        # how it writes the ids
        assert type(getattr(g, "CANONICAL", None)) is dict, name
        check_facts(g.CANONICAL, f"grammar of {name}")
        check_facts(chatformats.get_format(name).canonical, f"spec of {name}")
        assert "reasoning" in g.CANONICAL, name


def test_canonical_facts_are_refused_when_unknown() -> None:
    """The check the law above runs can fail: an unknown fact, an unknown value, a malformed
    variable condition."""
    from chatformats import ChatFormatError
    from chatformats.parsing._canonical import check_facts

    for bad in ({"content": "stripped"}, {"contents": "strip"}, {"reasoning_if": ("x", "y")},
                {"reasoning_if": ("x", "y", "z")}):
        with pytest.raises(ChatFormatError):
            check_facts(bad, "test")
    check_facts({"reasoning_if": ("think_render_option", "lastthink", ("all",))}, "test")


def test_single_call_is_what_the_template_refuses() -> None:
    """A grammar's ``SINGLE_CALL``, against the reference: for its formats a turn with two tool
    calls fails beside a content of ``None`` and of ``""``; for any other format it renders
    beside one of them (some templates write calls beside only one)."""
    from chatformats.parsing import grammar

    from . import oracle

    for name in chatformats.formats():
        fmt = chatformats.get_format(name)
        if not fmt.grammar:
            continue
        arguments: Any = '{"city": "Paris"}' if fmt.call_arguments == "string" else {"city": "Paris"}
        calls = [{"id": f"call_{k}", "type": "function",
                  "function": {"name": "get_weather", "arguments": arguments}} for k in (1, 2)]
        renders = [oracle.render(name, [{"role": "user", "content": "Weather?"},
                                        {"role": "assistant", "content": content, "tool_calls": calls}],
                                 record_coverage=False).ok for content in (None, "")]
        assert grammar(name).SINGLE_CALL == (not any(renders)), (name, renders)
