"""What the command's modules share: exit statuses, the input errors, reading a JSON file,
writing the prompt, resolving a format, parsing ``--now``.  Subcommand modules import these from
here (never from the package ``chatformats.cli``, which imports them)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from .._registry import ChatFormat, get_format
from ..errors import UnknownFormatError
from . import io as _io

_name = _io.name

#: A successful run.
EXIT_OK = 0
#: An input could not be read or parsed, or a render failed.
EXIT_FAILED = 1
#: Bad arguments (argparse's own status), an unknown format.
EXIT_USAGE = 2
#: ``verify``: the port and the reference template differ on at least one input.
EXIT_DIFFERENT = 3
#: ``verify``: the reference renderer is not installed.
EXIT_NO_REFERENCE = 4
#: Interrupted by SIGINT (Ctrl-C); SIGTERM gives 143 (128 + the signal number).
EXIT_INTERRUPTED = 130


class InputError(Exception):
    """An input that cannot be rendered; the message names where (path) and what is wrong."""


class UsageError(Exception):
    """A bad command line (exit status 2)."""


class _Stopped(Exception):
    """A run that could not finish: one line for stderr, and the exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _describe(exc: BaseException) -> str:
    """One line: the error's kind and message."""
    if isinstance(exc, InputError):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc}"
    return text.replace("\r", "\\r").replace("\n", "\\n")


def _too_long(exc: ValueError) -> str:
    """``json.loads``' refusal of an integer of more digits than
    ``sys.get_int_max_str_digits()`` allows, in a few words."""
    return f"a number is too long ({exc})".replace(
        "; use sys.set_int_max_str_digits() to increase the limit", "")


def _read_json(path: str) -> Any:
    """The JSON document in ``path`` (``-``: stdin); raises :class:`InputError` naming the
    file and, for invalid JSON, the line and column."""
    try:
        raw = _io.read_all(path)
    except _io.ReadError as exc:
        raise InputError(str(exc)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{_name(path)}: not UTF-8 (byte {exc.start + 1})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{_name(path)}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{_name(path)}: invalid JSON: nested too deeply") from None
    except ValueError as exc:
        raise InputError(f"{_name(path)}: invalid JSON: {_too_long(exc)}") from None


def _resolve_format(name: str) -> ChatFormat:
    """A format by name, or by one of the model ids it serves, in any case (the registry's own
    lookup); :class:`UsageError` else, with its "did you mean"."""
    try:
        return get_format(name)
    except UnknownFormatError as exc:
        raise UsageError(f"{exc} (see `chatformats formats`)") from None


def _write_stdout(text: str) -> None:
    """``text`` to stdout as UTF-8 bytes, exactly (no newline added, no locale encoding)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"the prompt holds a lone surrogate ({text[exc.start]!r}) that UTF-8 cannot encode; "
            "--jsonl writes it JSON-escaped"
        ) from None
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        _io.write_all(buffer, data)  # every byte, whatever the buffering
        buffer.flush()
    else:  # a text-only stream (an embedding application's)
        sys.stdout.write(text)
        sys.stdout.flush()


def _parse_now(text: str) -> datetime:
    """``--now``: what ``now=`` takes as a string (``chatformats._core.parse_now``)."""
    from .._core import parse_now
    from ..errors import ChatFormatError

    try:
        return parse_now(text)
    except ChatFormatError:
        raise argparse.ArgumentTypeError(
            f"expected an ISO 8601 date or date-time (2026-03-07 or 2026-03-07T14:05:09), "
            f"got {text!r}"
        ) from None
