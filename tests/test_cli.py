"""The ``chatformats`` command: every command, every input shape, every failure.

Most tests call ``cli.main([...])`` in-process; a few run the installed console script and
``python -m chatformats`` for real.  Expected prompts come from the library itself
(``chatformats.render`` / ``apply_chat_template``, whose parity with the reference is proved by
the format modules) and from the oracle, never from hard-coded text.
"""

from __future__ import annotations

import importlib
import io
import json
import pickle
import shutil
import subprocess
import sys
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import chatformats
from chatformats import cli
from chatformats.cli import progress as progress_module
from chatformats.cli import render as render_module

from . import oracle
from . import strategies as s
from . import transformers_oracle
from .argument_shapes import shaped

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
WEATHER = EXAMPLES / "weather_agent.json"
NOW = oracle.FIXED_NOW
NOW_ARG = NOW.isoformat()

PORTED = chatformats.formats()

MESSAGES = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "What's the weather in Seoul?"},
    {"role": "assistant", "content": "", "reasoning_content": "Call the tool.",
     "tool_calls": [{"id": "c1", "type": "function",
                     "function": {"name": "get_weather", "arguments": {"city": "Seoul"}}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"temp_c\": 21}"},
    {"role": "assistant", "content": "21 °C.", "tool_calls": None},
    {"role": "user", "content": "Thanks!"},
]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather",
                                            "parameters": {"type": "object", "properties": {}}}}]


def run(capsysbinary: Any, *argv: str) -> tuple[int, bytes, str]:
    """``cli.main(argv)`` in-process: (exit status, stdout bytes, stderr text)."""
    status = cli.main(list(argv))
    out, err = capsysbinary.readouterr()
    return status, out, err.decode("utf-8")


