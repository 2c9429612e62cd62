"""``chatformats render FORMAT FILE|--jsonl IN``: one conversation to stdout, or a JSONL dataset
into JSONL, in order, written as whole lines; ``-o`` replaces OUT only when the run finishes
(see :mod:`.io`); with ``--workers`` N > 1 the lines are rendered in N processes (see
:mod:`.workers`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from functools import partial
from typing import Any, Iterator

from ..errors import ChatFormatError
from .. import _io
from .common import EXIT_FAILED, EXIT_OK, InputError, UsageError, _Stopped, _describe, _name, _write_stdout
from .conversation import Options, _options, _parse_file, _parse_line, _ported, render_conversation
from .progress import _Progress, _progress_enabled
from .workers import Interrupted, Interrupts, WorkerDied, WorkerPool


def _dumps_line(record: dict[str, Any]) -> bytes:
    text = json.dumps(record, ensure_ascii=False)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate: keep the exact text, \u-escaped
        return json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"


def render_line(opts: Options, item: tuple[int, bytes]) -> tuple[int, bytes, str | None]:
    """Worker: one JSONL line to ``(line number, output line, error or None)``."""
    lineno, raw = item
    try:
        conv = _parse_line(raw, lineno)
        prompt = render_conversation(conv, opts)
    except (ChatFormatError, InputError) as exc:
        error = _describe(exc)
    except MemoryError:  # a resource error, not a bug: this line alone fails
        error = "MemoryError: out of memory while rendering this line"
    except Exception as exc:  # noqa: BLE001 — a bug must not cost the other lines either
        error = _describe(exc) + " (this is a chatformats bug)"
    else:
        return lineno, _dumps_line({"prompt": prompt}), None
    return lineno, _dumps_line({"error": error, "line": lineno}), error


def _cmd_render(args: argparse.Namespace) -> int:
    fmt = _ported(args.format)
    opts = _options(args, fmt)
    if getattr(args, "ids", None) is not None and getattr(args, "parquet", None) is None:
        raise UsageError("--ids goes with --parquet")
    if args.jsonl is not None:
        return _render_jsonl(args, opts)
    if getattr(args, "parquet", None) is not None:
        from .parquet import render_parquet

        return render_parquet(args, opts)
    if args.output is not None or args.workers != 1:
        raise UsageError("-o/--output and --workers go with --jsonl")
    conv = _parse_file(args.file)
    try:
        text = render_conversation(conv, opts)
    except (ChatFormatError, InputError) as exc:
        raise InputError(f"{_name(args.file)}: {_describe(exc)}") from None
    _write_stdout(text)
    return EXIT_OK


def _batches(lines: Iterator[tuple[int, bytes]], size: int) -> Iterator[list[tuple[int, bytes]]]:
    batch: list[tuple[int, bytes]] = []
    for item in lines:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _render_jsonl(args: argparse.Namespace, opts: Options) -> int:
    """``render --jsonl``: one output line per input line, in order, written as whole lines;
    ``-o`` replaces OUT only when the run finishes (see :mod:`.io`); with ``--workers`` N > 1,
    the lines are rendered in N processes (see :mod:`.workers`)."""
    source = _name(args.jsonl)
    if args.output is not None and args.output != "-" and args.jsonl != "-":
        try:
            if os.path.samefile(args.jsonl, args.output):
                raise UsageError("the output file is the input file")
        except OSError:
            pass
    work = partial(render_line, opts)
    failures: list[tuple[int, str]] = []
    total = _io.count_lines(args.jsonl)
    with _io.Lines(args.jsonl) as lines, _io.Output(args.output) as out, Interrupts() as signals:
        progress = _Progress(_progress_enabled(args), total, "lines")
        written = 0
        try:
            with contextlib.ExitStack() as stack:
                if args.workers > 1:
                    pool = stack.enter_context(WorkerPool(work, args.workers))
                    results: Iterator[tuple[int, bytes, str | None]] = pool.map(
                        _batches(iter(lines), _BATCH))
                else:
                    results = (work(item) for item in lines)
                for lineno, data, error in results:
                    with signals.deferred():  # an interrupt waits for the whole line
                        out.write(data)
                        written += 1
                    if error is not None:
                        failures.append((lineno, error))
                    progress.update(1, error is not None)
            out.commit()
        except Interrupted as exc:
            _flush_quietly(out)
            raise _Stopped(
                f"{source}: interrupted after {_lines(written)}; {out.kept}", exc.exit_status
            ) from None
        except WorkerDied as exc:
            _flush_quietly(out)
            raise _Stopped(
                f"{source}: {exc}; the {_lines(written)} before it were rendered; {out.kept}",
                EXIT_FAILED,
            ) from None
        except _io.ReadError as exc:
            _flush_quietly(out)
            raise _Stopped(f"{exc}; {_lines(written)} rendered; {out.kept}", EXIT_FAILED) from None
        except _io.OutputError as exc:
            kept = f"; {out.kept}" if out.atomic else ""
            raise _Stopped(f"{exc}{kept}", EXIT_FAILED) from None
        finally:
            progress.close()
    done = progress.count
    if failures:
        sys.stderr.write(
            f"chatformats: {source}: {done - len(failures)} of {done} lines rendered, "
            f"{len(failures)} failed:\n"
        )
        for lineno, error in failures[:20]:
            sys.stderr.write(f"  {source}:{lineno}: {error}\n")
        if len(failures) > 20:
            sys.stderr.write(f"  ... and {len(failures) - 20} more "
                             "(each has an {\"error\", \"line\"} record in the output)\n")
        return EXIT_FAILED
    if progress.enabled:
        sys.stderr.write(f"chatformats: {source}: {done} lines rendered\n")
    return EXIT_OK


def _lines(n: int) -> str:
    return "1 line" if n == 1 else f"{n} lines"


#: Lines sent to a worker process at a time.
_BATCH = 64


def _flush_quietly(out: _io.Output) -> None:
    """Flush what was written (whole lines) before reporting a stop; a failure to flush is
    not the failure to report."""
    try:
        out.flush()
    except _io.OutputError:
        pass
