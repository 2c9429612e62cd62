"""Throughput beyond one process: ``python -m benchmarks.distributed [--rows N]``.

Not part of the default benchmark run nor of the tests (it needs the ``ray`` and ``parquet``
extras and takes minutes).  On one SFT corpus (``--rows`` conversations, default 200,000, made
by :func:`corpus` from the workload generator), in one run:

1. **The Ray Data stage against ``ChatTemplateStage``'s path.**  ``chatformats.ray.RenderStage``
   (pipeline layer, ``generation_prompt="auto"``) against what ``ray.data.llm``'s
   ``ChatTemplateStage`` does per row: ``json.loads`` of the row and transformers'
   ``apply_chat_template(messages, tools=..., tokenize=False, add_generation_prompt=<last
   message is a user's>, continue_final_message=<not>)`` on a tokenizer built in the worker
   (``chatformats.verify.transformers_tokenizer``: no download; ``ChatTemplateStage`` downloads
   the model's tokenizer files on every node, which is not timed here).  Each engine is timed in
   one process without Ray (CPU time of the batch calls) and on Ray Data in local mode with one
   and with two actors (wall time of the whole ``map_batches``, actor start included), all on
   ``pyarrow`` batches of 1,024 rows, and the workers' CPU time of their batch calls (which
   the machine's other load does not inflate).  Before timing, both engines render the first 2,000 rows
   and must agree on every one (the same prompt, or both fail).
2. **The Parquet CLI against JSONL.**  ``chatformats render FORMAT --jsonl`` (one process and
   ``--workers 2``) and ``--parquet`` on the same conversations (a JSONL file, and a Parquet
   file whose column holds each line's text), wall time of the command; the two outputs must
   hold the same prompts.

Rows per second are printed as a Markdown table (and written as JSON with ``--json PATH``).
The machine's load is printed with them: on a shared machine, wall times move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Dict, List

from . import workloads as W
from .machine import machine

FORMAT = "qwen3-instruct-2507"
NOW = datetime(2026, 3, 7, 9, 30)
BATCH = 1024
BLOCK = 4096
CHECK_ROWS = 2000


def corpus(rows: int, fmt: str = FORMAT, distinct: int = 4000) -> List[str]:
    """``rows`` conversations as JSON text (``{"messages": [...], "tools": [...]?}``): nine in ten
    a short chat (a system message and three user turns, each its own seed of the workload
    generator) closed by an assistant answer, one in ten a tool agent (five tools, eight tool
    calls, a final answer with reasoning).  ``distinct`` conversations are generated (the
    generator takes ~0.1-0.3 ms each) and reused in turn, each row's final answer ending with
    the row's number, so no two rows are the same.  Deterministic."""
    pool = []
    for i in range(min(rows, distinct)):
        if i % 10 == 9:
            data = W.generate("tool_agent", fmt, seed=i)
        else:
            data = W.generate("short_chat", fmt, seed=i)
            data["messages"].append({"role": "assistant", "content": W._text(_rng(i), 40, 600)})
        pool.append(data)
    out = []
    for i in range(rows):
        data = dict(pool[i % len(pool)])
        last = dict(data["messages"][-1])
        last["content"] = f"{last['content']} (#{i})"
        data["messages"] = data["messages"][:-1] + [last]
        out.append(json.dumps(data, ensure_ascii=False))
    return out


def _rng(i: int) -> Any:
    import random

    return random.Random(W.SEED + i)


class ChatTemplatePath:
    """``ChatTemplateStage``'s work per row (see the module docstring), as a Ray Data callable
    class: the tokenizer is built when the actor starts."""

    def __init__(self, format: str, column: str = "conversation") -> None:
        from chatformats import verify

        self.tokenizer = verify.transformers_tokenizer(format)
        self.column = column

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        prompts: List[Any] = []
        errors: List[Any] = []
        for cell in batch.column(self.column).to_pylist():
            try:
                row = json.loads(cell)
                conversation = row["messages"]
                add = conversation[-1]["role"] == "user"
                prompts.append(self.tokenizer.apply_chat_template(
                    conversation, tools=row.get("tools"), tokenize=False,
                    add_generation_prompt=add, continue_final_message=not add))
                errors.append(None)
            except Exception as exc:  # noqa: BLE001 — a row's failure, as the stage keeps it
                prompts.append(None)
                errors.append(f"{type(exc).__name__}: {exc}")
        return (batch.append_column("prompt", pa.array(prompts, type=pa.large_string()))
                .append_column("error", pa.array(errors, type=pa.string())))