def write_json(tmp_path: Path, data: Any, name: str = "input.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def assert_matches(result: tuple[int, bytes, str], expected: oracle.Outcome) -> None:
    """The command's result is the oracle's outcome: its text on stdout, or status 1 with one
    line on stderr (with the template's own message verbatim)."""
    status, out, err = result
    if expected.ok:
        assert (status, err) == (0, "")
        assert out.decode("utf-8") == expected.text
    else:
        assert (status, out) == (1, b"") and err.count("\n") == 1
        if expected.kind == "raise_exception":
            assert err.endswith(f": TemplateError: {expected.message}\n")


def expected_pipeline(name: str, messages: Any, **kwargs: Any) -> str:
    result = chatformats.apply_chat_template(name, messages, now=NOW, **kwargs)
    assert isinstance(result, str)
    return result


# ------------------------------------------------------------------ formats and show


def test_formats_lists_every_format(capsysbinary):
    status, out, _ = run(capsysbinary, "formats")
    assert status == 0
    lines, _, aliases = out.decode().partition("\n\n")
    lines = lines.splitlines()
    assert [line.split()[0] for line in lines] == chatformats.formats()
    from chatformats._registry import ALIASES

    assert [line.split()[1] for line in aliases.splitlines()] == list(ALIASES)
    for line in lines:
        fmt = chatformats.get_format(line.split()[0])
        assert line.split(None, 1)[1] == (fmt.description or ", ".join(fmt.model_ids))


def test_formats_json(capsysbinary):
    status, out, _ = run(capsysbinary, "formats", "--json")
    assert status == 0
    assert [row["name"] for row in json.loads(out)] == chatformats.formats()


@pytest.mark.parametrize("name", chatformats.formats())
def test_show(capsysbinary, name):
    fmt = chatformats.get_format(name)
    status, out, _ = run(capsysbinary, "show", name)
    assert status == 0
    text = out.decode()
    assert f"{fmt.template_sha256} (verified)" in text
    assert str(fmt.template_path) in text
    for token in fmt.special_tokens.values():
        assert json.dumps(token, ensure_ascii=False) in text
    for model in fmt.model_ids:
        assert model in text
    status, out, _ = run(capsysbinary, "show", name, "--json")
    info = json.loads(out)
    assert info["sha256"] == fmt.template_sha256 and info["template_verified"] is True
    assert info["special_tokens"] == dict(fmt.special_tokens)
    assert info["variables"] == list(cli.TEMPLATE_VARIABLES[name])
    assert (ROOT / info["template"]).is_file()


@pytest.mark.parametrize("name", chatformats.formats())
def test_show_variables_match_the_template(name):
    """The table `show` prints is what jinja2 finds the template reading from its caller; the
    names left out are only ever the template's own locals (assigned somewhere in it)."""
    import jinja2.nodes

    from . import jinja_env

    file = chatformats.get_format(name).template_file
    found = set(jinja_env.template_variables(file))
    listed = set(cli.TEMPLATE_VARIABLES[name])
    assert listed <= found
    ast = jinja_env.parse(file)
    assigned = {n.name for node in ast.find_all((jinja2.nodes.Assign, jinja2.nodes.For,
                                                 jinja2.nodes.AssignBlock))
                for n in node.target.find_all(jinja2.nodes.Name)}
    assigned |= {node.target.name for node in ast.find_all(jinja2.nodes.Assign)
                 if isinstance(node.target, jinja2.nodes.Name)}
    assert found - listed - {"messages"} <= assigned


def test_show_reports_a_modified_template(capsysbinary, monkeypatch, tmp_path):
    from chatformats import _template_sources

    fmt = chatformats.get_format("cogito")
    monkeypatch.setitem(_template_sources.SOURCES, fmt.template_file, fmt.template_source() + " ")
    status, out, _ = run(capsysbinary, "show", "cogito")
    assert status == 0 and b"MISMATCH: the package's text of cogito.jinja has sha256 " in out


def test_show_by_model_id(capsysbinary):
    status, out, _ = run(capsysbinary, "show", "QWEN/qwen3-4b-instruct-2507")
    assert status == 0 and b"format:         qwen3-instruct-2507" in out
    # Meta's id finds Meta's template (the revision the model ships now); the seed variant says
    # what it varies.
    status, out, err = run(capsysbinary, "show", "meta-llama/Llama-3.2-11B-Vision-Instruct")
    assert status == 0 and b"format:         llama-3.2-vision-2024-12" in out
    status, out, _ = run(capsysbinary, "show", "llama-3.2-vision-variant")
    assert b"a variant of meta-llama/Llama-3.2-11B-Vision-Instruct" in out


@pytest.mark.parametrize("argv", [["show", "nope"], ["render", "nope", str(WEATHER)],
                                  ["verify", "nope", str(WEATHER)]])
def test_unknown_format_is_a_usage_error(capsysbinary, argv):
    status, out, err = run(capsysbinary, *argv)
    assert status == cli.EXIT_USAGE and out == b""
    assert err.count("\n") == 1 and "unknown format 'nope'" in err and "qwen3-tool-agent" in err


# ------------------------------------------------------------------ render: input shapes


@pytest.mark.parametrize("name", PORTED)
def test_render_list_of_messages_both_layers(capsysbinary, tmp_path, name):
    messages = shaped(name, MESSAGES)  # the argument shape the format's template takes
    path = write_json(tmp_path, messages)
    status, out, err = run(capsysbinary, "render", name, path, "--now", NOW_ARG)
    assert (status, err) == (0, "")
    assert out.decode("utf-8") == expected_pipeline(name, messages)
    result = run(capsysbinary, "render", name, path, "--now", NOW_ARG, "--layer", "template")
    assert_matches(result, oracle.render(name, messages, now=NOW))


@pytest.mark.parametrize("name", PORTED)
def test_render_object_with_variables(capsysbinary, tmp_path, name):
    messages = shaped(name, MESSAGES)  # the argument shape the format's template takes
    data = {"messages": messages, "tools": TOOLS, "add_generation_prompt": True,
            "enable_thinking": False}
    path = write_json(tmp_path, data)
    status, out, err = run(capsysbinary, "render", name, path, "--now", NOW_ARG, "--layer", "template")
    # A variable the template never reads is rendered as given, with one warning line.
    reads = chatformats.get_format(name).variables or ()
    warning = "" if "enable_thinking" in reads else (
        f"chatformats: warning: {name} does not read enable_thinking (a typo?); the template "
        f"reads {', '.join(reads)}\n")
    assert err.startswith(warning)
    variables = {"tools": TOOLS, "add_generation_prompt": True, "enable_thinking": False}
    assert_matches((status, out, err[len(warning):]), oracle.render(name, messages, now=NOW, **variables))
    status, out, _ = run(capsysbinary, "render", name, path, "--now", NOW_ARG)
    assert status == 0
    assert out.decode() == expected_pipeline(name, messages, tools=TOOLS, add_generation_prompt=True,
                                             enable_thinking=False)


@pytest.mark.parametrize("name", PORTED)
def test_render_openai_request_body(capsysbinary, tmp_path, name):
    """messages, tools, and chat_template_kwargs merged as vLLM merges them; every other
    request field ignored."""
    messages = shaped(name, MESSAGES)  # the argument shape the format's template takes
    body = {"model": "m", "temperature": 0.3, "max_tokens": 20, "stream": True, "n": 2,
            "messages": messages, "tools": TOOLS,
            "chat_template_kwargs": {"enable_thinking": False, "add_generation_prompt": True}}
    status, out, err = run(capsysbinary, "render", name, write_json(tmp_path, body), "--now", NOW_ARG)
    assert (status, err) == (0, "")
    assert out.decode() == expected_pipeline(name, messages, tools=TOOLS, enable_thinking=False,
                                             add_generation_prompt=True)
    plain = {"messages": messages, "tools": TOOLS, "enable_thinking": False,
             "add_generation_prompt": True}
    status, same, _ = run(capsysbinary, "render", name, write_json(tmp_path, plain, "plain.json"),
                          "--now", NOW_ARG)
    assert same == out


def test_request_body_top_level_template_fields(capsysbinary, tmp_path):
    """vLLM forwards add_generation_prompt (and continue_final_message, documents) from the
    request itself; chat_template_kwargs win over them."""
    name = "qwen3-tool-agent"
    body = {"model": "m", "messages": MESSAGES, "add_generation_prompt": True}
    status, out, _ = run(capsysbinary, "render", name, write_json(tmp_path, body), "--now", NOW_ARG)
    assert out.decode() == expected_pipeline(name, MESSAGES, add_generation_prompt=True)
    body["chat_template_kwargs"] = {"add_generation_prompt": False}
    status, out, _ = run(capsysbinary, "render", name, write_json(tmp_path, body), "--now", NOW_ARG)
    assert out.decode() == expected_pipeline(name, MESSAGES)


def test_request_body_chat_template_kwargs_must_be_an_object(capsysbinary, tmp_path):
    path = write_json(tmp_path, {"model": "m", "messages": MESSAGES, "chat_template_kwargs": [1]})
    status, out, err = run(capsysbinary, "render", "cogito", path)
    assert status == 1 and out == b""
    assert err == f"chatformats: {path}: chat_template_kwargs: expected an object, got an array\n"


def example_reference(name: str, path: str) -> Any:
    """The reference pipeline's outcome on example file ``path`` for format ``name``."""
    data = json.loads((EXAMPLES / path).read_text(encoding="utf-8"))
    if isinstance(data, list):
        return transformers_oracle.apply(name, data)
    data = dict(data)
    messages = data.pop("messages")
    variables = {key: data[key] for key in ("tools", "add_generation_prompt") if key in data}
    variables.update(data.get("chat_template_kwargs") or {})
    return transformers_oracle.apply(name, messages, **variables)


def test_example_files_render(capsysbinary):
    """Every example renders on every format, but where the reference cannot render it by the
    template's own design (the weather example's mapping arguments on a DeepSeek template,
    which concatenates them to a string): there the command fails as the reference does."""
    for path in ("weather_agent.json", "openai_request.json", "messages.json"):
        for name in PORTED:
            status, out, err = run(capsysbinary, "render", name, str(EXAMPLES / path))
            reference = example_reference(name, path)
            if not reference.ok:
                assert (status, out) == (1, b"") and err.count("\n") == 1, (path, name, err)
                kind = "TemplateError" if reference.kind == "raise_exception" else f"Template{reference.exc_type}"
                assert f": {kind}: " in err and err.endswith(f"{reference.message}\n"), (path, name, err)
                continue
            assert (status, err) == (0, ""), (path, name, err)
            assert out


def test_weather_example_matches_the_library(capsysbinary):
    data = json.loads(WEATHER.read_text(encoding="utf-8"))
    messages = data.pop("messages")
    status, out, _ = run(capsysbinary, "render", "qwen3-tool-agent", str(WEATHER))
    assert out.decode() == expected_pipeline("qwen3-tool-agent", messages, **data)


def test_stdin(capsysbinary, monkeypatch):
    raw = json.dumps({"messages": MESSAGES}).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    status, out, _ = run(capsysbinary, "render", "qwen3-tool-agent", "-", "--now", NOW_ARG)
    assert status == 0 and out.decode() == expected_pipeline("qwen3-tool-agent", MESSAGES)


def test_output_is_exact_bytes_no_newline_added(capsysbinary, tmp_path):
    messages = [{"role": "user", "content": "héllo ✓ \r\n 日本"}]
    status, out, _ = run(capsysbinary, "render", "cogito", write_json(tmp_path, messages),
                         "--layer", "template")
    assert out == chatformats.render("cogito", messages).encode("utf-8")
    assert out.endswith(b"<|eot_id|>")  # the template's last bytes: no newline added


def test_byte_order_mark_is_accepted(capsysbinary, tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(MESSAGES).encode())
    status, out, _ = run(capsysbinary, "render", "cogito", str(path), "--now", NOW_ARG)
    assert status == 0 and out.decode() == expected_pipeline("cogito", MESSAGES)


# ------------------------------------------------------------------ render: options


@pytest.mark.parametrize("name", PORTED)
def test_generation_prompt_both_layers(capsysbinary, tmp_path, name):
    messages = shaped(name, MESSAGES)  # the argument shape the format's template takes
    path = write_json(tmp_path, messages)
    status, out, _ = run(capsysbinary, "render", name, path, "--now", NOW_ARG, "--generation-prompt")
    assert out.decode() == expected_pipeline(name, messages, add_generation_prompt=True)
    result = run(capsysbinary, "render", name, path, "--now", NOW_ARG, "--generation-prompt",
                 "--layer", "template")
    assert_matches(result, oracle.render(name, messages, now=NOW, add_generation_prompt=True))
    # Without the flag the pipeline passes add_generation_prompt=False, the template layer nothing.
    result = run(capsysbinary, "render", name, path, "--now", NOW_ARG, "--layer", "template")
    assert_matches(result, oracle.render(name, messages, now=NOW))


def test_generation_prompt_overrides_the_file(capsysbinary, tmp_path):
    path = write_json(tmp_path, {"messages": MESSAGES, "add_generation_prompt": False})
    status, out, _ = run(capsysbinary, "render", "cogito", path, "--now", NOW_ARG, "--generation-prompt")
    assert out.decode() == expected_pipeline("cogito", MESSAGES, add_generation_prompt=True)


def test_var_sets_and_overrides_template_variables(capsysbinary, tmp_path):
    name = "cogito"
    path = write_json(tmp_path, {"messages": MESSAGES, "enable_thinking": False})
    messages = MESSAGES[:2]
    path = write_json(tmp_path, {"messages": messages, "enable_thinking": False})
    result = run(capsysbinary, "render", name, path, "--now", NOW_ARG, "--layer", "template",
                 "--var", "enable_thinking=true", "--var", 'bos_token="<s>"', "--var", "tools=[]")
    expected = oracle.render(name, messages, now=NOW, enable_thinking=True, bos_token="<s>", tools=[])
    assert expected.ok
    assert_matches(result, expected)


@pytest.mark.parametrize("var", ["enable_thinking", "x=yes", "=1", "now=1", "messages=[]"])
def test_bad_var_is_a_usage_error(capsysbinary, var):
    with pytest.raises(SystemExit) as exc:
        cli.main(["render", "cogito", str(WEATHER), "--var", var])
    assert exc.value.code == cli.EXIT_USAGE
    assert "--var" in capsysbinary.readouterr().err.decode()


def test_now_feeds_strftime_now(capsysbinary, tmp_path):
    """llama-3.2-vision's date_string defaults to strftime_now("%d %b %Y")."""
    path = write_json(tmp_path, [{"role": "user", "content": "What day is it?"}])
    for arg, when in [("2024-07-26", datetime(2024, 7, 26)),
                      ("2025-01-02T23:59:00Z", datetime(2025, 1, 2, 23, 59))]:
        status, out, _ = run(capsysbinary, "render", "llama-3.2-vision", path, "--now", arg)
        assert status == 0
        assert out.decode() == chatformats.apply_chat_template(
            "llama-3.2-vision", [{"role": "user", "content": "What day is it?"}], now=when)
        assert when.strftime("%d %b %Y") in out.decode()


def test_bad_now_is_a_usage_error(capsysbinary):
    with pytest.raises(SystemExit) as exc:
        cli.main(["render", "cogito", str(WEATHER), "--now", "yesterday"])
    assert exc.value.code == cli.EXIT_USAGE


@pytest.mark.parametrize("argv", [
    ["render", "cogito"],                                            # neither FILE nor --jsonl
    ["render", "cogito", str(WEATHER), "--jsonl", str(WEATHER)],     # both
    ["render", "cogito", str(WEATHER), "--layer", "jinja"],
    ["render", "cogito", "--jsonl", str(WEATHER), "--workers", "0"],
    ["frobnicate"],
    [],
])
def test_usage_errors(capsysbinary, argv):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == cli.EXIT_USAGE


def test_output_and_workers_need_jsonl(capsysbinary, tmp_path):
    status, out, err = run(capsysbinary, "render", "cogito", str(WEATHER), "-o", str(tmp_path / "x"))
    assert status == cli.EXIT_USAGE and "--jsonl" in err


# ------------------------------------------------------------------ render: failures


def test_missing_file(capsysbinary, tmp_path):
    path = str(tmp_path / "missing.json")
    status, out, err = run(capsysbinary, "render", "cogito", path)
    assert (status, out) == (1, b"")
    assert err == f"chatformats: {path}: No such file or directory\n"


def test_directory(capsysbinary, tmp_path):
    status, out, err = run(capsysbinary, "render", "cogito", str(tmp_path))
    assert status == 1 and err.startswith(f"chatformats: {tmp_path}: ") and err.count("\n") == 1


def test_broken_json_names_file_line_and_column(capsysbinary, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[\n  {"role": "user", "content": "hi"},\n  {"role": \n]', encoding="utf-8")
    status, out, err = run(capsysbinary, "render", "cogito", str(path))
    assert (status, out) == (1, b"")
    assert err == f"chatformats: {path}:4:1: invalid JSON: Expecting value\n"


def test_not_utf8(capsysbinary, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'[{"role": "user", "content": "caf\xe9"}]')
    status, out, err = run(capsysbinary, "render", "cogito", str(path))
    assert status == 1 and err == f"chatformats: {path}: not UTF-8 (byte 34)\n"


@pytest.mark.parametrize("data, message", [
    (3, "expected a list of messages or an object with \"messages\", got a number"),
    ("hi", "expected a list of messages or an object with \"messages\", got a string"),
    ({"prompt": "x"}, "expected a list of messages or an object with \"messages\" (an OpenAI "
                      "chat-completions request body); found keys: \"prompt\""),
    ({"messages": [], "now": 1}, "now: cannot be a template variable (chatformats' own parameter)"),
])
def test_wrong_shape(capsysbinary, tmp_path, data, message):
    path = write_json(tmp_path, data)
    status, out, err = run(capsysbinary, "render", "cogito", path)
    assert (status, out, err) == (1, b"", f"chatformats: {path}: {message}\n")


def test_template_error_is_one_line(capsysbinary, tmp_path):
    """Llama 3.2 Vision raises on an image together with a system message (the template's own
    raise_exception, message verbatim)."""
    messages = [{"role": "system", "content": "s"},
                {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "what?"}]}]
    expected = oracle.render("llama-3.2-vision", messages, now=NOW, bos_token="<|begin_of_text|>",
                             eos_token="<|eot_id|>", tools=None, documents=None,
                             add_generation_prompt=False)
    assert expected.kind == "raise_exception"
    path = write_json(tmp_path, messages)
    status, out, err = run(capsysbinary, "render", "llama-3.2-vision", path)
    assert (status, out) == (1, b"")
    assert err == f"chatformats: {path}: TemplateError: {expected.message}\n"


def test_message_path_in_render_errors(capsysbinary, tmp_path):
    """A value that is not JSON-like cannot come from JSON; a structural failure names the
    message path (here the template fails on arguments that are not a mapping)."""
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "",
                 "tool_calls": [{"function": {"name": "f", "arguments": "not a mapping"}}]}]
    path = write_json(tmp_path, messages)
    status, _, err = run(capsysbinary, "render", "minicpm-v-4.6-thinking", path, "--layer", "template")
    expected = oracle.render("minicpm-v-4.6-thinking", messages, now=NOW)
    if expected.ok:  # pragma: no cover - the template accepts it: the command must too
        assert status == 0
    else:
        assert status == 1 and err.count("\n") == 1 and err.startswith(f"chatformats: {path}: ")
        assert "messages[1]" in err


