"""Parquet in, Parquet out: a file of conversations rendered one batch of rows at a time.

    from chatformats.parquet import render_parquet
    from chatformats.ray import RenderStage

    summary = render_parquet("sft.parquet", "prompts.parquet", RenderStage("cogito"))

The input is read with ``pyarrow.parquet.ParquetFile.iter_batches`` (``batch_rows`` rows at a
time, row group after row group) and each rendered batch is written at once by a
``ParquetWriter`` as its own row group, so memory holds about one batch, whatever the file's
size.  Each row is rendered by the stage (see :mod:`chatformats.ray`: the same row function as
``chatformats render --jsonl``); the output has one row per input row, in order: the stage's
output column (the prompt, null for a failed row) and its error column (``"Kind: message"``,
null for a rendered row), after the input's columns with ``keep_columns=True``.

A path target is written atomically (beside it, then renamed: :class:`chatformats._io.Output`);
``"-"`` is stdout.  pyarrow is imported here only, on first use; without it, a
:class:`~chatformats.ChatFormatError` says how to install it.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from . import _io
from .errors import ChatFormatError

__all__ = ["ParquetSummary", "render_parquet", "pyarrow_parquet"]

#: Rows rendered (and written as one row group) at a time.
BATCH_ROWS = 4096
#: Failed rows a summary keeps (row number, error), for a report.
KEPT_FAILURES = 20


def pyarrow_parquet() -> Any:
    """``pyarrow.parquet``, or a :class:`ChatFormatError` saying how to install it."""
    try:
        return importlib.import_module("pyarrow.parquet")
    except ImportError as exc:
        raise ChatFormatError(
            f"Parquet needs pyarrow ({exc}): python -m pip install 'chatformats[parquet]'"
        ) from None


class ParquetSummary:
    """What a run did: ``rows`` rendered or failed, ``failed`` rows, ``batches`` read (and row
    groups written), the first :data:`KEPT_FAILURES` failures as ``(row number from 1, error)``."""

    __slots__ = ("rows", "failed", "batches", "failures")

    def __init__(self) -> None:
        self.rows = 0
        self.failed = 0
        self.batches = 0
        self.failures: list[tuple[int, str]] = []

    def __repr__(self) -> str:
        return (f"ParquetSummary(rows={self.rows}, failed={self.failed}, "
                f"batches={self.batches})")


class _Sink:
    """An :class:`~chatformats._io.Output` as the binary file ``ParquetWriter`` writes to (it
    writes forward only and asks where it is)."""

    def __init__(self, out: _io.Output) -> None:
        self.out = out
        self.position = 0
        self.closed = False

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.out.write(chunk)
        self.position += len(chunk)
        return len(chunk)

    def tell(self) -> int:
        return self.position

    def flush(self) -> None:
        self.out.flush()

    def close(self) -> None:
        self.closed = True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readable(self) -> bool:
        return False


def render_parquet(source: str, target: str | None, stage: Any, *, batch_rows: int = BATCH_ROWS,
                   keep_columns: bool = False,
                   on_batch: Callable[[ParquetSummary], None] | None = None,
                   deferred: Callable[[], Any] | None = None) -> ParquetSummary:
    """Render the Parquet file ``source`` into ``target`` (a path, written atomically; ``None``
    or ``"-"``: stdout) with ``stage`` (a :class:`chatformats.ray.RenderStage`).

    ``on_batch(summary)`` is called after each batch is written (a progress bar, a memory
    probe); ``deferred()`` gives a context manager held while a batch is written (the command's
    interrupts wait for it).  Raises :class:`ChatFormatError` without pyarrow,
    :class:`~chatformats._io.ReadError` when ``source`` cannot be read as Parquet, and
    :class:`~chatformats._io.OutputError` when ``target`` cannot be written; a row that fails
    is never an exception (its error is in the error column)."""
    if batch_rows < 1:
        raise ValueError(f"batch_rows: expected a positive number, got {batch_rows}")
    pq = pyarrow_parquet()
    parquet_file = _open(pq, source)
    wanted = [stage.column] + ([stage.variables_column] if stage.variables_column else [])
    names = parquet_file.schema_arrow.names
    missing = [name for name in wanted if name not in names]
    if missing:
        raise ChatFormatError(f"{_io.name(source)}: no column {missing[0]!r} "
                              f"(its columns: {', '.join(names)})")
    columns = None if keep_columns else wanted
    empty = parquet_file.schema_arrow.empty_table()
    schema = _rendered(stage, empty if keep_columns else empty.select(wanted), keep_columns,
                       wanted).schema
    summary = ParquetSummary()
    with _io.Output(target) as out:
        sink = _Sink(out)
        writer = pq.ParquetWriter(sink, schema)
        try:
            try:
                batches = parquet_file.iter_batches(batch_size=batch_rows, columns=columns)
                for batch in _reading(batches, source):
                    table = _rendered(stage, batch, keep_columns, wanted)
                    errors = table.column(stage.error_column)
                    failed = len(errors) - errors.null_count
                    if failed:
                        for offset, error in enumerate(errors.to_pylist()):
                            if error is not None and len(summary.failures) < KEPT_FAILURES:
                                summary.failures.append((summary.rows + offset + 1, error))
                    if deferred is not None:
                        with deferred():
                            writer.write_table(table, row_group_size=max(table.num_rows, 1))
                    else:
                        writer.write_table(table, row_group_size=max(table.num_rows, 1))
                    summary.rows += table.num_rows
                    summary.failed += failed
                    summary.batches += 1
                    if on_batch is not None:
                        on_batch(summary)
            finally:
                writer.close()  # the footer (on a failed run it goes to the discarded file)
        except OSError as exc:  # pyarrow's own write failure, wrapping ours
            raise _io.OutputError(f"cannot write {out.label}: {exc}") from None
        out.commit()
    return summary


def _open(pq: Any, source: str) -> Any:
    if source == "-":
        raise ChatFormatError("--parquet reads a file, not stdin: a Parquet file's index is at "
                              "its end (give a path)")
    try:
        return pq.ParquetFile(source)
    except OSError as exc:
        raise _io.ReadError(f"{source}: {getattr(exc, 'strerror', None) or exc}") from None
    except Exception as exc:  # noqa: BLE001 — pyarrow's ArrowInvalid: not a Parquet file
        raise _io.ReadError(f"{source}: not a Parquet file ({exc})") from None


def _reading(batches: Any, source: str) -> Any:
    """The record batches, a read failure (a truncated, corrupt file) as a ReadError."""
    iterator = iter(batches)
    while True:
        try:
            batch = next(iterator)
        except StopIteration:
            return
        except OSError as exc:
            raise _io.ReadError(f"{source}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 — ArrowInvalid on a corrupt page
            raise _io.ReadError(f"{source}: cannot read ({exc})") from None
        yield batch


def _rendered(stage: Any, batch: Any, keep_columns: bool, wanted: list[str]) -> Any:
    table = stage(batch)
    if not keep_columns:  # only the rendered columns, as JSONL output holds only them
        table = table.drop_columns([name for name in wanted if name in table.column_names
                                    and name not in (*stage.columns, stage.error_column)])
    return table
