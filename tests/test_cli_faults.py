"""The command under faults: nothing lost, nothing hangs, every failure one line with its
documented exit status.

- any readable stream is read: a process substitution, a named FIFO, ``/dev/stdin`` fed by a
  pipe (before: nothing was read and the run succeeded);
- Ctrl-C to the process group ends a run promptly with whole lines written and status 130, with
  or without worker processes, and no worker traceback (before: with ``--workers 4`` the
  command was still running 30-45 s later in 7 of 10 trials);
- a worker killed with SIGKILL ends the run with an error that names the lines it held and how
  many were written (before: the parent waited forever);
- ``-o OUT`` survives a killed or interrupted run (before: a prefix replaced it);
- a full device (``-o /dev/full``, stdout on ``/dev/full``) and a JSON number over 4,300 digits
  are one line on stderr (before: a traceback; "(this is a chatformats bug)" in a batch).

Every run here is a subprocess with a timeout: a hang fails the test in seconds.  The endless
input is a feeder process writing lines into the command's stdin until the pipe closes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import chatformats

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals, FIFOs and devices")

NOW = "2026-03-07T14:05:09"
MESSAGES = [{"role": "user", "content": "hello " * 20}]
LINE = json.dumps(MESSAGES) + "\n"
#: The record every line renders to, from the library itself.
RECORD = json.dumps({"prompt": chatformats.apply_chat_template(
    "cogito", MESSAGES, now=__import__("datetime").datetime.fromisoformat(NOW))}, ensure_ascii=False) + "\n"
TIMEOUT = 30  # seconds: far beyond what each run needs; reached only by a hang

FEEDER = f"""
import sys
block = {LINE!r}.encode() * 64
out = sys.stdout.buffer
try:
    while True:
        out.write(block)
except OSError:
    pass