def test_empty_conversation_fails_at_the_pipeline_layer_only(capsysbinary, tmp_path):
    path = write_json(tmp_path, [])
    status, out, err = run(capsysbinary, "render", "cogito", path)
    assert status == 1 and "empty conversation" in err
    result = run(capsysbinary, "render", "qwen3-tool-agent", path, "--layer", "template")
    assert_matches(result, oracle.render("qwen3-tool-agent", []))


def test_batch_in_a_file_is_refused(capsysbinary, tmp_path):
    path = write_json(tmp_path, [MESSAGES, MESSAGES])
    status, out, err = run(capsysbinary, "render", "cogito", path)
    assert status == 1 and "--jsonl" in err


# ------------------------------------------------------------------ render --jsonl


def jsonl_lines(tmp_path: Path) -> tuple[str, list[Any]]:
    """A dataset mixing every input shape with bad lines; returns (path, the lines as written)."""
    lines: list[Any] = [
        MESSAGES,
        {"messages": MESSAGES[:2], "add_generation_prompt": True},
        '{"messages": [{"role": "user", "content": "unterminated}',
        {"model": "m", "messages": MESSAGES[:2], "chat_template_kwargs": {"enable_thinking": False}},
        "",
        {"no": "messages"},
        [],
        "[1, 2",
        [{"role": "user", "content": "last ✓"}],
    ]
    path = tmp_path / "in.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write((line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)) + "\n")
    return str(path), lines


