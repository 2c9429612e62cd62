"""Spans of the two Llama 3.2 Vision formats, branch by branch.

One named conversation per branch of the template's message loop and per place the template
reads a variable: the rendering's text is the reference's render, its sourced spans are exactly
the listed ``(path, text)`` pairs (each text derived from the input value: a copy, its trimmed
slice, or its JSON), and its generated ranges are the listed assistant turns, each right after
the assistant header.  The laws every format shares (tiling, the substring / JSON rule, the
generation oracle) are properties of the shared spans module; these examples pin what this
port sources and where its ranges fall.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import chatformats

from . import oracle

NAMES = ("llama-3.2-vision-2024-09", "llama-3.2-vision-variant")
ASSISTANT_HEADER = "<|start_header_id|>assistant<|end_header_id|>\n\n"
EOT = "<|eot_id|>"


def dumps(value: Any, indent: int | None = None) -> str:
    """``|tojson`` as transformers defines it."""
    return json.dumps(value, ensure_ascii=False, indent=indent)


def check(name: str, messages: list[Any], variables: dict[str, Any],
          sourced: list[tuple[str, str]], generated: list[str]) -> None:
    rendering = chatformats.render_spans(name, messages, now=oracle.FIXED_NOW, **variables)
    reference = oracle.render(name, messages, record_coverage=False, **variables)
    assert reference.ok, reference.describe()
    assert rendering.text == reference.text
    text = rendering.text
    assert [(span.source, text[span.start:span.end]) for span in rendering.spans if span.source] == sourced
    assert [text[start:end] for start, end in rendering.assistant_spans] == generated
    for start, _ in rendering.assistant_spans:
        assert text[:start].endswith(ASSISTANT_HEADER)


@pytest.mark.parametrize("name", NAMES)
def test_chat_turns_and_variables(name):
    """L1, L49, L59 and the string-content turns: ``bos_token`` and ``date_string`` by name, the
    trimmed system message, each turn's role and content; an assistant turn's range is its
    content and ``<|eot_id|>``."""
    messages = [
        {"role": "system", "content": "  Be brief. \n"},
        {"role": "user", "content": "Hi <|eot_id|>"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Bye"},
    ]
    variables = {"bos_token": "<|begin_of_text|>", "date_string": "01 Jan 2026", "add_generation_prompt": True}
    check(name, messages, variables, sourced=[
        ("bos_token", variables["bos_token"]),
        ("date_string", variables["date_string"]),
        ("messages[0].content", messages[0]["content"].strip()),
        ("messages[1].role", "user"), ("messages[1].content", messages[1]["content"]),
        ("messages[2].role", "assistant"), ("messages[2].content", messages[2]["content"]),
        ("messages[3].role", "user"), ("messages[3].content", messages[3]["content"]),
    ], generated=[messages[2]["content"] + EOT])


@pytest.mark.parametrize("name", NAMES)
def test_content_parts(name):
    """L89-97: each text part by its own path, ``<|image|>`` is template text; an assistant
    turn with list content is generated through its ``<|eot_id|>``.  The clock's date (no
    ``date_string``) is template text, and there is no system turn with an image."""
    messages = [
        {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "What is it?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "A cat"}, {"type": "text", "text": 7},
                                          {"type": "video"}, "ignored"]},
    ]
    check(name, messages, {}, sourced=[
        ("messages[0].role", "user"), ("messages[0].content[1].text", "What is it?"),
        ("messages[1].role", "assistant"), ("messages[1].content[0].text", "A cat"),
        ("messages[1].content[1].text", "7"),
    ], generated=["A cat7" + EOT])


@pytest.mark.parametrize("name", NAMES)
def test_tools_in_the_first_user_message(name):
    """L64-82, L99-117: each tool's JSON (indent 4) as ``tools[i]``, the consumed first
    message's trimmed content, the tool call's name and arguments JSON apart, a tool result's
    JSON; the tool-call turn is generated from its ``{"name": ...`` through ``<|eot_id|>``."""
    tools = [{"type": "function", "function": {"name": "get_weather"}}, {"name": "é"}]
    arguments = {"city": "Paris", "unit": "°C"}
    messages = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": " Weather in Paris? "},
        {"role": "assistant", "content": "dropped",
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}]},
        {"role": "tool", "content": "18 C"},
        {"role": "ipython", "content": {"temp": 18}},
        {"role": "assistant", "content": "18 C."},
    ]
    check(name, messages, {"tools": tools}, sourced=[
        ("messages[0].content", "S"),
        ("tools[0]", dumps(tools[0], 4)), ("tools[1]", dumps(tools[1], 4)),
        ("messages[1].content", "Weather in Paris?"),
        ("messages[2].tool_calls[0].function.name", "get_weather"),
        ("messages[2].tool_calls[0].function.arguments", dumps(arguments)),
        ("messages[3].content", dumps("18 C")),
        ("messages[4].content", dumps({"temp": 18})),
        ("messages[5].role", "assistant"), ("messages[5].content", "18 C."),
    ], generated=[
        '{"name": "get_weather", "parameters": ' + dumps(arguments) + "}" + EOT,
        "18 C." + EOT,
    ])


@pytest.mark.parametrize("name", NAMES)
def test_custom_tools_in_the_system_turn(name):
    """L2-4, L50-58: ``custom_tools`` replaces ``tools``, so its JSON is sourced to it; a
    JSON-string argument is quoted again and still sourced to the arguments."""
    custom_tools = [{"name": "search"}]
    messages = [
        {"role": "user", "content": "Find it"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "search", "arguments": '{"q": "it"}'}}]},
    ]
    variables = {"tools": [{"name": "unused"}], "custom_tools": custom_tools, "tools_in_user_message": False}
    check(name, messages, variables, sourced=[
        ("custom_tools[0]", dumps(custom_tools[0], 4)),
        ("messages[0].role", "user"), ("messages[0].content", "Find it"),
        ("messages[1].tool_calls[0].function.name", "search"),
        ("messages[1].tool_calls[0].function.arguments", dumps('{"q": "it"}')),
    ], generated=['{"name": "search", "parameters": ' + dumps('{"q": "it"}') + "}" + EOT])


@pytest.mark.parametrize("name", NAMES)
def test_which_turns_are_generated(name):
    """Every turn the template writes under the assistant header is generated: a message of
    another role with ``tool_calls`` too (L99 tests the key, not the role).  An assistant
    message consumed as the first user message (L67) is user text, and the generation prompt
    has no range."""
    messages = [
        {"role": "assistant", "content": "consumed"},
        {"role": "tool", "tool_calls": [{"function": {"name": "f", "arguments": None}}]},
        {"role": "assistant", "content": ""},
    ]
    check(name, messages, {"tools": [], "add_generation_prompt": True}, sourced=[
        ("messages[0].content", "consumed"),
        ("messages[1].tool_calls[0].function.name", "f"),
        ("messages[1].tool_calls[0].function.arguments", "null"),
        ("messages[2].role", "assistant"),
    ], generated=['{"name": "f", "parameters": null}' + EOT, EOT])


@pytest.mark.parametrize("name", NAMES)
def test_tools_of_a_dict(name):
    """L77-80 over a mapping: its keys are iterated, each key's JSON is sourced as the loop's
    i-th item, ``tools[i]`` (``docs/spans.md``: ``[i]`` is the i-th item a loop gives)."""
    tools = {"get_weather": {"type": "function"}, "search": None}
    messages = [{"role": "user", "content": "q"}]
    check(name, messages, {"tools": tools}, sourced=[
        ("tools[0]", dumps("get_weather", 4)), ("tools[1]", dumps("search", 4)),
        ("messages[0].content", "q"),
    ], generated=[])
