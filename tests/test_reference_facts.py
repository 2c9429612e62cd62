"""The facts recorded beside the pinned templates that are not formats yet
(``reference_templates/facts/<stem>.json``), checked against the templates themselves: the
sha256, the variables and globals the template reads, vLLM's content format, the control
strings it writes, how it renders a tool call, and that it renders under transformers' own
compiled template (``tests/oracle.py``) a conversation with tools, a tool call, a tool response
and reasoning."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jinja2.nodes as nodes
import pytest

from . import jinja_env, oracle
from .test_serving_openai import _content_loops

FACTS_DIR = Path(__file__).resolve().parent.parent / "reference_templates" / "facts"
#: The facts files of this schema (the Qwen and DeepSeek texts); the Llama, gpt-oss, GLM and Kimi
#: texts' facts are checked by ``tests/test_reference_sources.py``.
FACTS = sorted(p.stem for p in FACTS_DIR.glob("*.json")
               if "tool_calls" in json.loads(p.read_text(encoding="utf-8")))
#: What the per-stem tests run over: the facts files, or one skipped case that says there is none
#: (every text of this schema pinned so far is a format; a new one pinned before its port gets
#: these checks by adding its facts file).
STEMS = FACTS or [pytest.param("", marks=pytest.mark.skip(
    reason="no facts file of this schema: every such pinned text is a format now"))]
KEYS = {"format", "template_file", "template_sha256", "model_ids", "special_tokens",
        "control_strings", "control_provenance", "variables", "calls", "content_format",
        "tool_calls", "think_after_tool_result", "sources", "surprises"}

#: Token-shaped strings (``<|...|>``, DeepSeek's full-width ``<｜...｜>``), XML-style tags and the
#: ``<name=`` openers; the Qwen templates' placeholders ``<function-name>`` and
#: ``<args-json-object>`` are prose.
_CONTROL_SHAPE = re.compile(
    r"<\|[^|<>\s]+\|>|<｜[^｜<>\s]+｜>|</?[A-Za-z_][A-Za-z0-9_]*>|<[A-Za-z_][A-Za-z0-9_]*=")

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City"}},
                   "required": ["city"]}}}]


def facts(stem: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FACTS_DIR / f"{stem}.json").read_text(encoding="utf-8"))
    return data


def test_there_are_facts():
    """Every pinned template is a format (its spec holds its facts) or has a facts file: a
    facts file goes only when its template becomes a format."""
    import chatformats

    formats = {chatformats.get_format(name).template_file for name in chatformats.formats()}
    recorded = {p.stem + ".jinja" for p in FACTS_DIR.glob("*.json")}
    pinned = {p.name for p in jinja_env.REFERENCE_TEMPLATES.glob("*.jinja")}
    assert pinned - formats - recorded == set()


@pytest.mark.parametrize("stem", STEMS)
def test_the_facts_name_their_pinned_template(stem):
    f = facts(stem)
    assert set(f) == KEYS
    assert f["template_file"] == f"{stem}.jinja"
    data = (jinja_env.REFERENCE_TEMPLATES / f["template_file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == f["template_sha256"]
    assert f["model_ids"] == sorted(set(f["model_ids"]), key=f["model_ids"].index)
    assert f["content_format"] in ("string", "openai")
    assert set(f["special_tokens"]) == {"bos_token", "eos_token", "pad_token"}
    assert f["surprises"] and all(isinstance(s, str) and s for s in f["surprises"])


def test_formats_are_distinct():
    names = [facts(s)["format"] for s in FACTS]
    assert len(names) == len(set(names))
    shas = [facts(s)["template_sha256"] for s in FACTS]
    assert len(shas) == len(set(shas))


@pytest.mark.parametrize("stem", STEMS)
def test_variables_are_what_jinja2_finds(stem):
    """The variables are jinja2's undeclared names less the environment's globals, less
    ``messages`` and only names the template assigns itself (reported because they are set
    inside a branch); the rule ``tests/test_cli.py`` applies to the registry."""
    f = facts(stem)
    found = set(jinja_env.template_variables(f["template_file"]))
    listed = set(f["variables"])
    assert f["variables"] == sorted(listed)
    assert listed <= found
    tree = jinja_env.parse(f["template_file"])
    assigned = {n.name for node in tree.find_all((nodes.Assign, nodes.For, nodes.AssignBlock))
                for n in [node.target, *node.target.find_all(nodes.Name)] if isinstance(n, nodes.Name)}
    assert found - listed - {"messages"} <= assigned


@pytest.mark.parametrize("stem", STEMS)
def test_left_out_locals_change_no_rendering(stem):
    """A name left out of the variables does not change the rendering when a caller passes it."""
    f = facts(stem)
    left_out = set(jinja_env.template_variables(f["template_file"])) - set(f["variables"]) - {"messages"}
    template = oracle.compile_source(jinja_env.template_text(f["template_file"]))
    for messages in _conversations(stem):
        base = _render(template, messages)
        for name in left_out:
            for value in ("ZZZ", True, None):
                assert _render(template, messages, **{name: value}) == base, name


@pytest.mark.parametrize("stem", STEMS)
def test_calls_are_the_globals_the_template_calls(stem):
    f = facts(stem)
    tree = jinja_env.parse(f["template_file"])
    called = {c.node.name for c in tree.find_all(nodes.Call)
              if isinstance(c.node, nodes.Name) and c.node.name in jinja_env.ENVIRONMENT_GLOBALS}
    assert f["calls"] == sorted(called)


@pytest.mark.parametrize("stem", STEMS)
def test_content_format_is_vllms_detection(stem):
    f = facts(stem)
    expected = "openai" if _content_loops(jinja_env.parse(f["template_file"])) else "string"
    assert f["content_format"] == expected


@pytest.mark.parametrize("stem", STEMS)
def test_every_control_string_the_template_writes_is_listed(stem):
    f = facts(stem)
    source = jinja_env.template_text(f["template_file"])
    shaped = set(_CONTROL_SHAPE.findall(source)) - {"<function-name>", "<args-json-object>"}
    assert shaped <= set(f["control_strings"]), sorted(shaped - set(f["control_strings"]))
    assert len(f["control_strings"]) == len(set(f["control_strings"]))
    assert f["control_provenance"]


def _render(template: Any, messages: list[dict[str, Any]], **variables: Any) -> str:
    try:
        with oracle.clock(oracle.FIXED_NOW):
            text: str = template.render(messages=messages, tools=TOOLS, add_generation_prompt=True,
                                        bos_token="<BOS>", **variables)
        return text
    except Exception as exc:  # noqa: BLE001 — the outcome is compared
        return f"{type(exc).__name__}: {exc}"


def _tool_call_shape(stem: str) -> tuple[Any, Any]:
    """(content, arguments) of an assistant tool call the template renders, from its facts."""
    for key, outcome in facts(stem)["tool_calls"].items():
        if outcome == "rendered":
            content = None if key.startswith("content None") else ""
            arguments = {"city": "Paris"} if key.endswith("mapping") else '{"city": "Paris"}'
            return content, arguments
    raise AssertionError("no tool call renders")


def _conversations(stem: str) -> list[list[dict[str, Any]]]:
    content, arguments = _tool_call_shape(stem)
    opened = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": content, "reasoning_content": "Need the tool.",
         "tool_calls": [{"id": "c1", "type": "function",
                         "function": {"name": "get_weather", "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "18C and sunny"},
    ]
    closed = opened + [
        {"role": "assistant", "content": "<think>\nIt is mild.\n</think>\n\nIt is 18C and sunny."},
        {"role": "user", "content": "Thanks!"},
    ]
    return [opened, closed, opened[1:2]]


@pytest.mark.parametrize("stem", STEMS)
def test_tool_calls_render_as_recorded(stem):
    template = oracle.compile_source(jinja_env.template_text(facts(stem)["template_file"]))
    for key, outcome in facts(stem)["tool_calls"].items():
        content = None if key.startswith("content None") else ""
        arguments = {"city": "Paris"} if key.endswith("mapping") else '{"city": "Paris"}'
        messages = [{"role": "user", "content": "Weather?"},
                    {"role": "assistant", "content": content, "tool_calls": [
                        {"type": "function", "function": {"name": "get_weather", "arguments": arguments}}]},
                    {"role": "tool", "content": "18C"}]
        text = _render(template, messages)
        if outcome in ("rendered", "call dropped"):
            assert ("get_weather" in text) == (outcome == "rendered"), (key, text)
            assert "18C" in text
        else:
            assert text.startswith(outcome + ":"), (key, text)


@pytest.mark.parametrize("stem", STEMS)
def test_a_tool_conversation_renders(stem):
    """Tools, a tool call, its result and reasoning, under transformers' compiled template: the
    user's text, the call and the result are written; the reasoning of the open tool turn is
    written exactly when the template reads ``reasoning_content``; the reasoning written in the
    content of the answer after the tool result survives a later user turn as the facts record
    (the DeepSeek templates write that answer as is, Qwen2.5 and Qwen3-Coder never split it)."""
    f = facts(stem)
    source = jinja_env.template_text(f["template_file"])
    template = oracle.compile_source(source)
    opened, closed, _ = _conversations(stem)
    for messages in (opened, closed):
        text = _render(template, messages)
        assert "Weather in Paris?" in text and "get_weather" in text and "18C and sunny" in text, text
    assert ("Need the tool." in _render(template, opened)) == ("reasoning_content" in source)
    text = _render(template, closed)
    assert "It is 18C and sunny." in text and "Thanks!" in text
    assert ("It is mild." in text) == (f["think_after_tool_result"] == "kept")
    assert f["think_after_tool_result"] in ("kept", "dropped")
