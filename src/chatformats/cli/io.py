"""Files for the command: reading any readable stream, and writing ``-o`` atomically.

Reading.  An input path is read once, from the start, whatever it is: a regular file, ``-``
(stdin), a named FIFO, ``/dev/stdin`` or a process substitution (``<(cat f)``).  Nothing else
opens it: the progress bar's line count (:func:`count_lines`) reads regular files only, since
a second reader of a pipe takes data the first never sees.  A regular file that is not empty
but from which nothing was read is an error, never an empty success.

Writing.  ``-o OUT`` is written to a temporary file beside ``OUT`` (same directory, so the same
file system), flushed to disk, and renamed over ``OUT`` only when the run succeeds: a run that
fails, is interrupted or is killed leaves ``OUT`` as it was (a kill can leave the temporary
``.OUT.*.tmp`` file behind).  ``OUT`` keeps its permissions; a new ``OUT`` gets the usual
``0o666`` less the umask.  Where a rename cannot stand in for the target (``OUT`` is a device
such as ``/dev/null`` or ``/dev/full``, a FIFO or a socket), ``OUT`` itself is written.  A
failed write (a full disk, an I/O error) is an :class:`OutputError`: one line, exit status 1.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from functools import partial
from typing import IO, Any, Iterator

__all__ = ["OutputError", "ReadError", "name", "read_all", "Lines", "count_lines", "Output"]


class ReadError(Exception):
    """An input that cannot be read (the message names it)."""


class OutputError(Exception):
    """The output cannot be written (the message names it and says why)."""


def name(path: str) -> str:
    """How messages name an input: ``<stdin>`` for ``-``."""
    return "<stdin>" if path == "-" else path


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _regular_size(path: str) -> int | None:
    """The size of ``path`` when it is a regular file, else ``None`` (a pipe, a device, ``-``)."""
    if path == "-":
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def read_all(path: str) -> bytes:
    """Every byte of ``path`` (``-``: stdin); :class:`ReadError` when it cannot be read."""
    size = _regular_size(path)
    try:
        if path == "-":
            raw: bytes = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                raw = handle.read()
    except OSError as exc:
        raise ReadError(f"{name(path)}: {_reason(exc)}") from None
    if size and not raw:
        raise ReadError(f"{name(path)}: nothing could be read from a file of {size} bytes")
    return raw


class Lines:
    """The lines of ``path`` (``-``: stdin) as ``(line number, bytes)``, read once, in order.

    Use as a context manager; iterate once.  After the iteration, :meth:`check` fails if a
    non-empty regular file gave nothing."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.size = _regular_size(path)
        self.count = 0
        try:
            self.handle: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")
        except OSError as exc:
            raise ReadError(f"{name(path)}: {_reason(exc)}") from None

    def __enter__(self) -> Lines:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.path != "-":
            self.handle.close()

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        try:
            for raw in self.handle:
                self.count += 1
                yield self.count, raw
        except OSError as exc:
            raise ReadError(f"{name(self.path)}: {_reason(exc)} (after line {self.count})") from None
        self.check()

    def check(self) -> None:
        if self.size and not self.count:
            raise ReadError(f"{name(self.path)}: nothing could be read from a file of "
                            f"{self.size} bytes")


def count_lines(path: str) -> int | None:
    """The number of lines of a regular file (for a progress bar's total), else ``None``: a
    pipe or a device is read once, by the command itself."""
    if _regular_size(path) is None:
        return None
    try:
        with open(path, "rb") as handle:
            count = 0
            last = b"\n"
            for block in iter(partial(handle.read, 1 << 20), b""):
                count += block.count(b"\n")
                last = block[-1:]
            return count + (last != b"\n")
    except OSError:
        return None


class Output:
    """Where a JSONL run writes: stdout (``None`` or ``-``), or ``-o OUT`` written atomically
    (see the module docstring).

    ``with Output(path) as out: out.write(b"...\\n"); out.commit()``: leaving the block without
    :meth:`commit` (an error, an interrupt) discards what was written to a temporary file."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.temp: str | None = None
        self.target: str | None = None
        self.stream: IO[bytes]
        if path in (None, "-"):
            self.stream = sys.stdout.buffer
            self.label = "<stdout>"
            return
        assert path is not None
        self.label = path
        try:
            info: os.stat_result | None = os.stat(path)
        except FileNotFoundError:
            info = None
        except OSError as exc:
            raise OutputError(f"{path}: {_reason(exc)}") from None
        try:
            if info is not None and not stat.S_ISREG(info.st_mode):
                # A device, a FIFO, a socket: there is nothing to rename over.
                self.stream = open(path, "wb")
                return
            self.target = os.path.realpath(path)  # a symbolic link keeps pointing at OUT
            directory, base = os.path.split(self.target)
            fd, self.temp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
        except OSError as exc:
            raise OutputError(f"{path}: {_reason(exc)}") from None
        try:
            if info is not None:
                mode = stat.S_IMODE(info.st_mode)
            else:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.fchmod(fd, mode)
        except OSError:
            pass  # the temporary file's own 0o600 is the safe side
        self.stream = os.fdopen(fd, "wb")

    def __enter__(self) -> Output:
        return self

    def write(self, data: bytes) -> None:
        try:
            self.stream.write(data)
        except OSError as exc:
            raise OutputError(f"cannot write {self.label}: {_reason(exc)}") from None

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as exc:
            raise OutputError(f"cannot write {self.label}: {_reason(exc)}") from None

    def commit(self) -> None:
        """Everything is written: flush it, and put the temporary file in ``OUT``'s place."""
        self.flush()
        if self.temp is None:
            return
        try:
            os.fsync(self.stream.fileno())
            self.stream.close()
            assert self.target is not None
            os.replace(self.temp, self.target)
        except OSError as exc:
            raise OutputError(f"cannot write {self.label}: {_reason(exc)}") from None
        self.temp = None

    def __exit__(self, *exc: Any) -> None:
        if self.stream is sys.stdout.buffer:
            return
        try:
            self.stream.close()
        except OSError:
            pass  # the failure that matters was reported by write, flush or commit
        if self.temp is not None:  # not committed: OUT stays as it was
            try:
                os.unlink(self.temp)
            except OSError:
                pass

    @property
    def atomic(self) -> bool:
        """Whether OUT is replaced on success only (a regular file, or a new one)."""
        return self.target is not None

    @property
    def kept(self) -> str:
        """What a failed run leaves, for its error message."""
        if self.path in (None, "-"):
            return "the lines written to stdout are complete"
        if self.target is None:
            return f"{self.label} holds the lines written"
        return f"{self.label} was left unchanged"