def expected_record(name: str, line: Any, lineno: int) -> dict[str, Any]:
    if isinstance(line, str):
        return {"error": "", "line": lineno}
    try:
        conv = cli.parse_conversation(line)
        return {"prompt": cli.render_conversation(conv, cli.Options(name, now=NOW))}
    except (chatformats.ChatFormatError, cli.InputError):
        return {"error": "", "line": lineno}


@pytest.mark.parametrize("name", PORTED)
def test_jsonl_dataset_with_bad_lines(capsysbinary, tmp_path, name):
    path, lines = jsonl_lines(tmp_path)
    status, out, err = run(capsysbinary, "render", name, "--jsonl", path, "--now", NOW_ARG)
    records = [json.loads(line) for line in out.decode("utf-8").splitlines()]
    assert len(records) == len(lines)
    for lineno, (record, line) in enumerate(zip(records, lines), 1):
        expected = expected_record(name, line, lineno)
        if "prompt" in expected:
            assert record == expected
        else:
            assert set(record) == {"error", "line"} and record["line"] == lineno and record["error"]
    failed = [r["line"] for r in records if "error" in r]
    assert {3, 5, 6, 7, 8} <= set(failed)
    assert status == cli.EXIT_FAILED
    assert f"{len(lines) - len(failed)} of {len(lines)} lines rendered, {len(failed)} failed" in err
    assert f"{path}:3: invalid JSON at column" in err
    assert f"{path}:5: blank line" in err
    assert f"{path}:7: InvalidConversation: Cannot apply chat template to an empty conversation" in err


