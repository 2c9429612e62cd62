"""The reference templates of issue 28 that are pinned but not yet registered formats, and their
facts files (``reference_templates/facts/<stem>.json``).

Each file's sha256 and size are the ones its facts file and ``reference_templates/README.md``
record; the facts' ``variables``, ``calls`` and ``content_format`` are what the template's syntax
tree says (the rules ``tests/test_cli.py``, ``tests/test_core.py`` and
``tests/test_serving_openai.py`` apply to registered formats); the control strings cover every
control-shaped string the template writes; and transformers' compiled template (the oracle)
renders each file on a conversation with tools, a tool call and a tool response, with the
structure its facts describe.  When a file becomes a registered format, its registry entry takes
over and its case here can go.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jinja2.nodes
import pytest

from . import jinja_env, oracle
from .jinja_env import ENVIRONMENT_GLOBALS
from .test_audit import _CONTROL_SHAPE
from .test_serving_openai import _content_loops

REFERENCE = Path(__file__).resolve().parent.parent / "reference_templates"
STEMS = ["llama3_1_2024_08"]

def facts(stem: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REFERENCE / "facts" / f"{stem}.json").read_text(encoding="utf-8"))
    return data


def source(stem: str) -> str:
    return (REFERENCE / f"{stem}.jinja").read_bytes().decode("utf-8")


def test_every_facts_file_has_its_template() -> None:
    stems = {p.stem for p in (REFERENCE / "facts").glob("*.json")}
    assert set(STEMS) <= stems  # the Qwen and DeepSeek facts: tests/test_reference_facts.py
    for stem in stems:
        assert (REFERENCE / f"{stem}.jinja").is_file(), stem


@pytest.mark.parametrize("stem", STEMS)
def test_the_pinned_bytes_are_the_recorded_ones(stem: str) -> None:
    data = (REFERENCE / f"{stem}.jinja").read_bytes()
    f = facts(stem)
    assert f["template_file"] == f"{stem}.jinja"
    assert hashlib.sha256(data).hexdigest() == f["template_sha256"]
    assert len(data) == f["bytes"]
    readme = (REFERENCE / "README.md").read_text(encoding="utf-8")
    assert f["template_sha256"] in readme and f"`{stem}.jinja`" in readme


@pytest.mark.parametrize("stem", STEMS)
def test_variables_calls_and_content_format_are_the_templates(stem: str) -> None:
    f = facts(stem)
    tree = jinja_env.parse(f"{stem}.jinja")
    found = set(jinja_env.template_variables(f"{stem}.jinja"))
    assert f["jinja2_undeclared"] == sorted(found)
    listed = set(f["variables"])
    assert listed <= found - {"messages"}
    targets = [node.target for node in tree.find_all((jinja2.nodes.Assign, jinja2.nodes.For,
                                                       jinja2.nodes.AssignBlock))]
    assigned = {n.name for t in targets
                for n in ([t] if isinstance(t, jinja2.nodes.Name) else t.find_all(jinja2.nodes.Name))}
    assert found - listed - {"messages"} <= assigned  # what is left out is the template's own
    called = {c.node.name for c in tree.find_all(jinja2.nodes.Call)
              if isinstance(c.node, jinja2.nodes.Name) and c.node.name in ENVIRONMENT_GLOBALS}
    assert f["calls"] == sorted(called)
    assert f["content_format"] == ("openai" if _content_loops(tree) else "string")


@pytest.mark.parametrize("stem", STEMS)
def test_control_strings_cover_what_the_template_writes(stem: str) -> None:
    f = facts(stem)
    listed = f["control_strings"]
    assert len(listed) == len(set(listed)) and f["control_provenance"]
    # Control-shaped strings the template holds only as prose (as ``Spec.prose_strings``).
    shaped = set(_CONTROL_SHAPE.findall(source(stem))) - set(f.get("prose_strings", {}))
    assert shaped <= set(listed)


TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City"}},
                   "required": ["city"]}}}]
CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
CHAT = [{"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "assistant", "content": "It is 18C."},
        {"role": "user", "content": "Thanks"}]
LLAMA = {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}

#: (stem, messages, variables, strings the rendering holds in this order)
CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any], list[str]]] = [
    ("llama3_1_2024_09", CHAT, {"tools": TOOLS, "add_generation_prompt": True, **LLAMA},
     ["<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\n"
      "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nBe brief.<|eot_id|>",
      "Given the following functions", "Weather in Paris?<|eot_id|>",
      '{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>',
      '<|start_header_id|>ipython<|end_header_id|>\n\n"18C"<|eot_id|>',
      "Thanks<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"]),
    ("llama3_1_2024_09",
     [{"role": "user", "content": "search x"},
      {"role": "assistant", "tool_calls": [{"function": {"name": "brave_search", "arguments": {"query": "x"}}}]},
      {"role": "ipython", "content": {"r": 1}}],
     {"builtin_tools": ["brave_search", "code_interpreter"], "date_string": "01 Jan 2025", **LLAMA},
     ["Environment: ipython\nTools: brave_search\n\n", "Today Date: 01 Jan 2025",
      '<|python_tag|>brave_search.call(query="x")<|eom_id|>', '{"r": 1}<|eot_id|>']),
    ("llama3_1_2024_08", CHAT, {"custom_tools": TOOLS, **LLAMA},
     ["Today Date: 26 Jul 2024\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nWeather"]),
    ("llama3_2", CHAT[:2], {"add_generation_prompt": True, **LLAMA},
     ["Today Date: 07 Mar 2026\n\nBe brief.<|eot_id|>"]),
    ("glm4_5",
     [CHAT[0], CHAT[1], {"role": "assistant", "content": "<think>look</think>Checking.", "tool_calls": [CALL]},
      CHAT[3], {"role": "assistant", "content": "It is 18C.", "reasoning_content": "easy"}, CHAT[5]],
     {"tools": TOOLS, "add_generation_prompt": True, "enable_thinking": False},
     ["[gMASK]<sop><|system|>\n# Tools\n", "<|system|>\nBe brief.<|user|>\nWeather in Paris?/nothink",
      "<|assistant|>\n<think></think>\nChecking.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
      "<arg_value>Paris</arg_value>\n</tool_call><|observation|>\n<tool_response>\n18C\n</tool_response>",
      "<|assistant|>\n<think></think>\nIt is 18C.<|user|>\nThanks/nothink<|assistant|>\n<think></think>"]),
    ("kimi_k2", CHAT, {"tools": TOOLS, "add_generation_prompt": True},
     ['<|im_system|>tool_declare<|im_middle|>[{"type": "function"',
      "<|im_system|>system<|im_middle|>Be brief.<|im_end|><|im_user|>user<|im_middle|>Weather in Paris?<|im_end|>",
      "<|im_assistant|>assistant<|im_middle|><|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
      '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|><|im_end|>',
      "<|im_system|>tool<|im_middle|>## Return of call_1\\n18C<|im_end|>",
      "<|im_assistant|>assistant<|im_middle|>"]),
    ("kimi_k2", CHAT[1:2], {},
     ["<|im_system|>system<|im_middle|>You are a helpful assistant<|im_end|><|im_user|>user"]),
]


@pytest.mark.parametrize(("stem", "messages", "variables", "expected"), CASES)
def test_transformers_renders_the_file(stem: str, messages: list[dict[str, Any]], variables: dict[str, Any],
                                       expected: list[str]) -> None:
    template = oracle.compile_source(source(stem))
    with oracle.clock(oracle.FIXED_NOW):
        text = template.render(messages=json.loads(json.dumps(messages)), **variables)
    at = 0
    for piece in expected:
        found = text.find(piece, at)
        assert found >= 0, (piece, text)
        at = found + len(piece)
    assert "\r" not in text  # jinja2 reads the CRLF Kimi file's newlines as \n


@pytest.mark.parametrize(("stem", "messages", "variables", "message"), [
    ("llama3_1_2024_09", [CHAT[1], {"role": "assistant", "tool_calls": [CALL, CALL]}], LLAMA,
     "This model only supports single tool-calls at once!"),
    ("llama3_1_2024_09", CHAT[:1], {"tools": TOOLS, **LLAMA},
     "Cannot put tools in the first user message when there's no first user message!"),
])
def test_the_templates_own_refusals(stem: str, messages: list[dict[str, Any]], variables: dict[str, Any],
                                    message: str) -> None:
    template = oracle.compile_source(source(stem))
    with pytest.raises(jinja2.exceptions.TemplateError, match="^" + message.replace("!", "\\!") + "$"):
        template.render(messages=messages, **variables)


def test_the_single_copy_august_text_is_the_september_text_without_custom_tools() -> None:
    september = source("llama3_1_2024_09").splitlines(keepends=True)
    assert september[1:4] == ["{%- if custom_tools is defined %}\n", "    {%- set tools = custom_tools %}\n",
                              "{%- endif %}\n"]
    assert source("llama3_1_2024_08") == "".join(september[:1] + september[4:])
