"""Run the whole comparison and write the results: ``python -m benchmarks`` (``--quick`` for a
fast subset).  ``python -m benchmarks --help`` lists the options.

For every ported format and every workload (``benchmarks/workloads.py``):

1. **Correctness first.**  Every engine renders the workload once; its output must equal the
   reference (jinja2 in transformers' environment) byte for byte, and the reference's sha256
   must equal the one recorded in ``benchmarks/workloads/manifest.json`` (so the workload and
   the reference are what they were when the manifest was written).  An engine that fails or
   differs is reported with the reason and not timed.  Where jinja2 itself is capped (see 3),
   the other engines are checked against the manifest's recorded reference sha256.
2. **Timing, interleaved.**  ``rounds`` rounds; in each round every engine runs one batch (as
   many calls as fill ``--batch`` seconds, at least one), the engines in a rotated order, with
   ``gc`` collected before and disabled during each batch (as ``timeit`` does).  Per-call time is
   the median over rounds; each ratio (jinja2/chatformats, ...) is the median of the ratios of
   the same round, so load that changes during the run affects both sides of a ratio alike.
3. **Caps.**  Along a series (``chat_10`` ... ``chat_10000``, ``tool_trace_1000`` ...
   ``tool_trace_10000``) an engine's time at the next size is estimated from the smaller sizes
   (at least linear, the measured exponent if it is worse); an engine estimated above ``--cap``
   seconds per call is not run there and is reported as capped with the estimate.  An engine
   taking more than ``--slow`` seconds per call is timed on its correctness run plus
   ``--slow-rounds`` more calls instead of full rounds.

Then: spans off (``spans_off.py``: the plain render against each port's copy without its spans
code, the two alone and alternating); import time of ``chatformats``, ``jinja2`` and ``transformers`` in fresh interpreters
(median of many), and the peak memory of the 10,000-message render per engine (fresh
interpreter each: growth of the peak RSS during the render, and ``tracemalloc``'s peak of the
Python heap).  Writes ``results.json``, ``results.md`` and ``scaling.png`` to ``--out``
(default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import engines as E
from . import workloads as W
from .common import HERE, RESULTS, SERIES_OF, log
from .import_time import import_times
from .machine import machine
from .manifest import load_manifest, record_workloads, verify_workloads
from .measure import bench_one
from .memory import peak_memory
from .probes import minijinja_needs
from .spans_off import LABEL as SPANS_OFF, measure as spans_off
from .summary import describe, summarise

def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small workloads, few rounds, no import/memory runs")
    p.add_argument("--formats", nargs="*", help="formats to run (default: every ported format)")
    p.add_argument("--workloads", nargs="*", help="workloads to run (default: all; --quick: the small ones)")
    p.add_argument("--engines", nargs="*", default=list(E.ENGINES), help="engines to run")
    p.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 9; --quick 3)")
    p.add_argument("--min-rounds", type=int, default=3)
    p.add_argument("--batch", type=float, default=None, help="seconds per batch (default 0.05; --quick 0.01)")
    p.add_argument("--budget", type=float, default=8.0, help="seconds of rounds per format x workload")
    p.add_argument("--cap", type=float, default=30.0, help="skip an engine estimated slower than this (s/call)")
    p.add_argument("--slow", type=float, default=1.0, help="an engine slower than this (s/call) gets few calls")
    p.add_argument("--slow-rounds", type=int, default=2,
                   help="extra calls of a slow engine (none beyond its correctness run if over 5x --slow)")
    p.add_argument("--single-calls", type=int, default=9,
                   help="single timed calls per engine at the scaling sizes (1,000 and 10,000 messages)")
    p.add_argument("--spans-off-rounds", type=int, default=21,
                   help="rounds of the spans-off check (spans_off.py; 0: skip it)")
    p.add_argument("--import-repeats", type=int, default=21)
    p.add_argument("--no-import", action="store_true")
    p.add_argument("--no-memory", action="store_true")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--docs", "--readme", dest="docs", action="store_true",
                   help="also rewrite the summary section of docs/benchmarks.md (between its markers) from this run")
    p.add_argument("--out", type=Path, default=None, help="results directory (default benchmarks/results; --quick: none)")
    p.add_argument("--record-workloads", action="store_true",
                   help="write benchmarks/workloads/manifest.json (+ the saved small workloads) and exit")
    p.add_argument("--record-references", action="store_true",
                   help="with --record-workloads: also render every jinja2 reference (slow: minutes)")
    p.add_argument("--verify-workloads", action="store_true", help="regenerate and check against the manifest, then exit")
    opts = p.parse_args(argv)
    if opts.rounds is None:
        opts.rounds = 3 if opts.quick else 9
    if opts.batch is None:
        opts.batch = 0.01 if opts.quick else 0.03
    if opts.quick:
        opts.no_import = opts.no_import or True
        opts.no_memory = opts.no_memory or True
        opts.budget = min(opts.budget, 2.0)
    return opts


def ported_formats(selected: Optional[Sequence[str]]) -> Tuple[List[str], Dict[str, str]]:
    import chatformats

    names = list(selected) if selected else chatformats.formats()
    for name in names:
        chatformats.get_format(name)  # an unknown name fails here
    return list(names), {}


def run(argv: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    opts = parse_args(argv)
    formats, skipped = ported_formats(opts.formats)
    workloads = list(opts.workloads) if opts.workloads else (
        list(W.QUICK_WORKLOADS) if opts.quick else list(W.WORKLOADS))
    if opts.verify_workloads:
        bad = verify_workloads(formats, workloads)
        for line in bad:
            log("MISMATCH", line)
        log("workloads match the manifest" if not bad else f"{len(bad)} workloads differ")
        return {"verify": bad}
    if opts.record_workloads:
        record_workloads(formats, workloads, opts.record_references)
        return {}

    started = time.time()
    E.fix_clock()
    manifest = load_manifest()
    report: Dict[str, Any] = {"machine": machine(), "options": {k: str(v) for k, v in vars(opts).items()},
                              "formats": formats, "skipped_formats": skipped, "workloads": workloads,
                              "results": [], "engine_notes": {}}
    history: Dict[Tuple[str, str], Dict[int, float]] = {}
    order = sorted(workloads, key=lambda wl: (SERIES_OF.get(wl, ""), W.WORKLOADS[wl][1]))
    for fmt in formats:
        built: Dict[str, E.Engine] = {}
        for name in opts.engines:
            engine, why = E.build(name, fmt)
            if engine is None:
                report["engine_notes"].setdefault(fmt, {})[name] = why or "not available"
            else:
                built[name] = engine
        # Everything built so far (transformers, the compiled templates) is permanent: later
        # collections, run before every batch, only walk what the renders themselves allocate.
        gc.collect()
        gc.freeze()
        for wl in order:
            result = bench_one(fmt, wl, built, manifest, history, opts)
            report["results"].append(result)
            log(describe(result))
    if opts.spans_off_rounds and "chatformats" in opts.engines:
        log("spans off ...")
        measured = spans_off(formats, workloads, opts.spans_off_rounds, 0.005 if opts.quick else 0.02)
        for result in report["results"]:
            value = measured.get(result["format"], {}).get(result["workload"])
            if value is not None:
                result.setdefault("ratios", {})[SPANS_OFF] = value
    if "minijinja" in opts.engines:
        report["minijinja_needs"] = minijinja_needs(formats)
    report["seconds"] = time.time() - started
    if not opts.no_import:
        log("import times ...")
        report["import"] = import_times(opts.import_repeats)
    if not opts.no_memory and "chat_10000" in workloads:
        log("peak memory of the 10,000-message render ...")
        mem: Dict[str, Any] = {}
        for fmt in formats:
            for name in opts.engines:
                res = next((r for r in report["results"] if r["format"] == fmt and r["workload"] == "chat_10000"), None)
                status = res["engines"].get(name, {}).get("status") if res else None
                if status != "ok":
                    continue
                mem.setdefault(fmt, {})[name] = peak_memory(fmt, name, "chat_10000", skip_over=5.0)
                log(f"  {fmt} {name}: {mem[fmt][name]}")
        report["memory"] = mem
    report["load_average_at_end"] = os.getloadavg()
    report["summary"] = summarise(report)
    out = opts.out if opts.out is not None else (None if opts.quick else RESULTS)
    if out is not None:
        from . import plot as P
        from . import report as R

        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
        (out / "results.md").write_text(R.markdown(report), encoding="utf-8")
        if not opts.no_plot:
            P.plot(report, out / "scaling.png")
        log(f"wrote {out}/results.json, results.md" + ("" if opts.no_plot else ", scaling.png"))
        if opts.docs:
            page = HERE.parent / "docs" / "benchmarks.md"
            if R.update_docs(report, page):
                log(f"updated the benchmark section of {page}")
            else:
                log(f"{page} has no benchmark markers ({R.SECTION_START!r}): not updated")
    return report


def main(argv: Optional[Sequence[str]] = None) -> int:
    report = run(argv)
    if "verify" in report:
        return 1 if report["verify"] else 0
    summary = report.get("summary", {})
    for label, t in summary.get("targets", {}).items():
        log(f"target {label}: {t}")
    for p in summary.get("problems", []):
        log("PROBLEM", p)
    return 1 if summary.get("problems") else 0


if __name__ == "__main__":
    raise SystemExit(main())