def test_jsonl_error_messages(capsysbinary, tmp_path):
    path, _ = jsonl_lines(tmp_path)
    status, out, _ = run(capsysbinary, "render", "cogito", "--jsonl", path)
    records = [json.loads(line) for line in out.decode().splitlines()]
    assert records[2] == {"error": "invalid JSON at column 43: Unterminated string starting at", "line": 3}
    assert records[4] == {"error": "blank line: expected one conversation as JSON", "line": 5}
    assert records[7] == {"error": "invalid JSON at column 6: Expecting ',' delimiter", "line": 8}


def test_jsonl_all_good_exits_zero_to_a_file(capsysbinary, tmp_path):
    src = EXAMPLES / "conversations.jsonl"
    out_path = tmp_path / "out.jsonl"
    status, out, err = run(capsysbinary, "render", "cogito", "--jsonl", str(src), "-o", str(out_path),
                           "--now", NOW_ARG)
    assert (status, out, err) == (0, b"", "")
    records = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    inputs = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    assert records == [{"prompt": cli.render_conversation(cli.parse_conversation(d),
                                                          cli.Options("cogito", now=NOW))}
                       for d in inputs]


@pytest.mark.parametrize("name", PORTED[:2])
def test_jsonl_workers_give_the_same_output(capsysbinary, tmp_path, name):
    path, lines = jsonl_lines(tmp_path)
    # Enough lines for several batches and chunks, in a known order.
    big = tmp_path / "big.jsonl"
    text = Path(path).read_text(encoding="utf-8")
    big.write_text(text * 300, encoding="utf-8")
    status1, out1, _ = run(capsysbinary, "render", name, "--jsonl", str(big), "--now", NOW_ARG)
    status2, out2, err2 = run(capsysbinary, "render", name, "--jsonl", str(big), "--now", NOW_ARG,
                              "--workers", "2")
    assert status1 == status2 == 1
    assert out1 == out2
    assert len(out2.splitlines()) == len(lines) * 300
    assert f"{big}:2703: " in err2 or "more" in err2


def test_jsonl_stdin_to_stdout(capsysbinary, monkeypatch):
    raw = (json.dumps(MESSAGES) + "\n" + "{oops\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    status, out, err = run(capsysbinary, "render", "qwen3-tool-agent", "--jsonl", "-", "--now", NOW_ARG)
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0] == {"prompt": expected_pipeline("qwen3-tool-agent", MESSAGES)}
    assert records[1]["line"] == 2 and status == 1 and "<stdin>:2: invalid JSON" in err


def test_jsonl_missing_input_and_same_output(capsysbinary, tmp_path):
    status, out, err = run(capsysbinary, "render", "cogito", "--jsonl", str(tmp_path / "none.jsonl"))
    assert status == 1 and err == f"chatformats: {tmp_path / 'none.jsonl'}: No such file or directory\n"
    path, _ = jsonl_lines(tmp_path)
    status, out, err = run(capsysbinary, "render", "cogito", "--jsonl", path, "-o", path)
    assert status == cli.EXIT_USAGE and "the output file is the input file" in err


def test_jsonl_lone_surrogate_is_kept_escaped(capsysbinary, tmp_path):
    path = tmp_path / "sur.jsonl"
    path.write_text('[{"role": "user", "content": "a\\ud800b"}]\n', encoding="utf-8")
    status, out, _ = run(capsysbinary, "render", "cogito", "--jsonl", str(path), "--now", NOW_ARG)
    assert status == 0
    assert json.loads(out)["prompt"] == expected_pipeline("cogito", [{"role": "user", "content": "a\ud800b"}])


