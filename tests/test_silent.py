"""Nothing silent: the audit's ``dropped`` and ``repr`` findings, and ``strict=True`` refusing
them, against the reference renderers, for every format at both layers.

The oracle: every string the input holds carries a mark of its own (``⟦k⟧``, appended), so
which input reached the prompt can be read off the reference's text, not off the spans the
audit reads:

- a documented field (``chatformats._silent.documented``) or a message that holds something is
  reported ``dropped`` exactly when none of its marks is in the reference's prompt;
- every ``repr`` finding is ``str()`` of the value at its path, at its offset in the reference's
  prompt, and a container whose ``str()`` (marks inside) is in the prompt is reported;
- ``strict=True`` refuses exactly the renders with such findings, with the first one's path,
  and otherwise renders what the default renders.

Into realistic conversations the strategy plants each silent input the issue tracker met: a
message without ``role``, a list content where a format takes strings, reasoning in history, a
tool call beside content, a batch's worth of an extra conversation is no message at all.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import SilentInput
from chatformats._audit import resolve
from chatformats._silent import documented

from . import budget, oracle
from . import strategies as s
from . import transformers_oracle
from .oracle import FIXED_NOW

NAMES = [pytest.param(name, marks=pytest.mark.xdist_group("format-" + name))
         for name in chatformats.formats()]
WITH_PIPELINE = [pytest.param(name, marks=pytest.mark.xdist_group("format-" + name))
                 for name in chatformats.formats() if chatformats.get_format(name).tests.pipeline]

_MARK = re.compile("⟦[0-9]+⟧")
_KEPT = ("type", "role")


def marked(value: Any, counter: list[int], key: Any = None) -> Any:
    """``value`` with a mark of its own appended to every string (keys, ``type`` and ``role``
    values kept: they choose branches)."""
    if type(value) is str:
        if key in _KEPT:
            return value
        counter[0] += 1
        return f"{value}⟦{counter[0]}⟧"
    if type(value) is dict:
        return {k: marked(v, counter, k) for k, v in value.items()}
    if type(value) is list:
        return [marked(v, counter) for v in value]
    return value


def marks(value: Any) -> list[str]:
    return _MARK.findall(str(value))


@st.composite
def planted(draw: st.DrawFn) -> list[Any]:
    """A realistic conversation with the silent inputs planted: a message without ``role``, a
    list content (text parts), earlier turns' reasoning, content beside tool calls."""
    messages: list[Any] = draw(s.realistic_conversation())
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["no_role", "parts", "reasoning", "bool", "not_a_message"]))
        at = draw(st.integers(0, len(messages)))
        if kind == "no_role":
            messages.insert(at, {"content": draw(s.texts) + "x"})
        elif kind == "parts" and messages:
            i = draw(st.integers(0, len(messages) - 1))
            if type(messages[i]) is dict:
                messages[i] = {**messages[i], "content": [{"type": "text", "text": "part"}]}
        elif kind == "reasoning" and messages:
            i = draw(st.integers(0, len(messages) - 1))
            if type(messages[i]) is dict and messages[i].get("role") == "assistant":
                messages[i] = {**messages[i], "reasoning_content": "earlier thought"}
        elif kind == "bool" and messages:
            i = draw(st.integers(0, len(messages) - 1))
            if type(messages[i]) is dict:
                messages[i] = {**messages[i], "content": draw(st.sampled_from([True, None, {"a": "b"}]))}
        elif kind == "not_a_message":
            messages.insert(at, [{"role": "user", "content": "inner"}])
    return marked(messages, [0])


def _kinds(found: Any) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {"dropped": set(), "repr": set()}
    for finding in found:
        if finding.kind in out:
            out[finding.kind].add(finding.path)
    return out


