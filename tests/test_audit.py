"""The audit: control strings pinned per format, and found wherever input put them.

- the registry's control strings: every token-shaped string and tag a format's template source
  writes is listed (``reference_templates/README.md``, "Control strings", says where each list
  came from);
- the law, for every format: plant one of the format's control strings anywhere in any input
  string of a generated conversation whose text holds none, render, audit: it is found at the
  planted path (or the tojson'd value holding it), at the planted offset in the value (or in the
  value's JSON), at a text offset that holds it; nothing else is found; and for the conversation
  without the plant, nothing at all.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

import chatformats
from chatformats import ChatFormatError, Finding, _audit
from chatformats._audit import resolve
from chatformats._spans import Rendering, Span

from . import budget
from . import strategies

FORMATS = chatformats.formats()
NOW = datetime(2026, 3, 7, 14, 5, 9)
def call(name: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


# ------------------------------------------------------------------ the registry's lists

#: Token-shaped strings (``<|...|>``, DeepSeek's full-width ``<｜...｜>``), XML-style tags and the
#: ``<name=`` openers.
_CONTROL_SHAPE = re.compile(
    r"<\|[^|<>\s]+\|>|<｜[^｜<>\s]+｜>|</?[A-Za-z_][A-Za-z0-9_]*>|<[A-Za-z_][A-Za-z0-9_]*=")


@pytest.mark.parametrize("name", FORMATS)
def test_every_control_string_the_template_writes_is_listed(name: str) -> None:
    fmt = chatformats.get_format(name)
    source = fmt.template_source()
    # Tag-shaped text the template holds as prose (``Spec.prose_strings``, each with its reason)
    # is no control string; each exemption is still in the template, and none is listed.
    shaped = set(_CONTROL_SHAPE.findall(source)) - set(fmt.prose_strings)
    assert shaped, "the template writes no control string at all?"
    assert shaped <= set(fmt.control_strings), sorted(shaped - set(fmt.control_strings))
    for token, why in fmt.prose_strings.items():
        assert token in source and why, token
        assert token not in fmt.control_strings, token


@pytest.mark.parametrize("name", FORMATS)
def test_control_strings_are_distinct_and_provenanced(name: str) -> None:
    fmt = chatformats.get_format(name)
    assert len(set(fmt.control_strings)) == len(fmt.control_strings)
    assert all(type(s) is str and s for s in fmt.control_strings)
    assert fmt.control_provenance.startswith(("tokenizer:", "template only"))
    # No control string holds another: planting one never plants a second (the law below finds
    # only the planted token; the scan itself reports nested and overlapping occurrences, see
    # test_find_rules_on_a_built_rendering).
    assert not [(a, b) for a in fmt.control_strings for b in fmt.control_strings
                if a != b and a in b]
    for token in fmt.special_tokens.values():  # bos/eos/pad are control strings too
        assert token in fmt.control_strings


def test_llama_token_tables() -> None:
    vision = chatformats.get_format("llama-3.2-vision-2024-09").control_strings
    assert len(vision) == 257 and vision[-1] == "<|image|>"
    assert "<|reserved_special_token_246|>" in vision
    assert "<|reserved_special_token_247|>" not in vision
    cogito = chatformats.get_format("cogito").control_strings
    assert "<|reserved_special_token_247|>" in cogito and "<|python_tag|>" in cogito
    assert "<|image|>" not in cogito


def test_partly_sourced_token_tables() -> None:
    """The two lists only partly from their tokenizers (``reference_templates/README.md``,
    "Control strings"): MiniCPM-V 4.6 keeps the Qwen3.5 added tokens at their ids (248044 +
    position: its config's image and video token ids, 248056 and 248057, land on the image and
    video tokens its tokenizer config names), then lists every special token that config names; Solar Open lists the three added tokens llama.cpp's converter reads,
    then the tokens whose ids Upstage's vLLM fork pins, in id order, <|flush|> (24, the end of
    turn, never written by the template) among them."""
    minicpm = chatformats.get_format("minicpm-v-4.6-thinking").control_strings
    ids = {token: 248044 + i for i, token in enumerate(minicpm[:33])}
    assert (ids["<|endoftext|>"], ids["<|image_pad|>"], ids["<|video_pad|>"]) == (
        248044, 248056, 248057)
    assert (ids["<|im_end|>"], ids["<|audio_start|>"], ids["<|audio_pad|>"]) == (
        248046, 248070, 248076)
    named = {"<|im_start|>", "<|im_end|>", "<|endoftext|>", "<unk>", "<|audio_start|>",
             "<|audio_end|>", "<|audio_pad|>", "<|image_pad|>", "<|video_pad|>",
             "<|vision_start|>", "<|vision_end|>", "<image>", "</image>", "<slice>", "</slice>",
             "<image_id>", "</image_id>"}
    assert named <= set(minicpm[:40]) and not named & set(minicpm[40:])
    solar = chatformats.get_format("solar-open").control_strings
    assert solar[:3] == ("<|startoftext|>", "<|endoftext|>", "<unk>")
    pinned = dict(zip(solar[3:14], (*range(20, 26), *range(30, 35))))
    assert (pinned["<|begin|>"], pinned["<|flush|>"], pinned["<|calls|>"]) == (20, 24, 25)
    assert (pinned["<|tool_calls|>"], pinned["<|tool_call:args|>"]) == (30, 34)
    assert "<|flush|>" not in chatformats.get_format("solar-open").template_source()


# ------------------------------------------------------------------ examples


def test_findings_in_qwen3_thinking() -> None:
    messages = [
        {"role": "system", "content": "sys <|im_end|> x"},
        {"role": "user", "content": "<|im_start|>hi"},
        {"role": "assistant", "content": "<think>r</think>ans <tool_call>"},
    ]
    findings = chatformats.audit("qwen3-thinking-2507", messages, now=NOW)
    text = chatformats.render("qwen3-thinking-2507", messages, now=NOW)
    assert [(f.token, f.path, f.input_offset, f.form) for f in findings] == [
        ("<|im_end|>", "messages[0].content", messages[0]["content"].index("<|im_end|>"), "value"),
        ("<|im_start|>", "messages[1].content", 0, "value"),
        ("<tool_call>", "messages[2].content", messages[2]["content"].index("<tool_call>"), "value"),
    ]
    for finding in findings:
        assert text[finding.offset:finding.end] == finding.token
        assert finding.sources == (finding.path,)
    # The <think> and </think> of the assistant turn are the template's own split: the template
    # rewrites them, so they are not input text in the prompt.


def test_tojson_values_are_reported_in_their_json() -> None:
    messages = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": "",
                 "tool_calls": [{"function": {"name": "f", "arguments": {"a": "x<|im_end|>"}}}]}]
    (finding,) = chatformats.audit("qwen3-instruct-2507", messages, now=NOW)
    assert finding.path == "messages[1].tool_calls[0].function.arguments"
    assert finding.form == "rendered"
    assert '{"a": "x<|im_end|>"}'[finding.input_offset:].startswith("<|im_end|>")
    assert finding.input_offset == '{"a": "x'.__len__()


def test_a_finding_is_read_only_and_plain_data() -> None:
    finding = Finding("<t>", 3, "messages[0].content", 1, "value", ("messages[0].content",))
    with pytest.raises(AttributeError):
        finding.token = "x"  # type: ignore[misc]
    assert finding == Finding("<t>", 3, "messages[0].content", 1, "value", ("messages[0].content",))
    assert finding.as_dict() == {"token": "<t>", "offset": 3, "path": "messages[0].content",
                                 "input_offset": 1, "form": "value",
                                 "sources": ["messages[0].content"], "kind": "control",
                                 "detail": ""}


def test_resolve() -> None:
    """Paths in the error-path syntax (``chatformats._core``'s: ``.key`` for an identifier,
    ``[repr(key)]`` for any other key) lead to their values."""
    roots = {"messages": [{"content": [{"text": "a"}]}],
             "tools": [{"x": 1, "a b": {"it's\t\x00é": "deep"}, 3: "int key"}]}
    assert resolve("messages[0].content[0].text", roots) == "a"
    assert resolve("tools[0]", roots) == roots["tools"][0]
    assert resolve("tools[0][3]", roots) == "int key"
    inner = "it's\t\x00é"
    assert resolve(f"tools[0][{'a b'!r}][{inner!r}]", roots) == "deep"
    for missing in ("messages[1].content", "messages[0].nope", "tools[0].x.y", "nope",
                    "tools[0][", "tools[0]['a b'", ".x"):
        assert type(resolve(missing, roots)) is object, missing


def test_find_rules_on_a_built_rendering() -> None:
    """The scan's rules on a hand-built rendering (spans as a port would record them): each
    occurrence of each string, overlapping ones included; template text never; an occurrence
    across two inputs, and one that input text completes after template text; slices of one
    value located in order."""
    parts = ["x<|im_", "end|>y"]
    value = "ab<T>ab<T>"
    text = "<S>" + parts[0] + parts[1] + "<T>" + "<" + "S>q" + value[5:] + value[:5]
    spans = (
        Span(0, 3, None),                                   # the template's <S>
        Span(3, 9, "messages[0].content[0].text"),
        Span(9, 15, "messages[0].content[1].text"),
        Span(15, 19, None),                                 # the template's "<T><"
        Span(19, 21, "messages[1].content"),                # "S>" completes "<S>"
        Span(21, 22, "messages[2].role"),
        Span(22, 27, "messages[3].content"),                # value[5:]
        Span(27, 32, "messages[3].content"),                # value[:5], the same text
    )
    rendering = Rendering(text, spans, ())
    roots = {"messages": [{"content": [{"text": parts[0]}, {"text": parts[1]}]},
                          {"content": "S>"}, {"role": "q"}, {"content": value}]}
    findings = _audit.find(rendering, roots, ("<|im_end|>", "<S>", "<T>", "<T>ab", "<S"))
    got = [(f.token, f.offset, f.path, f.input_offset, f.sources) for f in findings]
    assert got == [
        ("<|im_end|>", 4, "messages[0].content[0].text", 1,
         ("messages[0].content[0].text", "messages[0].content[1].text")),
        ("<S", 18, "messages[1].content", 0, (None, "messages[1].content")),
        ("<S>", 18, "messages[1].content", 0, (None, "messages[1].content")),
        # The two slices of messages[3].content are the same text: the first is located at the
        # value's first copy, the second at the next copy after it (the documented rule).
        ("<T>", 24, "messages[3].content", 2, ("messages[3].content",)),
        ("<T>ab", 24, "messages[3].content", 2, ("messages[3].content", "messages[3].content")),
        ("<T>", 29, "messages[3].content", 7, ("messages[3].content",)),
    ]
    for finding in findings:
        assert text[finding.offset:finding.end] == finding.token


def test_the_models_own_special_tokens_are_not_findings() -> None:
    """A ``bos_token`` span holding the model's own token is structure (the pipeline layer
    supplies it); another value of the variable is input like any other."""
    special = chatformats.get_format("cogito").special_tokens
    for bos, reported in ((special["bos_token"], False), ("<|eot_id|>", True)):
        text = bos + "<|start_header_id|>"
        spans = (Span(0, len(bos), "bos_token"), Span(len(bos), len(text), None))
        findings = _audit.find(Rendering(text, spans, ()), {"bos_token": bos},
                               chatformats.get_format("cogito").control_strings, special)
        assert bool(findings) == reported
        if reported:
            assert [(f.path, f.input_offset, f.token) for f in findings] == [("bos_token", 0, bos)]


@pytest.mark.parametrize("name", FORMATS)
def test_rendering_failures_are_the_renders(name: str) -> None:
    for bad in ([{"role": "user", "content": object()}], "not a list"):
        with pytest.raises(ChatFormatError) as expected:
            chatformats.render(name, bad, now=NOW)
        with pytest.raises(type(expected.value)):
            call(name, chatformats.audit, name, bad, now=NOW)


# ------------------------------------------------------------------ the law


def _scrub(value: Any) -> Any:
    """``value`` with every ``<`` replaced: text that holds no control string (every control
    string of every format starts with ``<``) and cannot complete one."""
    if type(value) is str:
        return value.replace("<", "\u2039")
    if type(value) is list:
        return [_scrub(v) for v in value]
    if type(value) is tuple:
        return tuple(_scrub(v) for v in value)
    if type(value) is dict:
        return {_scrub(k) if type(k) is str else k: _scrub(v) for k, v in value.items()}
    return value


def _leaves(value: Any, path: str) -> list[tuple[str, Any, Any]]:
    """(path, container, key) of every string leaf (dict values, list items) under ``value``,
    paths in the error-path syntax (``.key`` for an identifier, ``[repr(key)]`` else)."""
    found: list[tuple[str, Any, Any]] = []
    if type(value) is dict:
        for key, item in value.items():
            identifier = type(key) is str and key.isidentifier()
            sub = f"{path}.{key}" if identifier else f"{path}[{key!r}]"
            if type(item) is str:
                found.append((sub, value, key))
            else:
                found.extend(_leaves(item, sub))
    elif type(value) is list:
        for index, item in enumerate(value):
            sub = f"{path}[{index}]"
            if type(item) is str:
                found.append((sub, value, index))
            else:
                found.extend(_leaves(item, sub))
    return found


def _is_ancestor(path: str, leaf: str) -> bool:
    return leaf == path or leaf.startswith(path + ".") or leaf.startswith(path + "[")


@st.composite
def _case(draw: st.DrawFn, name: str) -> tuple[Any, dict[str, Any]]:
    messages = _scrub(draw(st.one_of(strategies.realistic_conversation(),
                                     strategies.realistic_conversation(),
                                     strategies.adversarial_messages)))
    variables: dict[str, Any] = {}
    for variable in chatformats.get_format(name).variables or ():
        if variable == "tools":
            if draw(st.booleans()):
                variables["tools"] = _scrub(draw(strategies.tools_realistic))
        elif variable == "add_generation_prompt":
            if draw(st.booleans()):
                variables["add_generation_prompt"] = True
        elif draw(st.integers(0, 2)) == 0:  # every other variable the template reads, any value
            variables[variable] = _scrub(draw(strategies.variable_values))
    return messages, variables


def _control(findings: Any) -> tuple[Any, ...]:
    """The control-string findings (the dropped and repr ones have their law in
    ``tests/test_silent.py``)."""
    return tuple(f for f in findings if f.kind == "control")


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=budget.per_format(100))
@given(data=st.data())
def test_plant_render_audit(name: str, data: st.DataObject) -> None:
    messages, variables = data.draw(_case(name))
    try:
        clean = _control(chatformats.audit(name, messages, now=NOW, **variables))
    except ChatFormatError:
        assume(False)
    assert clean == (), "text without control strings gave findings"
    roots = {"messages": messages, **variables}
    leaves = [leaf for root, value in roots.items() for leaf in _leaves(value, root)]
    leaves += [(root, variables, root) for root, value in variables.items() if type(value) is str]
    assume(leaves)
    path, container, key = data.draw(st.sampled_from(leaves))
    original = container[key]
    at = data.draw(st.integers(0, len(original)))
    token = data.draw(st.sampled_from(chatformats.get_format(name).control_strings))
    container[key] = original[:at] + token + original[at:]
    roots = {"messages": messages, **variables}
    note(f"planted {token!r} at {path}[{at}]")
    try:
        text = chatformats.render(name, messages, now=NOW, **variables)
    except ChatFormatError:  # the plant changed the template's branch into a failure
        assume(False)
    findings = _control(chatformats.audit(name, messages, now=NOW, **variables))
    note(repr(findings))
    for finding in findings:
        assert text[finding.offset:finding.end] == finding.token
        assert finding.token == token
        assert _is_ancestor(finding.path, path), (finding.path, path)
        if finding.form == "value":
            assert finding.path == path
            assert finding.input_offset == at
        else:
            value = resolve(finding.path, roots)
            # the value's JSON as tojson writes it (any indent the templates use), or str()
            rendered = {json.dumps(value, ensure_ascii=False, indent=i) for i in (None, 2, 4)}
            rendered.add(str(value))
            assert any(r[finding.input_offset:].startswith(token) for r in rendered)
    # Completeness: every occurrence of the token that is not wholly template text (or the
    # model's own special token passed as its variable, e.g. bos_token) is found.
    rendering = chatformats.render_spans(name, messages, now=NOW, **variables)
    special = chatformats.get_format(name).special_tokens
    expected = []
    start = text.find(token)
    while start >= 0:
        covered = [s for s in rendering.spans if s.start < start + len(token) and s.end > start]
        if any(s.source is not None and special.get(s.source) != text[s.start:s.end]
               for s in covered):
            expected.append(start)
        start = text.find(token, start + 1)
    assert [f.offset for f in findings] == expected
    # Where the plant is a user's string content, every format shows it: it must be found.
    message_index = path.split("]")[0][len("messages["):] if path.startswith("messages[") else ""
    if (message_index.isdigit() and path == f"messages[{message_index}].content"
            and messages[int(message_index)].get("role") == "user" and token.strip() == token):
        assert findings, "a control string planted in a user message was not found"