#: Any line a JSONL dataset may hold: the three input shapes (with any values inside) or any JSON.
jsonl_data = st.one_of(
    s.conversations,
    st.fixed_dictionaries({"messages": s.conversations},
                          optional={"tools": s.tools_any, "add_generation_prompt": s.variable_values,
                                    "enable_thinking": s.variable_values, "now": s.scalars}),
    st.fixed_dictionaries({"model": st.just("m"), "messages": s.conversations},
                          optional={"tools": s.tools_any, "temperature": s.scalars,
                                    "chat_template_kwargs": st.one_of(
                                        st.dictionaries(st.sampled_from(
                                            ["enable_thinking", "add_generation_prompt", "tools"]),
                                            s.variable_values, max_size=2),
                                        s.json_value)}),
    s.json_value,
)


@given(data=jsonl_data, lineno=st.integers(1, 10**6))
@example(data={"messages": [{"role": "user", "content": "hi"}], "tokenize": True}, lineno=1)
@example(data={"messages": [{"role": "user", "content": "hi"}], "chat_template": "{{ 1 }}"}, lineno=1)
@example(data={"model": "m", "messages": [], "chat_template_kwargs": {"tokenize": 1}}, lineno=2)
def test_jsonl_line_equals_the_library(data, lineno):
    """The per-line worker behind --jsonl, on any JSON line: a prompt equal to
    apply_chat_template's for the line's shape, or an error record naming the line."""
    opts = cli.Options("qwen3-tool-agent", now=NOW)
    raw = json.dumps(data).encode("utf-8") + b"\n"
    got_line, out, error = cli.render_line(opts, (lineno, raw))
    record = json.loads(out)
    assert got_line == lineno
    expected: Any = None
    loaded = json.loads(raw)
    if isinstance(loaded, list):
        messages, variables = loaded, {}
    elif isinstance(loaded, dict) and "messages" in loaded and "now" not in loaded:
        messages = loaded["messages"]
        if "model" in loaded:
            kwargs = loaded.get("chat_template_kwargs")
            variables = {k: loaded[k] for k in ("tools",) if k in loaded}
            variables.update(kwargs if isinstance(kwargs, dict) else {})
            if kwargs is not None and not isinstance(kwargs, dict):
                messages = None  # refused: chat_template_kwargs must be an object
        else:
            variables = {k: v for k, v in loaded.items() if k != "messages"}
    else:
        messages = None
    if messages is not None:
        try:
            expected = chatformats.apply_chat_template("qwen3-tool-agent", messages, now=NOW, **variables)
        except (chatformats.ChatFormatError, TypeError):  # TypeError: a keyword the API refuses
            pass
    if isinstance(expected, str):
        assert record == {"prompt": expected} and error is None
    else:
        assert set(record) == {"error", "line"} and record["line"] == lineno and error
        assert "\n" not in error


def test_progress_plain_counter(monkeypatch, capsys):
    """Without tqdm, a plain counter on stderr, shown after the first second."""
    real = importlib.import_module

    def no_tqdm(name: str, *args: Any) -> Any:
        if name == "tqdm":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_tqdm)
    progress = progress_module._Progress(True, 10, "lines")
    assert progress.bar is None
    progress.update(1, 0)
    assert capsys.readouterr().err == ""  # not yet: the first second
    progress.started -= 2
    progress.update(1, 1)
    progress.close()
    assert capsys.readouterr().err == "\r2/10 lines, 1 failed\r2/10 lines, 1 failed\n"


def test_progress_tqdm(capsys):
    pytest.importorskip("tqdm")
    progress = progress_module._Progress(True, 3, "lines")
    assert progress.bar is not None
    progress.update(3, 1)
    progress.close()
    assert progress.count == 3 and progress.errors == 1


# ------------------------------------------------------------------ verify


@pytest.mark.parametrize("name", PORTED)
@pytest.mark.parametrize("layer", ["template", "pipeline"])
def test_verify_agrees(capsysbinary, tmp_path, name, layer):
    path = write_json(tmp_path, {"messages": MESSAGES, "tools": TOOLS})
    status, out, err = run(capsysbinary, "verify", name, path, "--layer", layer, "--generation-prompt")
    reference = (oracle.render(name, MESSAGES, tools=TOOLS, add_generation_prompt=True)
                 if layer == "template" else
                 transformers_oracle.apply(name, MESSAGES, tools=TOOLS, add_generation_prompt=True))
    if not reference.ok:  # both fail (llama-3.2-vision on a None tool_calls): not an agreement
        assert status == cli.EXIT_FAILED, out + err.encode()
        assert out.decode().startswith(f"{path}: {name} ({layer} layer): the port and the "
                                       "reference both fail on this input\n  reference fails: ")
        return
    assert status == 0, out + err.encode()
    assert out.decode() == f"{path}: {name} ({layer} layer): the port and the reference agree\n"


def test_verify_agrees_on_the_examples(capsysbinary):
    for example in ("weather_agent.json", "openai_request.json", "messages.json"):
        for name in PORTED:
            status, out, err = run(capsysbinary, "verify", name, str(EXAMPLES / example))
            if not example_reference(name, example).ok:  # both fail: parity, but no success
                assert status == cli.EXIT_FAILED, (example, name, out, err)
                assert b"the port and the reference both fail on this input" in out
                continue
            assert status == 0, (example, name, out, err)


