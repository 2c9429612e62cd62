"""``chatformats parse``: the message, the streamed events, the exit statuses."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

import chatformats
from chatformats import ResponseParser, cli, parse_response

NAME = "qwen3-tool-agent"
P = [{"role": "user", "content": "hi"}]
M = {"role": "assistant", "content": "Hello", "reasoning_content": "think",
     "tool_calls": [{"type": "function", "function": {"name": "search", "arguments": {"limit": "3"}}}]}
TOOLS = [{"type": "function", "function": {"name": "search", "parameters": {
    "type": "object", "properties": {"limit": {"type": "integer"}}}}}]


def _files(tmp_path: Any) -> tuple[str, str, str, str]:
    prompt = chatformats.apply_chat_template(NAME, P, add_generation_prompt=True)
    full = chatformats.apply_chat_template(NAME, P + [M])
    completion = full[len(prompt):]
    (tmp_path / "c.txt").write_bytes(completion.encode())
    (tmp_path / "p.txt").write_bytes(prompt.encode())
    (tmp_path / "t.json").write_text(json.dumps(TOOLS))
    return str(tmp_path / "c.txt"), str(tmp_path / "p.txt"), prompt, completion


def run(capsysbinary: Any, *argv: str) -> tuple[int, bytes, str]:
    status = cli.main(list(argv))
    out, err = capsysbinary.readouterr()
    return status, out, err.decode()


def test_parse_prints_the_message(capsysbinary: Any, tmp_path: Any) -> None:
    c, p, prompt, completion = _files(tmp_path)
    status, out, _ = run(capsysbinary, "parse", NAME, c, "--prefix", p, "--tools", str(tmp_path / "t.json"))
    assert status == 0
    assert json.loads(out) == parse_response(NAME, completion, prefix=prompt, tools=TOOLS)


def test_parse_stream_from_stdin(capsysbinary: Any, tmp_path: Any, monkeypatch: Any) -> None:
    c, p, prompt, completion = _files(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(completion.encode())))
    status, out, _ = run(capsysbinary, "parse", NAME, "-", "--prefix", p, "--stream")
    assert status == 0
    lines = [json.loads(line) for line in out.decode().splitlines()]
    parser = ResponseParser(NAME, prefix=prompt)
    events = parser.initial_events + parser.feed(completion)
    message, final = parser.finalize()
    assert lines == events + final + [{"type": "message", "message": message}]


def test_parse_error_and_usage(capsysbinary: Any, tmp_path: Any) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("<tool_call>{oops</tool_call>")
    status, out, err = run(capsysbinary, "parse", NAME, str(bad))
    assert status == 1 and out == b""
    with pytest.raises(chatformats.ParseError) as exc:
        parse_response(NAME, bad.read_text(), prefix="")
    assert err == f"chatformats: {exc.value}\n"
    status, _, err = run(capsysbinary, "parse", "no-such-format", str(bad))
    assert status == 2 and "unknown format" in err
    status, _, err = run(capsysbinary, "parse", NAME, str(tmp_path / "missing.txt"))
    assert status == 1 and "missing.txt" in err
