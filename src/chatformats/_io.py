"""Files for the command line and the Parquet stage: reading any readable stream, and writing
``-o`` atomically (below both: ``chatformats.cli`` and ``chatformats.parquet`` use it).

Reading.  An input path is read once, from the start, whatever it is: a regular file, ``-``
(stdin), a named FIFO, ``/dev/stdin`` or a process substitution (``<(cat f)``).  Nothing else
opens it: the progress bar's line count (:func:`count_lines`) reads regular files only, since
a second reader of a pipe takes data the first never sees.  A regular file that is not empty
but from which nothing was read is an error, never an empty success.

Writing a file.  ``-o OUT`` and ``--html OUT`` go through one writer, :class:`Output`.  A regular
``OUT`` (or a new one) is written to a temporary file beside it (:func:`tempfile.mkstemp` in the
same directory: an unpredictable name, created with ``O_EXCL``, so no planted file or symbolic
link is ever opened), flushed to disk, and renamed over ``OUT`` only when the run succeeds: a run
that fails, is interrupted or is killed leaves ``OUT`` as it was (a kill can leave the temporary
``.OUT.*.tmp`` file behind).  ``OUT`` keeps its permissions (and, where the process may set them,
its owner and group); a new ``OUT`` gets the usual ``0o666`` less the umask.  ``OUT`` that is a
symbolic link is resolved first, as a shell's ``>`` resolves it: the link stays a link, and what
it points at is what is replaced (or streamed to, below).  Where a rename cannot stand in for the
target (``OUT`` is a FIFO or a character device such as ``/dev/null`` or ``/dev/full``), ``OUT``
itself is opened, never created or truncated, and written as a stream.  A block device, a
directory or a socket is refused.  A failed write (a full disk, an I/O error) is an
:class:`OutputError`: one line, exit status 1.

Writing stdout.  Every byte is accounted for whatever the buffering: under ``python -u`` or
``PYTHONUNBUFFERED=1`` stdout's binary layer is the raw file, whose ``write`` may write fewer
bytes than it was given (a disk with 4 KiB left takes 4 KiB) and says so only by its return
value, which ``TextIOWrapper`` ignores.  :func:`accounted_stdout` puts :class:`WholeWrites`
between the two for the duration of a run (still unbuffered: each write is continued until every
byte is written or the system refuses, which raises).  A closed stdout (``>&-``) fails on the
first write, like a full one.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import select
import stat
import sys
import tempfile
from functools import partial
from typing import IO, Any, Iterator

__all__ = ["OutputError", "ReadError", "name", "read_all", "Lines", "count_lines", "Output",
           "write_all", "WholeWrites", "accounted_stdout"]


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


def write_all(stream: Any, data: bytes | memoryview) -> None:
    """Every byte of ``data`` to the binary ``stream``, or an :class:`OSError`.

    A buffered stream writes all or raises; a raw one (``FileIO``) may write a part and return
    its length: the rest is written until it is all written, the system raises (a full disk:
    ``ENOSPC``), or a write makes no progress (``EIO``).  A non-blocking stream that cannot take
    more now (``None``) is waited on."""
    view = memoryview(data).cast("B")
    while view.nbytes:
        count = stream.write(view)
        if count is None:  # non-blocking and full: wait until it can take more
            select.select([], [stream.fileno()], [])
            continue
        if count <= 0:
            raise OSError(errno.EIO, "a write made no progress")
        view = view[count:]


class WholeWrites(io.BufferedIOBase):
    """A raw binary stream (``sys.stdout.buffer`` under ``python -u``) whose every write is
    whole (:func:`write_all`); as unbuffered as the stream it wraps.  Closing it leaves the raw
    stream open."""

    def __init__(self, raw: Any) -> None:
        super().__init__()
        self._raw = raw

    @property
    def raw(self) -> Any:
        return self._raw

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    def fileno(self) -> int:
        return int(self._raw.fileno())

    def isatty(self) -> bool:
        return bool(self._raw.isatty())

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        write_all(self._raw, view)
        return view.nbytes

    def flush(self) -> None:
        pass  # nothing is held


class _Closed(io.BufferedIOBase):
    """stdout when file descriptor 1 was closed (Python sets ``sys.stdout`` to ``None``): each
    write fails as a write to a closed descriptor fails."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        raise OSError(errno.EBADF, "stdout is closed")

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "stdout is closed")


@contextlib.contextmanager
def accounted_stdout() -> Iterator[None]:
    """For the duration of the block: ``sys.stdout`` writes every byte or raises (see the module
    docstring).  A buffered stdout, or an application's own stream, is left as it is."""
    original = sys.stdout
    buffer = getattr(original, "buffer", None) if original is not None else None
    if original is not None and not isinstance(buffer, io.RawIOBase):
        yield
        return
    base: Any = _Closed() if original is None else WholeWrites(buffer)
    wrapper = io.TextIOWrapper(
        base, encoding=getattr(original, "encoding", None) or "utf-8",
        errors=getattr(original, "errors", None) or "strict", newline="\n",
        line_buffering=bool(getattr(original, "line_buffering", False)), write_through=True)
    sys.stdout = wrapper
    try:
        yield
    finally:
        sys.stdout = original
        try:
            wrapper.flush()
        except (OSError, ValueError):
            pass  # what failed was reported where it failed
        try:
            wrapper.detach()  # the raw stream stays open (closing the wrapper never closes it)
        except (OSError, ValueError):
            pass


def _replaceable(path: str) -> os.stat_result | None:
    """What ``path`` is before :class:`Output` writes it: ``None`` (nothing there yet, or a link
    to nothing), its ``stat`` (through a symbolic link); :class:`OutputError` for a target no
    output may go to."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputError(f"{path}: {_reason(exc)}") from None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise OutputError(f"{path}: is a directory")
    if stat.S_ISBLK(mode):
        raise OutputError(f"{path}: is a block device; refusing to write over it")
    if stat.S_ISSOCK(mode):
        raise OutputError(f"{path}: is a socket; refusing to write to it")
    return info


class Output:
    """Where a run writes: stdout (``None`` or ``-``), or ``OUT`` (``-o``, ``--html``) replaced
    atomically, or streamed to when it is a FIFO or a character device (see the module
    docstring).

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
        info = _replaceable(path)
        if info is not None and not stat.S_ISREG(info.st_mode):
            self.stream = self._open_stream(path)
            return
        try:
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
        if info is not None and (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
            try:
                os.fchown(fd, info.st_uid, info.st_gid)
            except OSError:
                pass  # not permitted: the new file is the writer's, as a copy would be
        self.stream = os.fdopen(fd, "wb")

    @staticmethod
    def _open_stream(path: str) -> IO[bytes]:
        """A FIFO or a character device, opened as it is: never created, never truncated; and
        if it turned into something else since it was looked at, refused."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise OutputError(f"{path}: {_reason(exc)}") from None
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
            os.close(fd)
            raise OutputError(f"{path}: changed while it was opened; refusing to write to it")
        return os.fdopen(fd, "wb")

    def __enter__(self) -> Output:
        return self

    def write(self, data: bytes) -> None:
        try:
            write_all(self.stream, data)
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
