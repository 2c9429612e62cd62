"""Every output the command writes: every byte accounted for, no file replaced that should not be.

- stdout on a full disk fails with status 1 and one line, whatever the buffering (``python -u``,
  ``PYTHONUNBUFFERED=1``): before, an unbuffered stdout took 4 KiB of a 100 KB output, printed
  nothing and exited 0 (``parse``, ``render FILE``, ``request``, ``request --preprocess``,
  ``audit --json``, the prompt of ``render --html``);
- ``--html OUT`` never opens a planted file (before: a symbolic link at its predictable
  ``.OUT.<pid>.tmp`` was followed and its target overwritten), streams to a FIFO or a character
  device instead of replacing it, refuses a block device, keeps a symbolic link a link and an
  existing file's mode;
- SIGTERM ends ``parse``, ``audit``, ``request`` and ``verify`` with one line and status 143
  (before: killed without a word); a closed stdout is one line, never a traceback.

The full-disk cases run on a 64 KiB tmpfs mounted for the test (as root, where the machine
allows it) and are skipped, with the reason, elsewhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

import chatformats
from chatformats.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file systems and signals")

TIMEOUT = 60
NOW = "2026-03-07T14:05:09"
BIG = "hello world " * 9000  # about 108 KB: more than the 4 KiB left on the small disk


def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "chatformats", *argv]


def env(**extra: str) -> dict[str, str]:
    src = str(Path(chatformats.__file__).resolve().parent.parent)
    return {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", ""),
            **extra}


def one_line(err: bytes) -> str:
    text = err.decode("utf-8", "replace")
    assert text.count("\n") == 1 and text.startswith("chatformats: "), text
    assert "Traceback" not in text and "Exception ignored" not in text
    return text


@contextlib.contextmanager
def small_disk(root: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs with 4 KiB free (unmounted at the end); skips the test where it cannot
    be mounted."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    where = root / "disk"
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        (where / "fill").write_bytes(b"\0" * (60 * 1024))
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: Any) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("inputs")
    conversation = folder / "chat.json"
    conversation.write_text(json.dumps([{"role": "user", "content": BIG}]), encoding="utf-8")
    tokens = folder / "tokens.json"
    tokens.write_text(json.dumps([{"role": "user", "content": "<|eot_id|>" * 2000}]),
                      encoding="utf-8")
    body = folder / "body.json"
    body.write_text(json.dumps({"messages": [{"role": "user", "content": BIG}]}), encoding="utf-8")
    completion = folder / "completion.txt"
    completion.write_text(BIG, encoding="utf-8")
    lines = folder / "in.jsonl"
    lines.write_text((json.dumps([{"role": "user", "content": "hi " * 300}]) + "\n") * 200,
                     encoding="utf-8")
    return {"chat": str(conversation), "tokens": str(tokens), "body": str(body),
            "completion": str(completion), "jsonl": str(lines), "page": str(folder / "page.html")}


#: Each command that writes more than 4 KiB to stdout, by name.
COMMANDS = {
    "parse": ["parse", "cogito", "{completion}", "--no-prefix"],
    "render": ["render", "cogito", "{chat}", "--now", NOW],
    "render --jsonl": ["render", "cogito", "--jsonl", "{jsonl}", "--now", NOW],
    "request": ["request", "cogito", "{body}", "--now", NOW],
    "request --preprocess": ["request", "cogito", "{body}", "--preprocess"],
    "audit --json": ["audit", "cogito", "{tokens}", "--json"],
    "render --html": ["render", "cogito", "{chat}", "--html", "{page}", "--now", NOW],
}


@pytest.mark.parametrize("buffering", ["python -u", "PYTHONUNBUFFERED=1", "buffered"])
def test_a_short_write_to_stdout_is_a_failure(tmp_path: Path, inputs: dict[str, str],
                                              buffering: str) -> None:
    names = list(COMMANDS) if buffering != "PYTHONUNBUFFERED=1" else ["render", "audit --json"]
    extra = {"PYTHONUNBUFFERED": "1"} if buffering == "PYTHONUNBUFFERED=1" else {}
    with small_disk(tmp_path) as disk:
        for name in names:
            argv = [part.format(**inputs) for part in COMMANDS[name]]
            cmd = command(*argv)
            if buffering == "python -u":
                cmd.insert(1, "-u")
            target = disk / "out"
            with open(target, "wb") as out:
                result = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, timeout=TIMEOUT,
                                        env=env(**extra))
            written = target.stat().st_size
            target.unlink()
            assert result.returncode == 1, (name, result.returncode, written, result.stderr)
            assert "No space left on device" in one_line(result.stderr), name


def test_the_whole_output_when_there_is_room(tmp_path: Path, inputs: dict[str, str]) -> None:
    """The same runs unbuffered with room to write: every byte arrives (the law the failures
    above are the other side of)."""
    result = subprocess.run([sys.executable, "-u", "-m", "chatformats", "render", "cogito",
                             inputs["chat"], "--now", NOW], capture_output=True, timeout=TIMEOUT,
                            env=env())
    assert result.returncode == 0, result.stderr
    expected = chatformats.apply_chat_template(
        "cogito", [{"role": "user", "content": BIG}],
        now=__import__("datetime").datetime.fromisoformat(NOW))
    assert result.stdout == expected.encode("utf-8")


def test_a_closed_stdout_is_one_line(inputs: dict[str, str]) -> None:
    for argv in (["render", "cogito", "--jsonl", inputs["jsonl"]],
                 ["render", "cogito", inputs["chat"]],
                 ["parse", "cogito", inputs["completion"], "--no-prefix"]):
        result = subprocess.run(command(*argv), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                timeout=TIMEOUT, env=env(), preexec_fn=lambda: os.close(1))
        assert result.returncode == 1, argv
        assert "stdout is closed" in one_line(result.stderr), argv


def test_a_full_stdout_after_a_jsonl_run_is_one_line(tmp_path: Path, inputs: dict[str, str]) -> None:
    """``render --jsonl`` whose output fits in the buffer and fails when flushed (a full device,
    a reader that has gone away): one line, status 1, nothing more at exit (the probe saw
    "Exception ignored" twice and status 120; a guard)."""
    few = tmp_path / "few.jsonl"
    few.write_text(json.dumps([{"role": "user", "content": "hi"}]) + "\n", encoding="utf-8")
    for unbuffered in ([], ["-u"]):
        argv = [sys.executable, *unbuffered, "-m", "chatformats", "render", "cogito", "--jsonl",
                str(few)]
        if os.path.exists("/dev/full"):
            with open("/dev/full", "wb") as out:
                result = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, timeout=TIMEOUT,
                                        env=env())
            assert result.returncode == 1
            assert "No space left on device" in one_line(result.stderr)
        read, write = os.pipe()  # a reader that has gone away
        os.close(read)
        try:
            result = subprocess.run(argv, stdout=write, stderr=subprocess.PIPE, timeout=TIMEOUT,
                                    env=env())
        finally:
            os.close(write)
        assert result.returncode == 1
        assert "Broken pipe" in one_line(result.stderr)


# ---------------------------------------------------------------- --html OUT


CHAT = [{"role": "user", "content": "hi"}]


def _chat(tmp_path: Path) -> str:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(CHAT), encoding="utf-8")
    return str(path)


def _html(tmp_path: Path, out: str | Path) -> int:
    return main(["render", "cogito", _chat(tmp_path), "--html", str(out), "--now", NOW])


def test_html_never_opens_a_planted_temporary_name(tmp_path: Path, capsysbinary: Any) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "page.html"
    # the name the writer used to use, predictable from the pid
    (tmp_path / f".page.html.{os.getpid()}.tmp").symlink_to(victim)
    assert _html(tmp_path, out) == 0
    assert victim.read_text(encoding="utf-8") == "precious"
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    leftovers = {p.name for p in tmp_path.iterdir()} - {"victim", "page.html", "chat.json",
                                                        f".page.html.{os.getpid()}.tmp"}
    assert not leftovers


def test_html_keeps_the_mode_of_an_existing_file(tmp_path: Path, capsysbinary: Any) -> None:
    out = tmp_path / "page.html"
    out.write_text("old", encoding="utf-8")
    os.chmod(out, 0o600)
    assert _html(tmp_path, out) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_html_through_a_symbolic_link_keeps_the_link(tmp_path: Path, capsysbinary: Any) -> None:
    real = tmp_path / "real.html"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    assert _html(tmp_path, link) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_html_streams_to_a_fifo(tmp_path: Path, capsysbinary: Any) -> None:
    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert _html(tmp_path, fifo) == 0
    reader.join(TIMEOUT)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got and got[0].startswith(b"<!DOCTYPE html>") and got[0].endswith(b"</html>\n")


def _node(tmp_path: Path, kind: int, device: tuple[int, int]) -> Path:
    path = tmp_path / "node"
    try:
        os.mknod(path, kind | 0o666, os.makedev(*device))
    except (OSError, AttributeError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


def test_html_streams_to_a_character_device(tmp_path: Path, capsysbinary: Any) -> None:
    null = _node(tmp_path, stat.S_IFCHR, (1, 3))  # a private /dev/null
    assert _html(tmp_path, null) == 0
    assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_html_refuses_a_block_device(tmp_path: Path, capsys: Any) -> None:
    node = _node(tmp_path, stat.S_IFBLK, (7, 250))
    assert _html(tmp_path, node) == 1
    assert "block device" in capsys.readouterr().err
    assert stat.S_ISBLK(os.lstat(node).st_mode)


def test_html_dash_is_a_usage_error(tmp_path: Path, capsys: Any) -> None:
    assert _html(tmp_path, "-") == 2


# ---------------------------------------------------------------- SIGTERM


def _catches_sigterm(pid: int) -> bool:
    """Whether process ``pid`` has a handler for SIGTERM (Linux: ``SigCgt`` in its status)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc to see handlers")
@pytest.mark.parametrize("argv", [["parse", "cogito", "-", "--stream", "--no-prefix"], ["parse", "cogito", "-", "--no-prefix"],
                                  ["audit", "cogito", "-"], ["request", "cogito", "-"],
                                  ["verify", "cogito", "-"]], ids=" ".join)
def test_sigterm_is_one_line_and_143(argv: list[str]) -> None:
    proc = subprocess.Popen(command(*argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env())
    try:
        deadline = time.monotonic() + TIMEOUT
        while not _catches_sigterm(proc.pid):  # the command is waiting on its input by now
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.01)
        time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    assert one_line(err) == "chatformats: terminated\n"
