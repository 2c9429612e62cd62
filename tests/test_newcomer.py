"""A newcomer's path: what a first user meets is said where they meet it.

- ``from_pretrained`` on a Hub id points to ``get_format``; a template no port reproduces names
  the ported template it is a copy of and how the copy differs (CRLF, a final newline, a
  byte-order mark), else the nearest one and where it differs, for every format;
- ``now=`` takes what the CLI's ``--now`` takes, at both layers, or says what it takes;
- ``chatformats parse`` requires the prompt as ``parse_response`` does (``--prefix FILE`` or
  ``--no-prefix``), and gives what Python gives;
- ``chatformats --help`` lists every exit status, audit's 3 included; ``formats`` and ``show``
  say what the ``llama-3.2-vision`` alias means.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import chatformats
from chatformats import InvalidClock, UnknownFormatError

FORMATS = chatformats.formats()
ONE = [{"role": "user", "content": "Hi!"}]


# ------------------------------------------------------------------ from_pretrained and detect


def refused(text: str) -> str:
    with pytest.raises(UnknownFormatError) as info:
        chatformats.detect(text)
    return str(info.value)


@pytest.mark.parametrize("name", FORMATS)
def test_a_copy_saved_differently_names_its_format_and_why(name: str) -> None:
    source = chatformats.get_format(name).template_source()
    if "\r\n" in source:  # Kimi K2's template is CRLF
        assert f"it is {name}'s template saved differently: its line endings are LF" in refused(
            source.replace("\r\n", "\n"))
    elif "\n" in source:
        assert f"it is {name}'s template saved differently: its line endings are CRLF" in refused(
            source.replace("\n", "\r\n"))
    if source.endswith("\n"):
        assert "lacks the pinned text's final newline" in refused(source[:-1])
    else:
        assert f"it is {name}'s template saved differently: it ends with a newline" in refused(
            source + "\n")
    assert "byte-order mark" in refused("\ufeff" + source)


@pytest.mark.parametrize("name", FORMATS)
def test_an_edited_template_names_the_nearest_one(name: str) -> None:
    source = chatformats.get_format(name).template_source()
    lines = source.split("\n")
    middle = len(lines) // 2
    lines[middle] = lines[middle] + "{# edited #}"
    message = refused("\n".join(lines))
    assert f"the nearest ported template is {name} (" in message, message
    assert f"differs first at line {middle + 1}" in message
    assert "another revision" in message


def test_an_unrelated_template_is_near_nothing() -> None:
    assert "no ported template is near it" in refused("{{ messages[0].content }}")


def test_a_hub_id_points_to_get_format() -> None:
    for model_id, served in (("Qwen/Qwen3-8B", "qwen3"),
                             ("meta-llama/Llama-3.2-11B-Vision-Instruct", "llama-3.2-vision-2024-12"),
                             ("someone/unported-model", None)):
        with pytest.raises(UnknownFormatError) as info:
            chatformats.from_pretrained(model_id)
        message = str(info.value)
        assert "never downloads" in message and f"chatformats.get_format({model_id!r})" in message
        if served is None:
            assert "no ported format serves that id" in message
        else:
            assert f"({served} serves it)" in message
            assert chatformats.get_format(model_id).name == served
    with pytest.raises(UnknownFormatError) as info:
        chatformats.from_pretrained("/no/such/folder")
    assert "model id" not in str(info.value)


# ------------------------------------------------------------------ now


@pytest.mark.parametrize("text, expected", [
    ("2024-07-26", datetime(2024, 7, 26)),
    ("2024-07-26T09:30:00", datetime(2024, 7, 26, 9, 30)),
    (" 2024-07-26T09:30:00Z ", datetime(2024, 7, 26, 9, 30)),
    ("2024-07-26T09:30:00+02:00", datetime(2024, 7, 26, 7, 30)),
])
def test_now_takes_what_the_cli_takes(text: str, expected: datetime) -> None:
    from chatformats.cli.common import _parse_now

    assert _parse_now(text) == expected
    name = "llama-3.2-vision-2024-09"  # prints the date
    assert chatformats.render(name, ONE, now=text) == chatformats.render(name, ONE, now=expected)
    assert (chatformats.apply_chat_template(name, ONE, now=text)
            == chatformats.apply_chat_template(name, ONE, now=expected))
    assert chatformats.render_spans(name, ONE, now=text).text == chatformats.render(name, ONE, now=expected)


@pytest.mark.parametrize("now", ["26 July 2024", "", 20240726, 1.5, [2024, 7, 26]])
def test_any_other_now_says_what_it_takes(now: Any) -> None:
    for call in (lambda: chatformats.render("cogito", ONE, now=now),
                 lambda: chatformats.apply_chat_template("cogito", ONE, now=now)):
        with pytest.raises(InvalidClock, match="ISO 8601") as info:
            call()
        assert isinstance(info.value, TypeError) and isinstance(info.value, chatformats.ChatFormatError)


# ------------------------------------------------------------------ the command line


def cli(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "chatformats", *argv], input=stdin,
                          capture_output=True, check=False)


def test_parse_requires_the_prompt_as_python_does(tmp_path: Path) -> None:
    name = "minicpm-v-4.6-thinking"  # its generation prompt opens a think block
    prompt = chatformats.apply_chat_template(name, ONE, add_generation_prompt=True)
    completion = "Let me think.</think>\n\nHello!<|im_end|>"
    (tmp_path / "c.txt").write_text(completion, encoding="utf-8")
    (tmp_path / "p.txt").write_text(prompt, encoding="utf-8")
    missing = cli("parse", name, str(tmp_path / "c.txt"))
    assert missing.returncode == 2 and b"--prefix FILE" in missing.stderr and b"--no-prefix" in missing.stderr
    with_prefix = cli("parse", name, str(tmp_path / "c.txt"), "--prefix", str(tmp_path / "p.txt"))
    assert with_prefix.returncode == 0
    assert json.loads(with_prefix.stdout) == dict(chatformats.parse_response(name, completion, prefix=prompt))
    without = cli("parse", name, str(tmp_path / "c.txt"), "--no-prefix")
    assert json.loads(without.stdout) == dict(chatformats.parse_response(name, completion, prefix=""))
    both = cli("parse", name, str(tmp_path / "c.txt"), "--no-prefix", "--prefix", str(tmp_path / "p.txt"))
    assert both.returncode == 2


def test_help_lists_every_exit_status() -> None:
    out = cli("--help").stdout.decode()
    for status in ("0 ok", "1 an input", "2 usage error", "3 verify found a difference, or audit found",
                   "4 verify", "130 interrupted", "143 terminated"):
        assert status in " ".join(out.split()), status


def test_the_alias_says_what_it_means() -> None:
    shown = cli("show", "llama-3.2-vision").stdout.decode()
    assert "alias:" in shown and "family's release template" in shown and "llama-3.2-vision-2024-12" in shown
    assert "alias:" not in cli("show", "llama-3.2-vision-2024-09").stdout.decode()
    assert json.loads(cli("show", "llama-3.2-vision", "--json").stdout)["alias"]["name"] == "llama-3.2-vision"
    listed = cli("formats").stdout.decode()
    assert "alias llama-3.2-vision = llama-3.2-vision-2024-09: the family's release template" in listed


# ------------------------------------------------------------------ the SFT example


def _sft_block() -> str:
    import re

    text = (Path(__file__).resolve().parent.parent / "docs" / "spans.md").read_text(encoding="utf-8")
    start = text.index("## An SFT pipeline with `datasets.map`")
    return re.search(r"```python\n(.*?)```", text[start:], re.S).group(1)  # type: ignore[union-attr]


def _run_block(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    import os

    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    # The package from the source tree, as an editable install or a checkout imports it.
    env = dict(os.environ, PYTHONPATH=str(Path(chatformats.__file__).resolve().parent.parent))
    return subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, check=False)


def test_the_sft_example_maps_with_workers_and_hashes(tmp_path: Path) -> None:
    pytest.importorskip("datasets")
    pytest.importorskip("tokenizers")
    code = _sft_block()
    assert "num_proc=2" in code
    result = _run_block(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['</', 'think', '>', 'Hello', '!', '<|im_end|>']"
    assert "couldn't be hashed" not in result.stderr, result.stderr
    # The check can fail: the same function reading the module-level import is not hashable.
    control = code.replace("    import chatformats  # here, not from the enclosing module: see above\n", "")
    assert control != code
    result = _run_block(control, tmp_path)
    assert result.returncode == 0 and "couldn't be hashed" in result.stderr