class Timed:
    """An engine (a callable class and its keyword arguments) with the CPU time of each batch
    call recorded in a ``cpu_seconds`` column (the batch's time spread over its rows), so the
    workers' CPU time adds up after the run whatever else the machine is doing."""

    def __init__(self, engine: Any, kwargs: Dict[str, Any]) -> None:
        self.engine = engine(**kwargs)

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        start = time.process_time()
        out = self.engine(batch)
        seconds = time.process_time() - start
        return out.append_column("cpu_seconds", pa.array([seconds / max(batch.num_rows, 1)]
                                                         * batch.num_rows, type=pa.float64()))


def _engines(fmt: str) -> Dict[str, Any]:
    from chatformats.ray import RenderStage

    return {
        "chatformats": (RenderStage, dict(format=fmt, column="conversation",
                                          generation_prompt="auto", now=NOW)),
        "ChatTemplateStage path": (ChatTemplatePath, dict(format=fmt, column="conversation")),
    }


def _table(lines: List[str]) -> Any:
    import pyarrow as pa

    return pa.table({"id": list(range(len(lines))), "conversation": lines})


def check(table: Any, fmt: str) -> int:
    """Both engines on the first rows: the number that agree (all of them, or the run stops)."""
    sample = table.slice(0, CHECK_ROWS)
    outputs = [cls(**kwargs)(sample) for cls, kwargs in _engines(fmt).values()]
    a, b = outputs
    for i, (pa_, pb, ea, eb) in enumerate(zip(a.column("prompt").to_pylist(),
                                              b.column("prompt").to_pylist(),
                                              a.column("error").to_pylist(),
                                              b.column("error").to_pylist())):
        if pa_ != pb or (ea is None) != (eb is None):
            raise SystemExit(f"row {i}: the engines differ: {ea or pa_[:200]!r} / {eb or pb[:200]!r}")
    return sample.num_rows


def in_process(table: Any, fmt: str) -> Dict[str, float]:
    """Rows per CPU second of each engine's batch calls, in this process."""
    result = {}
    for name, (cls, kwargs) in _engines(fmt).items():
        engine = cls(**kwargs)
        start = time.process_time()
        for offset in range(0, table.num_rows, BATCH):
            engine(table.slice(offset, BATCH))
        result[name] = table.num_rows / (time.process_time() - start)
    return result


