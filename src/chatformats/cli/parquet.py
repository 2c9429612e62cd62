"""``chatformats render FORMAT --parquet IN [-o OUT]`` (and ``audit FORMAT --parquet IN [-o
OUT]``): a Parquet file of conversations into a Parquet file of prompts (or findings), one batch of rows at a time (see :mod:`chatformats.parquet`), with the
``--jsonl`` run's conventions: one output row per input row, in order; a failed row keeps its
error in the error column and never stops the run; a summary of the failed rows on stderr
(exit status 1); ``-o`` replaced only when the run finishes; interrupts wait for the batch being
written.  pyarrow is imported on this path only."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..errors import ChatFormatError
from .. import _io
from .arguments import _positive
from .common import EXIT_FAILED, EXIT_OK, InputError, UsageError, _Stopped

#: ``audit``: at least one control string in input-derived text (as :mod:`.audit`'s).
EXIT_FINDINGS = 3
from .conversation import Options
from .progress import _Progress, _progress_enabled
from .workers import Interrupted, Interrupts


def add_options(p: argparse.ArgumentParser, output: str = "prompt", what: str = "prompts") -> None:
    """The Parquet options of ``render`` (``output``: the output column's default name) and
    ``audit``."""
    p.add_argument("--parquet", metavar="IN",
                   help=f"read a Parquet file of conversations and write its {what} as Parquet "
                        "(-o OUT), one row per row, in order (needs pyarrow: the 'parquet' extra)")
    p.add_argument("--messages-column", metavar="NAME", default="messages",
                   help="with --parquet: the column of conversations (default: messages); a cell "
                        "is a list of messages, an object with messages and variables, or either "
                        "as a JSON string")
    p.add_argument("--variables-column", metavar="NAME",
                   help="with --parquet: a column of per-row template variables (an object, or a "
                        "JSON string); --var overrides them")
    p.add_argument("--output-column", metavar="NAME", default=output,
                   help=f"with --parquet: the column of {what} (default: {output}; null for a "
                        "failed row)")
    p.add_argument("--error-column", metavar="NAME", default="error",
                   help="with --parquet: the column of errors (default: error; null for a "
                        "rendered row)")
    p.add_argument("--keep-columns", action="store_true",
                   help="with --parquet: carry every input column into the output, before the "
                        "prompt and error columns")
    p.add_argument("--batch-rows", metavar="N", type=_positive, default=None,
                   help="with --parquet: rows read, rendered and written (as one row group) at "
                        "a time (default 4096)")


def add_ids_option(p: argparse.ArgumentParser) -> None:
    """``render --parquet IN --ids TOKENIZER_JSON``."""
    p.add_argument("--ids", metavar="TOKENIZER_JSON",
                   help="with --parquet: write each row's token ids instead of its prompt, as "
                        "list<int32> columns input_ids, attention_mask and assistant_masks, "
                        "encoded by this tokenizer.json (needs the tokenizers library)")


def _load_tokenizer(path: str) -> Any:
    """``tokenizers.Tokenizer.from_file(path)``, its failures as input errors."""
    try:
        import tokenizers  # the caller's tokenizer library, on this path only
    except ImportError as exc:
        raise InputError(f"--ids needs the tokenizers library ({exc}): "
                         "python -m pip install tokenizers") from None
    if not os.path.isfile(path):
        raise InputError(f"--ids {path}: no such file")
    try:
        return tokenizers.Tokenizer.from_file(path)
    except Exception as exc:  # noqa: BLE001 — the library's own parse error
        raise InputError(f"--ids {path}: not a tokenizer.json ({exc})") from None


def render_parquet(args: argparse.Namespace, opts: Options, audit: bool = False) -> int:
    """``render --parquet`` (``audit``: ``audit --parquet``, whose output column holds each row's
    findings as JSON text; exit status 3 when a row has one and none failed)."""
    from .. import parquet as _parquet
    from ..ray import AuditStage, RenderStage

    if getattr(args, "workers", 1) != 1:
        raise UsageError("--workers goes with --jsonl (for Parquet in parallel, run the "
                         "chatformats.ray stage on Ray Data)")
    source = args.parquet
    if args.output is not None and args.output != "-":
        try:
            if os.path.samefile(source, args.output):
                raise UsageError("the output file is the input file")
        except OSError:
            pass
    flagged = [0]

    class Counting(AuditStage):  # counts the rows with findings as the run goes
        def render_rows(self, cells: Any, row_variables: Any = None) -> Any:
            outputs, errors = super().render_rows(cells, row_variables)
            flagged[0] += sum(value not in (None, "[]") for value in outputs[0])
            return outputs, errors

    common: dict[str, Any] = dict(variables_column=args.variables_column,
                                  overrides=dict(opts.variables),
                                  generation_prompt=True if opts.generation_prompt else None,
                                  error_column=args.error_column, now=opts.now)
    ids_path = None if audit else getattr(args, "ids", None)
    try:
        if ids_path is not None:
            from ..ray import IdsStage

            tokenizer = _load_tokenizer(ids_path)  # once, here: a bad file fails before the run
            stage: Any = IdsStage(opts.format, lambda: tokenizer, opts.layer,
                                  args.messages_column, **common)
        else:
            stage = (Counting if audit else RenderStage)(
                opts.format, opts.layer, args.messages_column, args.output_column, **common)
    except ValueError as exc:  # the same name for two columns
        raise UsageError(str(exc)) from None
    total = None
    if _progress_enabled(args):
        try:
            total = _parquet.pyarrow_parquet().ParquetFile(source).metadata.num_rows
        except Exception:  # noqa: BLE001 — the run itself reports what is wrong
            pass
    progress = _Progress(_progress_enabled(args), total, "rows")
    done = [0, 0]

    def on_batch(summary: _parquet.ParquetSummary) -> None:
        progress.update(summary.rows - done[0], summary.failed - done[1])
        done[0], done[1] = summary.rows, summary.failed

    with Interrupts() as signals:
        try:
            summary = _parquet.render_parquet(
                source, args.output, stage, keep_columns=args.keep_columns,
                batch_rows=args.batch_rows or _parquet.BATCH_ROWS, on_batch=on_batch,
                deferred=signals.deferred)
        except Interrupted as exc:
            raise _Stopped(f"{source}: interrupted after {done[0]} rows; "
                           f"{_kept(args.output)}", exc.exit_status) from None
        except ChatFormatError as exc:
            raise InputError(str(exc)) from None
        except _io.ReadError as exc:
            raise _Stopped(f"{exc}; {_kept(args.output)}", EXIT_FAILED) from None
        finally:
            progress.close()
    if summary.failed:
        sys.stderr.write(
            f"chatformats: {source}: {summary.rows - summary.failed} of {summary.rows} rows "
            f"{'audited' if audit else 'rendered'}, {summary.failed} failed:\n")
        for row, error in summary.failures:
            sys.stderr.write(f"  {source}: row {row}: {error}\n")
        if summary.failed > len(summary.failures):
            sys.stderr.write(f"  ... and {summary.failed - len(summary.failures)} more (each has "
                             f"its error in the {args.error_column!r} column)\n")
        return EXIT_FAILED
    if audit and flagged[0]:
        sys.stderr.write(f"chatformats: {source}: {flagged[0]} of {summary.rows} rows hold control "
                         f"strings of {opts.format} in input text (see the "
                         f"{args.output_column!r} column)\n")
        return EXIT_FINDINGS
    if progress.enabled:
        sys.stderr.write(f"chatformats: {source}: {summary.rows} rows "
                         f"{'audited' if audit else 'rendered'}\n")
    return EXIT_OK


def audit_parquet(args: argparse.Namespace) -> int:
    """``audit FORMAT --parquet IN [-o OUT]``."""
    from .conversation import _options, _ported

    if args.file is not None:
        args.audit_parser.error("give FILE or --parquet IN (one of them)")  # exits with status 2
    fmt = _ported(args.format)
    return render_parquet(args, _options(args, fmt), audit=True)


def _kept(output: str | None) -> str:
    if output in (None, "-"):
        return "the output on stdout is incomplete"
    return f"{output} was left unchanged"
