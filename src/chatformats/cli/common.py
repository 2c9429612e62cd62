"""What the command's modules share: exit statuses, the usage errors, writing the prompt,
resolving a format, parsing ``--now``, and (from :mod:`chatformats._rows`, which the Ray and
Parquet stages share) the input errors and reading a JSON file.  Subcommand modules import these
from here (never from the package ``chatformats.cli``, which imports them)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from .._registry import ChatFormat, get_format
from ..errors import UnknownFormatError
from .. import _io
from .._rows import InputError as InputError
from .._rows import _describe as _describe
from .._rows import _name as _name
from .._rows import _read_json as _read_json
from .._rows import _too_long as _too_long

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


class UsageError(Exception):
    """A bad command line (exit status 2)."""


class _Stopped(Exception):
    """A run that could not finish: one line for stderr, and the exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


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