def _break_port(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make the port of ``name`` drop one character (an auditor's nightmare)."""
    _replace_port(monkeypatch, name, lambda real: lambda m, v, now: real(m, v, now).replace("\n\n", "\n", 1))


def _replace_port(monkeypatch: pytest.MonkeyPatch, name: str, make: Any) -> None:
    """Replace the port of ``name`` by ``make(real_port)`` wherever it is looked up (the port
    module, and the registry's port table)."""
    module = importlib.import_module(f"chatformats.ports.{chatformats.get_format(name).module}")
    fake = make(module.render)
    monkeypatch.setattr(module, "render", fake)
    registry = importlib.import_module("chatformats._registry")
    found = registry.port(name)  # the port table, which both layers read
    monkeypatch.setitem(registry._PORTS, name, (fake, *found[1:]))


@pytest.mark.parametrize("layer", ["template", "pipeline"])
def test_verify_reports_a_difference_with_a_diff(capsysbinary, monkeypatch, tmp_path, layer):
    name = "qwen3-tool-agent"
    path = write_json(tmp_path, {"messages": MESSAGES, "tools": TOOLS})
    _break_port(monkeypatch, name)
    status, out, _ = run(capsysbinary, "verify", name, path, "--layer", layer)
    text = out.decode()
    assert status == cli.EXIT_DIFFERENT
    assert "the port differs from the reference" in text
    assert "first difference at character" in text
    assert "--- reference\n+++ port\n" in text


def test_verify_reports_a_failure_mismatch(capsysbinary, monkeypatch, tmp_path):
    name = "cogito"

    def failing(m: Any, v: Any, now: Any) -> str:
        raise chatformats.TemplateError("made up")

    _replace_port(monkeypatch, name, lambda real: failing)
    status, out, _ = run(capsysbinary, "verify", name, write_json(tmp_path, MESSAGES), "--layer", "template")
    assert status == cli.EXIT_DIFFERENT
    assert "port      fails: TemplateError: made up" in out.decode()


def test_verify_both_failing_the_same_way_is_reported(capsysbinary, tmp_path):
    """Port and reference failing alike is parity, but no success: status 1, both failures."""
    messages = [{"role": "system", "content": "s"},
                {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "what?"}]}]
    status, out, _ = run(capsysbinary, "verify", "llama-3.2-vision", write_json(tmp_path, messages))
    text = out.decode()
    assert status == cli.EXIT_FAILED
    assert "the port and the reference both fail on this input" in text
    assert "port      fails: TemplateError: Prompting with images is incompatible" in text
    assert "reference fails: TemplateError: Prompting with images is incompatible" in text
    assert "agree" not in text


@pytest.mark.parametrize("damage", ["missing", "modified"])
def test_verify_without_the_pinned_reference_template(capsysbinary, monkeypatch, tmp_path, damage):
    """A missing or edited reference template: one line, status 4, no traceback."""
    fmt = chatformats.get_format("cogito")
    from chatformats import _template_sources

    if damage == "modified":
        monkeypatch.setitem(_template_sources.SOURCES, fmt.template_file, fmt.template_source() + " ")
    else:
        monkeypatch.delitem(_template_sources.SOURCES, fmt.template_file)
    status, out, err = run(capsysbinary, "verify", "cogito", write_json(tmp_path, MESSAGES))
    assert status == cli.EXIT_NO_REFERENCE and out == b""
    assert err.count("\n") == 1 and err.startswith("chatformats: verify cannot run: the reference")
    assert fmt.template_sha256 in err


def test_verify_jsonl(capsysbinary, monkeypatch, tmp_path):
    path, lines = jsonl_lines(tmp_path)
    status, out, err = run(capsysbinary, "verify", "cogito", "--jsonl", path, "--layer", "template")
    assert status == cli.EXIT_FAILED  # unreadable lines, no difference
    assert ("5 conversations checked, 4 agree, 0 differ, 1 fail in both (lines 7); "
            "4 lines could not be read") in out.decode()
    assert f"{path}:3: invalid JSON" in err
    _break_port(monkeypatch, "cogito")
    status, out, err = run(capsysbinary, "verify", "cogito", "--jsonl", path, "--layer", "template")
    assert status == cli.EXIT_DIFFERENT
    assert f"{path}:1: the port differs from the reference" in out.decode()


@pytest.mark.parametrize("missing, layer", [("jinja2", "template"), ("jinja2", "pipeline"),
                                            ("transformers.utils.chat_template_utils", "pipeline"),
                                            ("tokenizers", "pipeline")])
def test_verify_without_the_reference(capsysbinary, monkeypatch, missing, layer):
    # A module that is None in sys.modules cannot be imported: as if it were not installed.
    monkeypatch.setitem(sys.modules, missing, None)
    monkeypatch.delitem(sys.modules, "chatformats.verify", raising=False)
    status, out, err = run(capsysbinary, "verify", "cogito", str(WEATHER), "--layer", layer)
    assert status == cli.EXIT_NO_REFERENCE and out == b""
    assert "pip install 'chatformats[test]'" in err and err.count("\n") == 1
    expected = "chatformats[verify]" if missing == "jinja2" else "needs transformers"
    assert expected in err


# ------------------------------------------------------------------ pickling (for --workers)


def test_worker_function_and_options_pickle():
    opts = cli.Options("cogito", layer="template", now=NOW, variables=(("enable_thinking", True),))
    work = pickle.loads(pickle.dumps(partial(cli.render_line, opts)))
    assert work((1, json.dumps(MESSAGES).encode()))[1] == cli.render_line(opts, (1, json.dumps(MESSAGES).encode()))[1]
    assert pickle.loads(pickle.dumps(chatformats.get_format("cogito"))) is chatformats.get_format("cogito")


# ------------------------------------------------------------------ the real command


