"""``chatformats.openai``: OpenAI request bodies rendered as a vLLM server renders them.

Two oracles, one per half:
- the preprocessing (what vLLM gives ``apply_chat_template``) against the fixtures in
  ``tests/fixtures/openai/``, each naming the line of vLLM's source that decides it
  (``decided_by``); the expected conversation is read off that source;
- the prompt itself against transformers (``tests/transformers_oracle.py``) run on the fixture's
  preprocessed conversation and arguments: never written by hand.
The property test then runs any request body through both halves.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import ChatFormatError, InternalError, TemplateError
from chatformats.openai import (
    HF_APPLY_CHAT_TEMPLATE_PARAMS,
    InvalidRequest,
    preprocess_request,
    render_request,
)

from . import budget
from . import strategies as s
from . import transformers_oracle as T
from .oracle import FIXED_NOW

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "openai").glob("*.json"))
FORMATS = chatformats.formats()


def load(path: Path) -> dict[str, Any]:
    case: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return case


def ordered(value: Any) -> str:
    """Key order decides ``tojson`` output: compare as JSON text, order included."""
    return json.dumps(value, ensure_ascii=False)


def assert_renders_as_transformers(name: str, body: Any, messages: Any, kwargs: dict[str, Any]) -> None:
    expected = T.apply(name, messages, **kwargs)
    try:
        got = render_request(name, body, now=FIXED_NOW)
    except InternalError:
        raise
    except ChatFormatError as err:
        assert not expected.ok, f"transformers rendered {expected.text!r}, chatformats raised {err!r}"
        if isinstance(err, TemplateError) or expected.kind == "raise_exception":
            assert (type(err) is TemplateError, str(err)) == (expected.kind == "raise_exception", expected.message)
        return
    assert expected.ok, f"transformers {expected.describe()}, chatformats rendered {got!r}"
    assert got == expected.text


SEED_FORMATS = {"solar-open", "llama-3.2-vision", "minicpm-v-4.6-thinking", "cogito", "qwen3-tool-agent"}


def test_there_are_fixtures_for_every_rule():
    assert len(FIXTURES) >= 15
    covered = {load(p)["format"] for p in FIXTURES}
    assert SEED_FORMATS <= covered  # every seed format, so both content formats and each modality map
    assert {chatformats.get_format(name).content_format for name in covered} == {"string", "openai"}


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture(path):
    case = load(path)
    assert case["decided_by"].startswith("vllm/")
    messages, kwargs = preprocess_request(case["format"], case["request"])
    assert ordered(messages) == ordered(case["messages"])
    assert kwargs == case["kwargs"]
    assert_renders_as_transformers(case["format"], case["request"], case["messages"], case["kwargs"])


def test_fixtures_fix_what_the_issue_reported():
    """The prompts a server builds where chatformats' pipeline alone differed."""
    case = load(next(p for p in FIXTURES if p.stem == "tool_call_arguments_json_string"))
    prompt = render_request("cogito", case["request"], now=FIXED_NOW)
    assert '"arguments": {"q": "cat"}' in prompt
    assert '\\"q\\"' not in prompt  # not double-encoded
    case = load(next(p for p in FIXTURES if p.stem == "image_url_part_openai_format"))
    assert "<|image|>What is this?" in render_request("llama-3.2-vision", case["request"], now=FIXED_NOW)
    case = load(next(p for p in FIXTURES if p.stem == "list_content_string_format"))
    assert "First line.\nSecond line." in render_request("qwen3-tool-agent", case["request"])


# ------------------------------------------------------------------ the tables, against their sources