def _held(value: Any) -> bool:
    """Whether ``value`` holds something to lose (as ``chatformats._silent`` defines it): a
    string with more than whitespace, a number or boolean, or a container holding one."""
    if type(value) is str:
        return bool(value.strip())
    if type(value) is dict:
        return any(_held(v) for v in value.values())
    if type(value) in (list, tuple):
        return any(_held(v) for v in value)
    return value is not None


def assert_reports(name: str, messages: Any, variables: dict[str, Any], text: str, found: Any,
                   roots: dict[str, Any]) -> None:
    """The findings ``found`` of a render whose reference prompt is ``text`` say what the marks
    say (the module docstring)."""
    kinds = _kinds(found)
    fields = documented(chatformats.get_format(name))
    for i, message in enumerate(roots["messages"]):
        if type(message) is not dict:
            continue
        for field in fields:
            value = message.get(field)
            mine = marks(value)
            if not mine or not _held(value):
                continue
            absent = not any(mark in text for mark in mine)
            reported = f"messages[{i}].{field}" in kinds["dropped"] or f"messages[{i}]" in kinds["dropped"]
            assert absent == reported, (f"messages[{i}].{field}", absent, reported, found)
    for path in kinds["dropped"]:
        value = resolve(path, roots)
        assert not any(mark in text for mark in marks(value)), (path, "has a mark in the prompt")
    for finding in found:
        if finding.kind == "repr":
            value = resolve(finding.path, roots)
            assert finding.token in (str(value), str(value).strip()), finding
            assert text[finding.offset:finding.end] == finding.token, finding
    for i, message in enumerate(roots["messages"]):
        if type(message) is dict:
            for field in fields:
                value = message.get(field)
                if type(value) in (list, dict) and marks(value) and str(value) in text:
                    assert f"messages[{i}].{field}" in kinds["repr"], (i, field, found)


def assert_strict(found: Any, render_strict: Any, text: str, unknown: Any = ()) -> None:
    """``strict=True`` refuses the variables the template does not read (``unknown``), then
    exactly what the audit calls dropped or repr; else it renders the default's text."""
    silent = [f for f in found if f.kind in ("dropped", "repr")]
    try:
        strict_text = render_strict()
    except chatformats.UnknownVariableError:
        assert unknown, "strict refused known variables"
        return
    except SilentInput as exc:
        assert not unknown, "strict did not refuse unknown variables first"
        assert silent, f"strict refused a render with no dropped or repr finding: {exc}"
        assert exc.finding in silent
        assert exc.finding.path in str(exc)
        return
    assert not unknown, "strict rendered unknown variables"
    assert not silent, f"strict rendered despite {silent}"
    assert strict_text == text


@pytest.mark.parametrize("name", NAMES)
def test_template_layer(name: str) -> None:
    @settings(max_examples=budget.examples(name, "silent"))
    @given(messages=planted(), variables=s.format_variables(name), marked_tools=st.booleans())
    def check(messages: Any, variables: dict[str, Any], marked_tools: bool) -> None:
        if marked_tools and "tools" in chatformats.get_format(name).variables:
            variables = {**variables, "tools": marked(s.TOOL_SCHEMAS[:1], [1000])}
        if messages and type(messages[0]) is list:  # a batch by transformers' rule: refused
            with pytest.raises(chatformats.InvalidConversation, match="is a batch"):
                chatformats.audit(name, messages, now=FIXED_NOW, **variables)
            return
        reference = oracle.render(name, messages, FIXED_NOW, record_coverage=False, **variables)
        try:
            found = chatformats.audit(name, messages, now=FIXED_NOW, **variables)
        except chatformats.ChatFormatError:
            assert not reference.ok
            return
        assert reference.ok and reference.text is not None
        roots = {**variables, "messages": messages}
        assert_reports(name, messages, variables, reference.text, found, roots)
        unknown = set(variables) - set(chatformats.get_format(name).variables)
        assert_strict(found, lambda: chatformats.render(name, messages, now=FIXED_NOW, strict=True,
                                                        **variables), reference.text, unknown)

    check()