def _console_script() -> str:
    script = Path(sys.executable).parent / "chatformats"
    found = str(script) if script.exists() else shutil.which("chatformats")
    if found is None:  # pragma: no cover
        pytest.skip("the chatformats console script is not installed")
    return found


@pytest.mark.parametrize("command", ["script", "module"])
def test_real_command_renders_the_readme_example(command):
    argv = [_console_script()] if command == "script" else [sys.executable, "-m", "chatformats"]
    result = subprocess.run(argv + ["render", "qwen3-tool-agent", "examples/weather_agent.json"],
                            cwd=ROOT, capture_output=True)
    assert result.returncode == 0, result.stderr
    data = json.loads(WEATHER.read_text(encoding="utf-8"))
    messages = data.pop("messages")
    assert result.stdout == chatformats.apply_chat_template("qwen3-tool-agent", messages, **data).encode()
    assert result.stderr == b""


def test_real_command_exit_statuses(tmp_path):
    script = _console_script()
    missing = subprocess.run([script, "render", "cogito", str(tmp_path / "x.json")], capture_output=True)
    assert missing.returncode == 1 and missing.stderr.count(b"\n") == 1
    usage = subprocess.run([sys.executable, "-m", "chatformats", "render"], capture_output=True)
    assert usage.returncode == 2 and usage.stderr.count(b"\n") == 1  # one line, as argparse's is not
    assert usage.stderr.startswith(b"chatformats render: error: ")


def test_real_command_jsonl_with_workers(tmp_path):
    """--workers through the real entry point (worker processes import the package anew)."""
    path, lines = jsonl_lines(tmp_path)
    out_path = tmp_path / "out.jsonl"
    result = subprocess.run([sys.executable, "-m", "chatformats", "render", "cogito", "--jsonl", path,
                             "-o", str(out_path), "--workers", "2", "--now", NOW_ARG], capture_output=True)
    assert result.returncode == 1
    records = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(lines)
    assert records[0] == {"prompt": expected_pipeline("cogito", MESSAGES)}


@pytest.mark.parametrize("layer", ["template", "pipeline"])
def test_verify_uses_one_clock_for_both_sides(capsysbinary, tmp_path, layer):
    """Llama 3.2 Vision prints strftime_now's date: with --now far from today both sides must
    still agree (transformers' own clock is pinned for the pipeline layer)."""
    path = write_json(tmp_path, [{"role": "user", "content": "What day is it?"}])
    status, out, err = run(capsysbinary, "verify", "llama-3.2-vision", path, "--layer", layer,
                           "--now", "1999-12-31")
    assert status == 0, out + err.encode()


def test_continue_final_message_from_the_file(capsysbinary, tmp_path):
    messages = [{"role": "user", "content": "Say something."},
                {"role": "assistant", "content": "The answer is"}]
    path = write_json(tmp_path, {"messages": messages, "continue_final_message": True})
    for name in PORTED:
        status, out, err = run(capsysbinary, "render", name, path, "--now", NOW_ARG)
        expected = expected_pipeline(name, messages, continue_final_message=True)
        assert expected.endswith("The answer is")
        assert (status, out.decode(), err) == (0, expected, "")


def test_the_command_never_imports_jinja2_or_transformers_to_render():
    code = ("import sys, chatformats.cli as c; "
            "assert c.main(['render', 'cogito', 'examples/messages.json']) == 0; "
            "assert not [m for m in sys.modules if m.split('.')[0] in ('jinja2', 'transformers')]")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True)
    assert result.returncode == 0, result.stderr


def test_variables_the_api_refuses_are_input_errors(capsysbinary, tmp_path):
    """transformers' own parameters that chatformats does not take (``tokenize``,
    ``chat_template``) are refused by the Python API with a TypeError: one line, status 1."""
    path = write_json(tmp_path, {"messages": MESSAGES, "tokenize": True})
    status, out, err = run(capsysbinary, "render", "cogito", path)
    assert (status, out) == (1, b"") and err.startswith(f"chatformats: {path}: ") and "tokenize" in err
    assert err.count("\n") == 1


def test_a_bug_in_one_line_does_not_cost_the_others(capsysbinary, monkeypatch, tmp_path):
    def buggy(m: Any, v: Any, now: Any) -> str:
        if m and m[0].get("content") == "boom":
            raise KeyError("boom")
        return real(m, v, now)

    real = importlib.import_module("chatformats.ports.cogito").render
    monkeypatch.setattr(render_module, "render_conversation",
                        lambda conv, opts: buggy(conv.messages, {}, NOW))
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps([{"role": "user", "content": c}]) for c in ("a", "boom", "b")) + "\n",
                    encoding="utf-8")
    status, out, err = run(capsysbinary, "render", "cogito", "--jsonl", str(path))
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 1 and len(records) == 3
    assert "prompt" in records[0] and "prompt" in records[2]
    assert records[1] == {"error": "KeyError: 'boom' (this is a chatformats bug)", "line": 2}


def test_example_dataset_with_errors(capsysbinary, tmp_path):
    """The example run of docs/cli.md: every line accounted for, the bad ones named."""
    src = EXAMPLES / "with_errors.jsonl"
    status, out, err = run(capsysbinary, "render", "cogito", "--jsonl", str(src),
                           "-o", str(tmp_path / "prompts.jsonl"))
    records = [json.loads(line) for line in (tmp_path / "prompts.jsonl").read_text(encoding="utf-8").splitlines()]
    assert status == 1 and len(records) == len(src.read_text(encoding="utf-8").splitlines())
    assert [r.get("line") for r in records] == [None, 2, 3, 4, None]
    assert f"2 of 5 lines rendered, 3 failed:\n  {src}:2: invalid JSON" in err