"""


def command(*argv: str) -> list[str]:
    return [sys.executable, "-m", "chatformats", *argv]


def env() -> dict[str, str]:
    src = str(Path(chatformats.__file__).resolve().parent.parent)
    return {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}


def run(*argv: str, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(command(*argv), capture_output=True, timeout=TIMEOUT, env=env(), **kwargs)


def one_line(err: bytes) -> str:
    text = err.decode("utf-8")
    assert text.count("\n") == 1 and text.startswith("chatformats: "), text
    assert "Traceback" not in text
    return text


@pytest.fixture()
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(LINE * 300, encoding="utf-8")
    return path


# ---------------------------------------------------------------- streams


@pytest.mark.parametrize("command_name", ["render", "verify"])
@pytest.mark.parametrize("how", ["process substitution", "fifo", "/dev/stdin"])
def test_any_readable_stream_is_read(dataset: Path, tmp_path: Path, how: str, command_name: str) -> None:
    args = [command_name, "cogito", "--now", NOW, "--layer", "template"]
    if how == "process substitution":
        if shutil.which("bash") is None:
            pytest.skip("no bash")
        line = " ".join(command(*args, "--jsonl", "<(cat in.jsonl)")[:3]) + " " + " ".join(
            f"'{a}'" if " " in a else a for a in [*args, "--jsonl"]) + " <(cat in.jsonl)"
        result = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True,
                                timeout=TIMEOUT, env=env())
    elif how == "fifo":
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        writer = subprocess.Popen(["sh", "-c", f"cat '{dataset}' > '{fifo}'"])
        result = run(*args, "--jsonl", str(fifo))
        writer.wait(TIMEOUT)
    else:
        with dataset.open("rb") as source:
            feed = subprocess.Popen(["cat"], stdin=source, stdout=subprocess.PIPE)
            result = run(*args, "--jsonl", "/dev/stdin", stdin=feed.stdout)
            feed.stdout.close()  # type: ignore[union-attr]
            feed.wait(TIMEOUT)
    assert result.returncode == 0, result.stderr
    if command_name == "render":
        assert result.stdout.count(b"\n") == 300
    else:
        assert b"300 conversations checked, 300 agree" in result.stdout


def test_a_non_empty_file_that_gives_nothing_is_an_error(tmp_path: Path, monkeypatch: Any) -> None:
    from chatformats import _io as io

    path = tmp_path / "in.jsonl"
    path.write_text(LINE, encoding="utf-8")
    monkeypatch.setattr(io.Lines, "__init__", _lines_reading_nothing(io.Lines.__init__))
    with io.Lines(str(path)) as lines:
        with pytest.raises(io.ReadError, match="nothing could be read from a file of"):
            list(lines)


def _lines_reading_nothing(init: Any) -> Any:
    import io as stdlib_io

    def patched(self: Any, path: str) -> None:
        init(self, path)
        self.handle.close()
        self.handle = stdlib_io.BytesIO(b"")  # what a second reader of a pipe used to see

    return patched


# ---------------------------------------------------------------- signals and workers


def start_endless(*argv: str) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
    """The command reading an endless stream on stdin, in a process group of its own; returns
    (feeder, command) once the command has written its first byte."""
    feeder = subprocess.Popen([sys.executable, "-c", FEEDER], stdout=subprocess.PIPE)
    proc = subprocess.Popen(command("render", "cogito", "--jsonl", "-", "--now", NOW, *argv),
                            stdin=feeder.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env=env())
    feeder.stdout.close()  # type: ignore[union-attr]
    return feeder, proc


def finish(feeder: subprocess.Popen[bytes], proc: subprocess.Popen[bytes], first: bytes) -> tuple[int, bytes, bytes]:
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        for p in (proc, feeder):
            if p.poll() is None:
                p.kill()
            p.wait()
    return proc.returncode, first + out, err


def first_byte(proc: subprocess.Popen[bytes]) -> bytes:
    # os.read, not proc.stdout.read: communicate() reads the descriptor, not a reader's buffer.
    return os.read(proc.stdout.fileno(), 1)  # type: ignore[union-attr]


def assert_whole_records(out: bytes) -> int:
    assert out.endswith(b"\n")
    lines = out.decode("utf-8").splitlines(keepends=True)
    assert set(lines) == {RECORD}
    return len(lines)


@pytest.mark.parametrize("workers", ["1", "4"])
def test_ctrl_c_to_the_process_group_ends_the_run(workers: str) -> None:
    feeder, proc = start_endless("--workers", workers)
    first = first_byte(proc)
    os.killpg(proc.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
    status, out, err = finish(feeder, proc, first)
    assert status == 130
    written = assert_whole_records(out)
    text = one_line(err)
    assert text == f"chatformats: <stdin>: interrupted after {written} line{'s' * (written != 1)}; " \
                   "the lines written to stdout are complete\n"


def test_sigterm_ends_the_run_with_143() -> None:
    feeder, proc = start_endless("--workers", "2")
    first = first_byte(proc)
    proc.terminate()
    status, out, err = finish(feeder, proc, first)
    assert status == 143
    assert_whole_records(out)
    assert "interrupted after" in one_line(err)


def test_a_killed_worker_ends_the_run_and_says_how_far_it_got() -> None:
    feeder, proc = start_endless("--workers", "2")
    first = first_byte(proc)
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    if not children.exists():  # pragma: no cover — not Linux
        finish(feeder, proc, first)
        pytest.skip("no /proc children list")
    victim = int(children.read_text().split()[-1])
    os.kill(victim, signal.SIGKILL)
    status, out, err = finish(feeder, proc, first)
    assert status == 1
    written = assert_whole_records(out)
    text = one_line(err)
    assert f"worker process {victim} was killed by SIGKILL while rendering lines " in text
    assert f"; the {written} lines before it were rendered; " in text
    first_held = int(text.split("while rendering lines ")[1].split("-")[0])
    assert first_held == written + 1  # every line before the lost ones is written


# ---------------------------------------------------------------- -o OUT


def test_output_replaced_only_on_success(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("old\n", encoding="utf-8")
    out.chmod(0o640)
    result = run("render", "cogito", "--jsonl", str(dataset), "-o", str(out), "--now", NOW)
    assert result.returncode == 0, result.stderr
    assert out.read_text(encoding="utf-8") == RECORD * 300
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]


@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
def test_output_survives_a_stopped_run(tmp_path: Path, how: str) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("old\n", encoding="utf-8")
    feeder, proc = start_endless("--workers", "2", "-o", str(out))
    deadline = time.monotonic() + TIMEOUT
    while not any(p.name.endswith(".tmp") and p.stat().st_size for p in tmp_path.iterdir()):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.01)  # until part of the new output is on disk
    os.killpg(proc.pid, getattr(signal, how))
    status, _, err = finish(feeder, proc, b"")
    assert out.read_text(encoding="utf-8") == "old\n"
    if how == "SIGINT":
        assert status == 130
        assert one_line(err).endswith(f"; {out} was left unchanged\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]  # no temporary file


def test_output_to_a_device_is_written_in_place(dataset: Path) -> None:
    result = run("render", "cogito", "--jsonl", str(dataset), "-o", os.devnull)
    assert result.returncode == 0 and result.stderr == b""


# ---------------------------------------------------------------- one line, the documented status


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_device_is_one_line(dataset: Path, tmp_path: Path) -> None:
    result = run("render", "cogito", "--jsonl", str(dataset), "-o", "/dev/full")
    assert result.returncode == 1
    assert one_line(result.stderr) == "chatformats: cannot write /dev/full: No space left on device\n"
    single = tmp_path / "one.json"
    single.write_text(json.dumps(MESSAGES), encoding="utf-8")
    for argv in (["render", "cogito", str(single)], ["render", "cogito", "--jsonl", str(dataset)],
                 ["formats"], ["show", "cogito"]):
        with open("/dev/full", "wb") as full:
            result = subprocess.run(command(*argv), stdout=full, stderr=subprocess.PIPE,
                                    timeout=TIMEOUT, env=env())
        assert result.returncode == 1, argv
        assert "No space left on device" in one_line(result.stderr)


def test_a_number_over_4300_digits_is_an_input_error(tmp_path: Path) -> None:
    text = '[{"role": "user", "content": "x", "n": ' + "9" * 5000 + "}]"
    single = tmp_path / "one.json"
    single.write_text(text, encoding="utf-8")
    result = run("render", "cogito", str(single))
    assert result.returncode == 1
    assert "invalid JSON: a number is too long" in one_line(result.stderr)
    batch = tmp_path / "in.jsonl"
    batch.write_text(LINE + text + "\n", encoding="utf-8")
    result = run("render", "cogito", "--jsonl", str(batch), "--now", NOW)
    assert result.returncode == 1
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records[0] == json.loads(RECORD) and records[1]["line"] == 2
    assert records[1]["error"].startswith("invalid JSON: a number is too long")
    assert "chatformats bug" not in result.stderr.decode()
    result = run("render", "cogito", str(single), "--var", "x=" + "9" * 5000)
    assert result.returncode == 2 and b"Traceback" not in result.stderr