def test_hf_parameters_are_transformers_signature():
    from transformers import PreTrainedTokenizerBase

    signature = inspect.signature(PreTrainedTokenizerBase.apply_chat_template)
    names = {p.name for p in signature.parameters.values()
             if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self"}
    assert names == HF_APPLY_CHAT_TEMPLATE_PARAMS


def _parse(name: str) -> Any:
    from chatformats import verify as _reference

    return _reference._reference().env.parse(chatformats.get_format(name).template_source())


@pytest.mark.parametrize("name", FORMATS)
def test_globals_called_are_jinja2s(name):
    import jinja2.ext
    import jinja2.meta
    import jinja2.sandbox

    from .jinja_env import ENVIRONMENT_GLOBALS

    # vLLM's environment (resolve_chat_template_kwargs) defines no globals, so the functions a
    # template calls count as undeclared variables there.
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    found = jinja2.meta.find_undeclared_variables(
        env.parse(chatformats.get_format(name).template_source()))
    from chatformats.openai import _JINJA2_GLOBALS

    assert chatformats.get_format(name).calls - _JINJA2_GLOBALS == found & ENVIRONMENT_GLOBALS


def _content_loops(ast: Any) -> bool:
    """vLLM's content-format rule, written anew from its description: does the template loop
    over ``X['content']`` / ``X.content`` where X is a loop variable over ``messages`` (or over a
    name assigned from ``messages``, its slice or its filter)?"""
    import jinja2.nodes as n

    def base(node: Any) -> Any:
        while isinstance(node, (n.Filter, n.Test)) or (
                isinstance(node, n.Getitem) and isinstance(node.arg, n.Slice)):
            node = node.node
        return node

    def is_name(node: Any, names: set[str]) -> bool:
        node = base(node)
        return isinstance(node, n.Name) and node.ctx == "load" and node.name in names

    message_lists = {"messages"}
    changed = True
    while changed:
        changed = False
        for assign in ast.find_all(n.Assign):
            if isinstance(assign.target, n.Name) and is_name(assign.node, message_lists) \
                    and assign.target.name not in message_lists:
                message_lists.add(assign.target.name)
                changed = True
    message_vars = {loop.target.name for loop in ast.find_all(n.For)
                    if isinstance(loop.target, n.Name) and is_name(loop.iter, message_lists)}
    for loop in ast.find_all(n.For):
        it = base(loop.iter)
        if isinstance(it, n.Getitem) and isinstance(it.arg, n.Const) and it.arg.value == "content" \
                and is_name(it.node, message_vars):
            return True
        if isinstance(it, n.Getattr) and it.attr == "content" and is_name(it.node, message_vars):
            return True
    return False


@pytest.mark.parametrize("name", FORMATS)
def test_content_format_is_vllms_detection(name):
    expected = "openai" if _content_loops(_parse(name)) else "string"
    assert chatformats.get_format(name).content_format == expected


# ------------------------------------------------------------------ any request body


request_parts = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, s.texts),
    s.texts,
    st.sampled_from([
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "video_url", "video_url": {"url": "https://example.com/v.mp4"}},
        {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
        {"image_url": "https://example.com/a.png"},
        {"type": "text", "text": None},
        {"type": "text", "text": "<|image|>(<image>./</image>)"},
    ]),
    st.builds(lambda t: {"type": "refusal", "refusal": t}, s.texts),
)


@st.composite
def served_conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    """What OpenAI clients send a server: the realistic conversations with tool-call arguments
    as JSON strings (any string, some not JSON), content as OpenAI parts."""
    messages = draw(s.realistic_conversation())
    for message in messages:
        for call in message.get("tool_calls", ()):
            arguments = call["function"]["arguments"]
            if not isinstance(arguments, str):
                call["function"]["arguments"] = draw(st.one_of(
                    st.just(json.dumps(arguments)), st.just(json.dumps(arguments)), s.short_texts))
        if message["role"] in ("user", "system", "tool") and draw(st.integers(0, 3)) == 0:
            message["content"] = draw(st.lists(request_parts, max_size=3))
    return messages


@st.composite
def request_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """Request bodies: what clients send (string arguments, OpenAI content parts) and any
    conversation at all, with the fields that reach the template."""
    messages = draw(st.one_of(served_conversation(), served_conversation(), s.adversarial_messages))
    body: dict[str, Any] = {"model": "m", "messages": messages}
    optional = {
        "tools": st.one_of(s.tools_realistic, st.just([])),
        "add_generation_prompt": st.booleans(),
        "continue_final_message": st.booleans(),
        "reasoning_effort": st.sampled_from(["none", "low", "high"]),
        "chat_template_kwargs": st.dictionaries(
            st.sampled_from(["enable_thinking", "add_generation_prompt", "tools", "typo",
                             "reasoning_effort", "bos_token"]),
            st.one_of(st.booleans(), st.none(), s.short_texts), max_size=3),
        "tool_choice": st.sampled_from(["none", "auto"]),
        "documents": st.just([{"title": "t", "text": "x"}]),
    }
    for key, strategy in optional.items():
        if draw(st.integers(0, 3)) == 0:
            body[key] = draw(strategy)
    return body


def _vllm_arguments(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return {}
    return arguments if isinstance(arguments, (dict, list)) else {}


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=budget.per_format(60), suppress_health_check=[HealthCheck.too_slow])
@given(body=request_bodies())
@example(body={"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}]})
@example(body={"model": "m", "messages": [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}]}]})
@example(body={"model": "m", "messages": [
    {"role": "user", "content": "q"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "get_weather", "arguments": "0"}}]}]})