@pytest.mark.parametrize("name", WITH_PIPELINE)
def test_pipeline_layer(name: str) -> None:
    @settings(max_examples=budget.examples(name, "silent_pipeline"))
    @given(messages=planted(), add_generation_prompt=st.booleans(), with_tools=st.booleans(),
           continued=st.booleans())
    def check(messages: Any, add_generation_prompt: bool, with_tools: bool, continued: bool) -> None:
        messages = [m for m in messages if type(m) is dict]  # a batch is another API's question
        if not messages:
            return
        kwargs: dict[str, Any] = {"add_generation_prompt": add_generation_prompt}
        if continued and not add_generation_prompt:
            kwargs["continue_final_message"] = True
        if with_tools:
            kwargs["tools"] = marked(s.TOOL_SCHEMAS[:1], [1000])
        reference = transformers_oracle.apply(name, messages, **kwargs)
        try:
            found = chatformats.audit_chat_template(name, messages, now=FIXED_NOW, **kwargs)
        except chatformats.ChatFormatError:
            assert not reference.ok
            return
        assert reference.ok and reference.text is not None
        converted = [{k: v for k, v in m.items() if v is not None} for m in messages]
        roots = {**kwargs, "messages": converted}
        assert_reports(name, converted, kwargs, reference.text, found, roots)
        assert_strict(found, lambda: chatformats.apply_chat_template(
            name, messages, now=FIXED_NOW, strict=True, **kwargs), reference.text)

    check()


def test_the_issue_cases() -> None:
    """The silences the tracker reported, each at its path."""
    no_role = [{"role": "user", "content": "hi"}, {"content": "lost"}]
    for name in ("qwen3-instruct-2507", "qwen3-thinking-2507", "qwen3-tool-agent", "solar-open"):
        found = chatformats.audit(name, no_role, now=FIXED_NOW)
        assert [f.path for f in found if f.kind == "dropped"] == ["messages[1]"], (name, found)
        with pytest.raises(SilentInput, match=r"messages\[1\]"):
            chatformats.render(name, no_role, now=FIXED_NOW, strict=True)
    parts = [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
             {"role": "user", "content": "hi"}]
    for name in ("cogito", "llama-3.1", "llama-3.2"):
        found = chatformats.audit(name, parts, now=FIXED_NOW)
        (finding,) = [f for f in found if f.kind == "repr"]
        assert finding.path == "messages[0].content"
        assert finding.token == "[{'type': 'text', 'text': 'Be brief.'}]"
    history = [{"role": "user", "content": "a"},
               {"role": "assistant", "content": "b", "reasoning_content": "thought"},
               {"role": "user", "content": "c"}]
    (finding,) = chatformats.audit("qwen3", history, now=FIXED_NOW)
    assert (finding.kind, finding.path) == ("dropped", "messages[1].reasoning_content")
    # Nothing silent, nothing found, and strict renders as the default does.
    clean = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    for name in chatformats.formats():
        assert not [f for f in chatformats.audit(name, clean, now=FIXED_NOW) if f.kind != "control"], name
        assert (chatformats.render(name, clean, now=FIXED_NOW, strict=True)
                == chatformats.render(name, clean, now=FIXED_NOW))


def test_a_batch_error_names_the_conversation() -> None:
    fine = [{"role": "user", "content": "a"}]
    with pytest.raises(SilentInput, match=r"^conversations\[1\]: messages\[1\]"):
        chatformats.apply_chat_template("qwen3", [fine, [*fine, {"content": "lost"}]], strict=True)


# ------------------------------------------------------------------ requests, the CLI, Ray


def _request(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {
            "name": "f", "arguments": "not json"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "done"}], **extra}


