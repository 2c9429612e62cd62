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
    status, out, err = run(capsysbinary, "parse", NAME, str(bad), "--strict", "--no-prefix")
    assert status == 1 and out == b""
    with pytest.raises(chatformats.ParseError) as exc:
        parse_response(NAME, bad.read_text(), prefix="", strict=True)
    assert err == "chatformats: " + " ".join(str(exc.value).split("\n")) + "\n"
    assert err.count("\n") == 1  # one line
    # The default reading keeps the bad call as content and says so on stderr.
    status, out, err = run(capsysbinary, "parse", NAME, str(bad), "--no-prefix")
    assert status == 0 and json.loads(out) == parse_response(NAME, bad.read_text(), prefix="")
    assert json.loads(out)["content"] == "<tool_call>{oops</tool_call>"
    assert err.startswith("chatformats: note: recovered bad-json at offset 11: ")
    status, _, err = run(capsysbinary, "parse", "no-such-format", str(bad))
    assert status == 2 and "unknown format" in err
    status, _, err = run(capsysbinary, "parse", NAME, str(tmp_path / "missing.txt"), "--no-prefix")
    assert status == 1 and "missing.txt" in err


def test_parse_never_prints_a_traceback(capsysbinary: Any, tmp_path: Any, monkeypatch: Any) -> None:
    """Bad input of every kind exits with a one-line message (no traceback)."""
    c = tmp_path / "c.txt"
    # A lone surrogate in the completion's JSON: written as its escape (strict JSON, UTF-8).
    c.write_text('<tool_call>\n{"name": "f", "arguments": {"a": "\\ud800"}}\n</tool_call>')
    status, out, err = run(capsysbinary, "parse", NAME, str(c), "--no-prefix")
    assert status == 0 and json.loads(out)["tool_calls"][0]["function"]["arguments"] == {"a": "\ud800"}
    assert b"\\ud800" in out
    # The raw bytes of a surrogate are not UTF-8.
    c.write_bytes(b"\xed\xa0\x80")
    status, out, err = run(capsysbinary, "parse", NAME, str(c), "--no-prefix")
    assert status == 1 and err.count("\n") == 1 and "not UTF-8" in err
    # NaN in the arguments: strict JSON cannot say it.
    c.write_text('<tool_call>\n{"name": "f", "arguments": {"a": NaN}}\n</tool_call>')
    status, out, err = run(capsysbinary, "parse", NAME, str(c), "--no-prefix")
    assert status == 1 and out == b"" and "NaN" in err and err.count("\n") == 1
    c.write_text("hi")
    tools = tmp_path / "t.json"
    for text, words in (("[" * 100_000 + "]" * 100_000, "nested too deeply"),
                        ("[" + "9" * 5000 + "]", "invalid JSON")):
        tools.write_text(text)
        status, out, err = run(capsysbinary, "parse", NAME, str(c), "--tools", str(tools), "--no-prefix")
        assert status == 1 and words in err and err.count("\n") == 1 and "Traceback" not in err
    # A format without a parser.
    from chatformats import _registry

    fmt = _registry._FORMATS["qwen3-instruct-2507"]
    monkeypatch.setitem(_registry._FORMATS, fmt.name, fmt._replace(grammar=""))
    status, out, err = run(capsysbinary, "parse", "qwen3-instruct-2507", str(c), "--no-prefix")
    assert status == 2 and err == "chatformats: format 'qwen3-instruct-2507' has no parser\n"


def test_parse_error_is_bounded(capsysbinary: Any, tmp_path: Any) -> None:
    """A 10 MB bad region gives a short one-line message, streamed or not."""
    c = tmp_path / "c.txt"
    c.write_text("<tool_call>{" + "x" * 10_000_000 + "</tool_call>")
    for extra in ((), ("--stream",)):
        status, out, err = run(capsysbinary, "parse", NAME, str(c), "--strict", *extra, "--no-prefix")
        assert status == 1 and err.count("\n") == 1 and len(err) < 1000