def test_any_request_renders_as_transformers_on_vllms_conversation(name, body):
    try:
        messages, kwargs = preprocess_request(name, body)
    except InvalidRequest:
        return  # a request the server refuses too (shape checked in the tests below)
    # vLLM's _postprocess_messages: a string is parsed as JSON (any JSON value: "0" gives 0),
    # {} where it is not JSON
    sent = [call["function"]["arguments"] for message in body["messages"]
            if message["role"] == "assistant" for call in message.get("tool_calls") or ()]
    got = [call["function"]["arguments"] for message in messages for call in message.get("tool_calls", ())]
    assert got == [_vllm_arguments(arguments) for arguments in sent]
    for message in messages:
        assert message.get("tool_calls", None) != []
        assert set(message) <= {"role", "content", "tool_calls", "reasoning", "reasoning_content",
                                "tool_call_id", "name", "task", "tools"}
    assert_renders_as_transformers(name, body, messages, kwargs)


@pytest.mark.parametrize("body, where", [
    ("not a body", "the request body"),
    ({"messages": None}, "messages"),
    ({"messages": ["hi"]}, r"messages\[0\]"),
    ({"messages": [{"content": "hi"}]}, r"messages\[0\]\.role"),
    ({"messages": [{"role": "user", "content": 5}]}, r"messages\[0\]\.content"),
    ({"messages": [{"role": "user", "content": [{"type": "file"}]}]}, r"messages\[0\]\.content\[0\]\.type"),
    ({"messages": [{"role": "user", "content": [{"foo": 1}]}]}, r"Missing 'type'"),
    ({"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": "f"}]}]},
     r"messages\[0\]\.tool_calls\[0\]\.function"),
    ({"messages": [{"role": "assistant", "tool_calls": [{"type": "function", "function": {}}]}]},
     r"messages\[0\]\.tool_calls\[0\]\.id: a string is required"),
    ({"messages": [{"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"q": 1}}}]}]},
     r"messages\[0\]\.tool_calls\[0\]\.function\.arguments: a string is required"),
    ({"messages": [{"role": "user", "content": None}]}, r"messages\[0\]\.content: null is allowed"),
    ({"messages": [{"role": "user", "content": [{"type": "image_embeds", "image_embeds": "AA"}]}]},
     "--enable-mm-embeds"),
    ({"messages": [{"role": "user", "content": [{"type": "tool_reference", "name": 3}]}]},
     r"messages\[0\]\.content\[0\]\.name"),
    ({"messages": [{"role": "user", "content": "hi", "name": 5}]}, r"messages\[0\]\.name"),
    ({"messages": [], "tools": [{"function": {"name": 1}}]}, r"tools\[0\]\.function\.name"),
    ({"messages": [], "tools": {"name": "f"}}, "tools"),
    ({"messages": [], "chat_template_kwargs": {"chat_template": "x"}}, "unexpected chat template kwargs"),
    ({"messages": [], "chat_template_kwargs": []}, "chat_template_kwargs"),
    ({"messages": [], "add_generation_prompt": "yes"}, "add_generation_prompt"),
    ({"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AA"}}]}]},
     "takes no audio input"),
])
def test_invalid_requests_name_the_field(body, where):
    with pytest.raises(InvalidRequest, match=where):
        render_request("minicpm-v-4.6-thinking", body)


def test_overriding_a_template_function_is_refused_where_the_template_calls_it():
    body = {"messages": [{"role": "user", "content": "hi"}],
            "chat_template_kwargs": {"raise_exception": 1}}
    with pytest.raises(InvalidRequest, match="raise_exception"):
        render_request("llama-3.2-vision", body)
    # cogito never calls it: vLLM drops the name, and so does chatformats
    assert render_request("cogito", body) == chatformats.apply_chat_template(
        "cogito", [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], add_generation_prompt=True)


def test_server_options():
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}],
            "tools": s.TOOL_SCHEMAS[:1]}
    messages, kwargs = preprocess_request("cogito", body, content_format="string",
                                          default_chat_template_kwargs={"enable_thinking": True},
                                          exclude_tools_when_tool_choice_none=True)
    assert messages == [{"role": "user", "content": "a\nb"}]
    assert kwargs["tools"] is None and kwargs["enable_thinking"] is True
    _, kwargs = preprocess_request("cogito", {**body, "tool_choice": "auto"},
                                   exclude_tools_when_tool_choice_none=True)
    assert kwargs["tools"][0]["function"]["name"] == "get_weather"
    with pytest.raises(ValueError):
        preprocess_request("cogito", body, content_format="markdown")


def test_by_model_id_and_bound_format():
    body = {"messages": [{"role": "user", "content": "hi"}], "add_generation_prompt": False}
    bound = chatformats.get_format("cogito").bind({"bos_token": "<s>"})
    assert render_request(bound, body).startswith("<s>")
    assert render_request("QWEN/qwen3-4b-instruct-2507", body) == render_request("qwen3-instruct-2507", body)
