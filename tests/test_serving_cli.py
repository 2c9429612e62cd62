"""The serving pieces at the command line (``chatformats request``, unknown-variable warnings,
formats by model id) and the rough edges fixed with them: clear pipeline errors for ill-shaped
``messages``/``tools``, the path of a bad ``function.arguments``, and the typing of
``apply_chat_template`` (a ``str`` for one conversation, a ``list[str]`` for a batch)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import chatformats
from chatformats import cli
from chatformats.openai import render_request
from chatformats.pipeline import PipelineTypeError

from . import transformers_oracle as T
from .oracle import FIXED_NOW

ROOT = Path(__file__).resolve().parent.parent
NOW_ARG = FIXED_NOW.isoformat()
FIXTURES = ROOT / "tests" / "fixtures" / "openai"


def run(capsysbinary: Any, *argv: str) -> tuple[int, bytes, str]:
    status = cli.main(list(argv))
    out, err = capsysbinary.readouterr()
    return status, out, err.decode("utf-8")


def write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------ chatformats request


@pytest.mark.parametrize("fixture", ["tool_call_arguments_json_string", "image_url_part_openai_format",
                                     "image_url_part_string_format", "list_content_string_format"])
def test_request_prints_the_servers_prompt(capsysbinary, tmp_path, fixture):
    case = json.loads((FIXTURES / f"{fixture}.json").read_text(encoding="utf-8"))
    path = write(tmp_path, case["request"])
    status, out, err = run(capsysbinary, "request", case["format"], path, "--now", NOW_ARG)
    assert (status, err) == (0, "")
    expected = T.apply(case["format"], case["messages"], **case["kwargs"])
    assert out.decode("utf-8") == expected.text
    assert out.decode("utf-8") == render_request(case["format"], case["request"], now=FIXED_NOW)
    status, out, err = run(capsysbinary, "request", case["format"], path, "--preprocess")
    assert json.loads(out) == {"messages": case["messages"], "kwargs": case["kwargs"]}


def test_request_server_options_and_failures(capsysbinary, tmp_path):
    body = {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "a"},
                                                                    {"type": "text", "text": "b"}]}]}
    path = write(tmp_path, body)
    status, out, _ = run(capsysbinary, "request", "cogito", path, "--content-format", "string",
                         "--default-chat-template-kwargs", '{"enable_thinking": true}', "--now", NOW_ARG)
    assert status == 0
    assert out.decode() == chatformats.apply_chat_template(
        "cogito", [{"role": "user", "content": "a\nb"}], add_generation_prompt=True, enable_thinking=True,
        now=FIXED_NOW)
    bad = write(tmp_path, {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]})
    status, out, err = run(capsysbinary, "request", "cogito", bad)
    assert status == cli.EXIT_FAILED and out == b"" and err.count("\n") == 1
    assert "InvalidRequest: messages[0].content[0]: cogito takes no image input" in err
    with pytest.raises(SystemExit) as exc:
        cli.main(["request", "cogito", path, "--default-chat-template-kwargs", "[1]"])
    assert exc.value.code == cli.EXIT_USAGE
    status, _, err = run(capsysbinary, "request", "Cogit", path)
    assert status == cli.EXIT_USAGE and "did you mean 'cogito'" in err


# ------------------------------------------------------------------ typos and model ids


def test_unknown_variables_warn_in_one_line(capsysbinary, tmp_path):
    messages = tmp_path / "m.json"
    messages.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    status, out, err = run(capsysbinary, "render", "minicpm-v-4.6-thinking", str(messages),
                           "--var", "enable_thinkng=true", "--now", NOW_ARG)
    assert status == 0
    assert err == ("chatformats: warning: minicpm-v-4.6-thinking does not read enable_thinkng (a typo?); "
                   "the template reads add_generation_prompt, enable_thinking, tools\n")
    assert out.decode() == chatformats.apply_chat_template("minicpm-v-4.6-thinking",
                                                           [{"role": "user", "content": "hi"}], now=FIXED_NOW)
    status, out, err = run(capsysbinary, "render", "minicpm-v-4.6-thinking", str(messages),
                           "--var", "enable_thinking=false")
    assert (status, err) == (0, "")
    # an object with messages and variables: its variables are the user's own, checked
    obj = write(tmp_path, {"messages": [{"role": "user", "content": "hi"}], "add_generation_promt": True})
    status, out, err = run(capsysbinary, "render", "cogito", obj)
    assert status == 0 and err.startswith("chatformats: warning: cogito does not read add_generation_promt")
    # a request body's chat_template_kwargs are meant for whichever model serves it: no warning
    body = write(tmp_path, {"model": "m", "messages": [{"role": "user", "content": "hi"}],
                            "chat_template_kwargs": {"enable_thinking": True}})
    status, out, err = run(capsysbinary, "render", "qwen3-tool-agent", body)
    assert (status, err) == (0, "")


def test_formats_by_model_id_in_any_case(capsysbinary, tmp_path):
    messages = tmp_path / "m.json"
    messages.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    status, out, _ = run(capsysbinary, "render", "QWEN/QWEN3-4B-INSTRUCT-2507", str(messages),
                         "--now", NOW_ARG)
    assert status == 0 and out.decode() == chatformats.apply_chat_template(
        "qwen3-instruct-2507", [{"role": "user", "content": "hi"}], now=FIXED_NOW)
    status, out, err = run(capsysbinary, "show", "qwen3-tool-agen")
    assert status == cli.EXIT_USAGE and "did you mean 'qwen3-tool-agent'" in err and err.count("\n") == 1


# ------------------------------------------------------------------ rough edges


@pytest.mark.parametrize("messages, tools, message", [
    ("hello", None, "messages must be a list of messages (dicts), not a string"),
    (None, None, "messages must be a list of messages (dicts), not None"),
    (5, None, "messages must be a list of messages (dicts), not int"),
    ({"role": "user", "content": "hi"}, None, "messages must be a list of messages, not one message"),
    ([{"role": "user", "content": "hi"}], 5, "tools must be a list of tool schemas (dicts) or functions, not int"),
])
def test_pipeline_shape_errors_are_worded_for_the_caller(messages, tools, message):
    with pytest.raises(PipelineTypeError) as info:
        chatformats.apply_chat_template("cogito", messages, tools=tools)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, TypeError) and isinstance(info.value, chatformats.InvalidConversation)
    # transformers fails on the same input, with the message kept for the parity tests
    expected = T.apply("cogito", messages, tools=tools)
    assert not expected.ok and info.value.transformers_message == expected.message  # type: ignore[attr-defined]


def test_documents_shape_error():
    with pytest.raises(PipelineTypeError, match="documents must be a list of dicts, not int"):
        chatformats.apply_chat_template("cogito", [{"role": "user", "content": "hi"}], documents=3)


@pytest.mark.parametrize("arguments", ['{"q": 1}', 5, None, [1]])
def test_bad_arguments_are_reported_at_their_input_path(arguments):
    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"type": "function", "function": {"name": "f", "arguments": arguments}}]}]
    with pytest.raises(chatformats.TemplateTypeError) as info:
        chatformats.render("minicpm-v-4.6-thinking", messages)
    assert str(info.value).startswith("messages[1].tool_calls[0].function.arguments is ")
    flat = [messages[0], {"role": "assistant", "content": "", "tool_calls": [{"name": "f", "arguments": arguments}]}]
    with pytest.raises(chatformats.TemplateTypeError, match=r"^messages\[1\]\.tool_calls\[0\]\.arguments is "):
        chatformats.render("minicpm-v-4.6-thinking", flat)


USER_CODE = '''
from __future__ import annotations

import chatformats
from chatformats.openai import render_request
from chatformats.transformers import accelerate

messages = [{"role": "user", "content": "Hi"}]
one: str = chatformats.apply_chat_template("cogito", messages)
many: list[str] = chatformats.apply_chat_template("cogito", [messages, messages])
strict: str = chatformats.render("cogito", messages, strict=True)
fmt: chatformats.ChatFormat = chatformats.from_pretrained("folder")
bound: str = chatformats.apply_chat_template(fmt, messages)
found: chatformats.ChatFormat = chatformats.detect("{{ messages }}")
served: str = render_request("cogito", {"messages": messages})
'''


def test_apply_chat_template_types_single_and_batch(tmp_path):
    pytest.importorskip("mypy")
    (tmp_path / "user_code.py").write_text(USER_CODE, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "user_code.py"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    wrong = USER_CODE + 'oops: str = chatformats.apply_chat_template("cogito", [messages])\n'
    (tmp_path / "user_code.py").write_text(wrong, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "user_code.py"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 1 and f"user_code.py:{len(wrong.splitlines())}: error" in result.stdout