def test_a_request_reports_what_the_server_loses() -> None:
    from chatformats.openai import audit_request, render_request

    body = _request(chat_template_kwargs={"enable_thinkng": False})
    found = audit_request("cogito", body, now=FIXED_NOW)
    by_path = {f.path: f for f in found}
    assert by_path["chat_template_kwargs.enable_thinkng"].kind == "dropped"
    assert by_path["messages[2].tool_calls[0].function.arguments"].kind == "dropped"
    # vLLM passes Cogito's string system content as a parts list, which the template prints.
    shown = by_path["messages[0].content"]
    assert (shown.kind, shown.token) == ("repr", "[{'type': 'text', 'text': 'Be brief.'}]")
    assert "--chat-template-content-format string" in shown.detail
    prompt = render_request("cogito", body, now=FIXED_NOW)  # the default renders, as vLLM does
    assert shown.token in prompt and prompt[shown.offset:shown.end] == shown.token
    with pytest.raises(chatformats.UnknownVariableError, match="enable_thinkng"):
        render_request("cogito", body, now=FIXED_NOW, strict=True)
    with pytest.raises(SilentInput, match=r"messages\[2\]\.tool_calls\[0\]\.function\.arguments"):
        render_request("cogito", _request(), now=FIXED_NOW, strict=True)
    fixed = _request()
    fixed["messages"][2]["tool_calls"][0]["function"]["arguments"] = "{}"
    with pytest.raises(SilentInput, match=r"messages\[0\]\.content"):
        render_request("cogito", fixed, now=FIXED_NOW, strict=True)
    # The setting the finding names avoids it.
    assert not audit_request("cogito", fixed, now=FIXED_NOW, content_format="string")
    assert (render_request("cogito", fixed, now=FIXED_NOW, content_format="string", strict=True)
            == render_request("cogito", fixed, now=FIXED_NOW, content_format="string"))


def test_the_command_line(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from chatformats.cli import main

    path = tmp_path / "conv.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}, {"content": "lost"}]))
    now = ["--now", FIXED_NOW.isoformat()]
    assert main(["audit", "qwen3", str(path), *now]) == 3
    out, err = capsys.readouterr()
    end = len(chatformats.render("qwen3", json.loads(path.read_text()), now=FIXED_NOW))
    # The dropped message is the last: where it would be is the end of the prompt.
    assert out == f"messages[1]: dropped: the message contributed no character (prompt offset {end})\n"
    assert "1 dropped input" in err
    assert main(["audit", "qwen3", str(path), "--json", *now]) == 3
    (listed,) = json.loads(capsys.readouterr()[0])
    assert (listed["kind"], listed["path"]) == ("dropped", "messages[1]")
    for layer in ("template", "pipeline"):
        assert main(["render", "qwen3", str(path), "--layer", layer, *now]) == 0
        assert capsys.readouterr()[0] == chatformats.render("qwen3", json.loads(path.read_text()),
                                                            now=FIXED_NOW)
        assert main(["render", "qwen3", str(path), "--layer", layer, "--strict", *now]) == 1
        assert "SilentInput: messages[1]" in capsys.readouterr()[1]
    body = tmp_path / "body.json"
    body.write_text(json.dumps(_request(chat_template_kwargs={"enable_thinkng": False})))
    assert main(["request", "cogito", str(body), *now]) == 0
    capsys.readouterr()
    assert main(["request", "cogito", str(body), "--strict", *now]) == 1
    assert "enable_thinkng" in capsys.readouterr()[1]


def test_the_ray_stage_refuses_under_strict() -> None:
    from chatformats.ray import RenderStage

    batch = {"messages": [[{"role": "user", "content": "hi"}],
                          [{"role": "user", "content": "hi"}, {"content": "lost"}]]}
    plain = RenderStage("qwen3", now=FIXED_NOW)(dict(batch))
    assert list(plain["error"]) == [None, None]
    strict = RenderStage("qwen3", now=FIXED_NOW, strict=True)(dict(batch))
    assert strict["error"][0] is None and strict["prompt"][0] == plain["prompt"][0]
    assert "messages[1]" in strict["error"][1]