def on_ray(table: Any, fmt: str, sizes: List[int]) -> Dict[str, Dict[int, Dict[str, float]]]:
    """Per engine and actor count, on Ray Data in local mode: rows per wall second of the whole
    ``map_batches`` (``wall``), and rows per CPU second of the workers' batch calls (``cpu``)."""
    import ray

    ray.init(num_cpus=max(sizes), include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        blocks = [table.slice(i, BLOCK) for i in range(0, table.num_rows, BLOCK)]
        result: Dict[str, Dict[int, Dict[str, float]]] = {}
        for size in sizes:
            for name, (cls, kwargs) in _engines(fmt).items():
                ds = ray.data.from_arrow(blocks).map_batches(
                    Timed, fn_constructor_kwargs={"engine": cls, "kwargs": kwargs},
                    batch_format="pyarrow", batch_size=BATCH,
                    compute=ray.data.ActorPoolStrategy(size=size), num_cpus=1)
                start = time.perf_counter()
                done = ds.materialize()
                seconds = time.perf_counter() - start
                assert done.count() == table.num_rows
                cpu = done.sum("cpu_seconds")
                result.setdefault(name, {})[size] = {"wall": table.num_rows / seconds,
                                                     "cpu": table.num_rows / cpu}
                _log(f"ray {name} x{size}: {table.num_rows / seconds:,.0f} rows/s, "
                     f"{table.num_rows / cpu:,.0f} rows/CPU-s in the workers")
                del done
    finally:
        ray.shutdown()
    return result


def cli(lines: List[str], fmt: str) -> Dict[str, Dict[str, float]]:
    """Rows per wall second of ``chatformats render`` on JSONL and on Parquet (``wall``), and per
    CPU second of the command and its worker processes (``cpu``)."""
    import resource
    import pyarrow as pa
    import pyarrow.parquet as pq

    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        jsonl, parquet = Path(tmp, "in.jsonl"), Path(tmp, "in.parquet")
        jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
        pq.write_table(pa.table({"messages": lines}), parquet, row_group_size=BLOCK)
        runs = {
            "render --jsonl": ["--jsonl", str(jsonl), "-o", str(Path(tmp, "out.jsonl"))],
            "render --jsonl --workers 2": ["--jsonl", str(jsonl), "-o",
                                           str(Path(tmp, "out2.jsonl")), "--workers", "2"],
            "render --parquet": ["--parquet", str(parquet), "-o", str(Path(tmp, "out.parquet"))],
        }
        for name, args in runs.items():
            command = [sys.executable, "-m", "chatformats", "render", fmt, *args,
                       "--now", NOW.isoformat(), "--no-progress"]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0:
                raise SystemExit(f"{name} failed: {done.stderr[-2000:]}")
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            result[name] = {"wall": len(lines) / seconds, "cpu": len(lines) / cpu}
            _log(f"{name}: {len(lines) / seconds:,.0f} rows/s, {len(lines) / cpu:,.0f} rows/CPU-s")
        from_jsonl = [json.loads(line).get("prompt")
                      for line in Path(tmp, "out.jsonl").read_text(encoding="utf-8").splitlines()]
        from_parquet = pq.read_table(Path(tmp, "out.parquet")).column("prompt").to_pylist()
        if from_jsonl != from_parquet:
            raise SystemExit("the JSONL and Parquet runs rendered different prompts")
    return result


def _log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def main(argv: Any = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.distributed",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000, help="conversations (default 200,000)")
    parser.add_argument("--format", default=FORMAT, help=f"the format (default {FORMAT})")
    parser.add_argument("--actors", type=int, nargs="+", default=[1, 2],
                        help="Ray actor counts to time (default: 1 2)")
    parser.add_argument("--skip-ray", action="store_true", help="no Ray Data timings")
    parser.add_argument("--skip-cli", action="store_true", help="no command-line timings")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)

    report: Dict[str, Any] = {"machine": machine(), "rows": args.rows, "format": args.format}
    start = time.perf_counter()
    lines = corpus(args.rows, args.format)
    report["corpus_seconds"] = time.perf_counter() - start
    report["corpus_mb"] = sum(map(len, lines)) / 1e6
    _log(f"corpus: {args.rows} conversations, {report['corpus_mb']:.0f} MB of JSON, "
         f"{report['corpus_seconds']:.1f} s")
    table = _table(lines)
    report["checked_rows"] = check(table, args.format)
    report["in_process"] = in_process(table.slice(0, min(args.rows, 20_000)), args.format)
    if not args.skip_ray:
        report["ray"] = on_ray(table, args.format, args.actors)
    if not args.skip_cli:
        report["cli"] = cli(lines, args.format)
    report["load_average_at_end"] = os.getloadavg()
    print(markdown(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    return 0


def markdown(report: Dict[str, Any]) -> str:
    start = report["machine"].get("load_average_at_start")
    lines = [f"{report['rows']:,} conversations ({report['corpus_mb']:.0f} MB of JSON), format "
             f"{report['format']}; load average {tuple(round(x, 1) for x in start)} at the start, "
             f"{tuple(round(x, 1) for x in report['load_average_at_end'])} at the end", ""]
    engines = list(report["in_process"])
    ray_runs = report.get("ray", {})
    sizes = sorted({size for runs in ray_runs.values() for size in runs})
    header = "| engine | one process, no Ray (rows/CPU-s) |"
    rule = "|---|---:|"
    for size in sizes:
        actors = f"{size} actor{'s' if size > 1 else ''}"
        header += f" Ray, {actors}: rows/s (wall) | Ray, {actors}: rows/CPU-s (workers) |"
        rule += "---:|---:|"
    lines += [header, rule]
    for name in engines:
        cells = "".join(f" {ray_runs[name][size]['wall']:,.0f} | {ray_runs[name][size]['cpu']:,.0f} |"
                        for size in sizes if name in ray_runs)
        lines.append(f"| {name} | {report['in_process'][name]:,.0f} |{cells}")
    if len(engines) == 2:
        a, b = (report["in_process"][e] for e in engines)
        lines += ["", f"{engines[0]} / {engines[1]}, one process: {a / b:.1f}x"]
        for size in sizes:
            if all(name in ray_runs for name in engines):
                wa, wb = (ray_runs[e][size]["wall"] for e in engines)
                ca, cb = (ray_runs[e][size]["cpu"] for e in engines)
                lines.append(f"{engines[0]} / {engines[1]}, Ray with {size}: {wa / wb:.1f}x "
                             f"(wall), {ca / cb:.1f}x (worker CPU)")
    if "cli" in report:
        lines += ["", "| command | rows/s (wall) | rows/CPU-s (the command and its workers) |",
                  "|---|---:|---:|"]
        lines += [f"| `{name}` | {value['wall']:,.0f} | {value['cpu']:,.0f} |"
                  for name, value in report["cli"].items()]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