def _call_turn(name: str) -> tuple[str, str]:
    """A format's prompt and a rendered turn of one call whose argument is ``QQQ``."""
    from .test_parse import _llama_turn, _render_turn, family

    m = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "search", "arguments": {"query": "QQQ"}}}]}
    prompt, completion = _render_turn(name, m) if family(name) != "llama3_2_vision" else _llama_turn(m, name)
    assert "QQQ" in completion
    return prompt, completion


@pytest.mark.parametrize("name", chatformats.formats())
def test_parse_output_is_strict_json_for_every_format(capsysbinary: Any, tmp_path: Any, name: str) -> None:
    """Every format, one-shot and streamed, both readings: a lone surrogate from a ``\\ud800``
    escape is written as its escape; NaN, the infinities and ``1e999`` exit with one line, status
    1 (the streamed output printed before it is strict JSON too); never a traceback."""
    prompt, completion = _call_turn(name)
    p = tmp_path / "p.txt"
    p.write_bytes(prompt.encode())
    c = tmp_path / "c.txt"
    for value in ('"\\ud800"', '"\\udfffx\\ud800"', "NaN", "Infinity", "-Infinity", "1e999"):
        text = completion.replace('"QQQ"', value).replace('\\"QQQ\\"', value.replace('"', '\\"'))
        c.write_bytes(text.replace("QQQ", value).encode())
        for extra in ((), ("--stream",), ("--strict",), ("--stream", "--strict")):
            status, out, err = run(capsysbinary, "parse", name, str(c), "--prefix", str(p), *extra)
            assert "Traceback" not in err and status in (0, 1), (value, extra, err)
            lines = out.decode("utf-8").splitlines()
            for line in lines:  # strict JSON: no NaN, Infinity
                json.loads(line, parse_constant=lambda word: pytest.fail(f"{word} in {line[:200]}"))
            if status == 1:
                assert err.count("\n") == 1 and err.startswith("chatformats: "), err
            else:
                assert "--stream" in extra or len(lines) == 1
                assert all(line.startswith("chatformats: note: ") for line in err.splitlines())


def test_parse_infinity_streamed(capsysbinary: Any, tmp_path: Any) -> None:
    """A message holding an infinity exits with status 1 streamed as one-shot."""
    c = tmp_path / "c.txt"
    for value in ("Infinity", "-Infinity", "1e999", "NaN"):
        c.write_text('<tool_call>\n{"name": "f", "arguments": {"a": ' + value + '}}\n</tool_call>')
        for extra in ((), ("--stream",)):
            status, out, err = run(capsysbinary, "parse", NAME, str(c), "--no-prefix", *extra)
            assert status == 1 and err.count("\n") == 1 and "NaN or an infinity" in err, (value, extra)
            for line in out.decode().splitlines():  # what streamed before it: strict JSON
                json.loads(line, parse_constant=lambda word: pytest.fail(word))
            assert (out == b"") == (not extra)


def test_parse_bad_tools_name_the_file(capsysbinary: Any, tmp_path: Any) -> None:
    """Each bad ``--tools`` file: one line naming the file, status 1, streamed or not."""
    c = tmp_path / "c.txt"
    c.write_text("hi")
    tools = tmp_path / "tools.json"
    for text in ("[" * 100_000 + "]" * 100_000, "[" + "9" * 5000 + "]", '{"a": 1}', "[",
                 '[{"type": "function", "function": {"name": "f", "parameters": '
                 + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}}]"):
        tools.write_text(text)
        for extra in ((), ("--stream",)):
            status, out, err = run(capsysbinary, "parse", NAME, str(c), "--tools", str(tools),
                                   "--no-prefix", *extra)
            assert status == 1 and out == b"" and err.count("\n") == 1
            assert err.startswith(f"chatformats: {tools}"), err[:200]
