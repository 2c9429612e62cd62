"""The package is typed: ``py.typed`` ships, ``mypy --strict`` passes over all of
``src/chatformats``, and the TypedDicts of ``chatformats.types`` catch wrong shapes in user code
that imports the installed package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "chatformats"

pytest.importorskip("mypy")


def mypy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", *args],
                          cwd=cwd, capture_output=True, text=True)


def test_py_typed_ships():
    assert (SRC / "py.typed").is_file()


def test_package_is_mypy_strict_clean():
    result = mypy("src/chatformats")
    assert result.returncode == 0, result.stdout + result.stderr


USER_CODE = '''
from __future__ import annotations

import chatformats
from chatformats.types import Conversation, Message, Tool, ToolCall

call: ToolCall = {"id": "c1", "type": "function",
                  "function": {"name": "get_weather", "arguments": {"city": "Seoul"}}}
messages: list[Message] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "Hi"},
                                 {"type": "image_url", "image_url": {"url": "http://x/y.png"}}]},
    {"role": "assistant", "content": None, "tool_calls": [call], "reasoning_content": "..."},
    {"role": "tool", "tool_call_id": "c1", "content": "21"},
]
tools: list[Tool] = [{"type": "function",
                      "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
conversation: Conversation = {"messages": messages, "tools": tools, "add_generation_prompt": True}

text: str = chatformats.render("qwen3-tool-agent", messages, tools=tools)
prompt = chatformats.apply_chat_template("qwen3-tool-agent", messages, tools=tools)
if isinstance(prompt, str):
    text = prompt
fmt: chatformats.ChatFormat = chatformats.get_format("cogito")
names: list[str] = chatformats.formats()
'''


def test_user_code_type_checks(tmp_path):
    (tmp_path / "user_code.py").write_text(USER_CODE, encoding="utf-8")
    result = mypy("user_code.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_typed_dicts_catch_wrong_shapes(tmp_path):
    bad = USER_CODE + '''
wrong_role: Message = {"role": 1}
wrong_call: ToolCall = {"function": {"name": ["f"]}}
wrong_tool: Tool = {"type": "function", "function": {"parameters": "none"}}
'''
    (tmp_path / "user_code.py").write_text(bad, encoding="utf-8")
    result = mypy("user_code.py", cwd=tmp_path)
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    lines = sorted({int(line.split(":")[1]) for line in errors})
    last = len(bad.splitlines())
    assert lines == [last - 2, last - 1, last], result.stdout
