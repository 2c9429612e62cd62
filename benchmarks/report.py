"""The results as Markdown: ``results.md`` and the summary section of ``docs/benchmarks.md``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

from . import workloads as W
from .common import COST_TARGETS

from .engines import ENGINES as _ENGINE_COLUMNS
_RATIO_COLUMNS = (("jinja2/chatformats", "jinja2 / cf"), ("minijinja/chatformats", "minijinja / cf"),
                  ("transformers/chatformats.apply", "transformers / cf.apply"),
                  ("render_spans/render", "cf.spans / cf"), ("apply_spans/apply", "cf.apply_spans / cf.apply"),
                  ("spans_off/no_spans_code", "cf / cf.nospans"))


def _time(info: Dict[str, Any]) -> str:
    status = info.get("status")
    if status == "ok" and "median_s" in info:
        s = info["median_s"]
        text = f"{s * 1e6:,.0f} µs" if s < 1e-3 * 10 else (f"{s * 1e3:,.1f} ms" if s < 10 else f"{s:,.1f} s")
        return text + ("¹" if info.get("samples", 0) < 3 else "")
    if status == "capped":
        return f"capped (est. {info['estimate_s']:,.0f} s)"
    if status is None:
        return "—"
    return status


def _ratio(value: Any, digits: int = 1) -> str:
    if isinstance(value, float):
        return f"{value:,.{digits}f}×"
    return str(value) if value is not None else "—"


def _fmt_ms(value: float) -> str:
    return f"{value:,.1f} ms"


def summary_tables(report: Dict[str, Any]) -> str:
    """The headline tables: targets, the ratio per format x workload, scaling, import, memory."""
    s = report["summary"]
    lines: List[str] = []
    machine = report["machine"]
    lines.append(f"Machine: {machine.get('cpu', '?')}, {machine.get('cpus')} CPUs, Python {machine['python']} "
                 f"({machine['platform']}); " + ", ".join(f"{k} {v}" for k, v in machine["versions"].items() if v)
                 + f". Load average at start {', '.join(f'{x:.2f}' for x in machine.get('load_average_at_start', []))}.")
    lines.append("")
    lines.append("| target | result | met |")
    lines.append("|---|---|---|")
    t = s["targets"]
    for label in ("jinja2/chatformats", "minijinja/chatformats"):
        if label in t:
            r = dict(t[label], label_engine=label.split("/")[0])
            every = r["min_target"] > 0  # jinja2 has no per-workload target
            lines.append(f"| {label}: geometric mean ≥ {r['geomean_target']:g}×"
                         + (f", every workload ≥ {r['min_target']:g}×" if every else "")
                         + f" ({r['count']} format × workload pairs: the issue's workloads, not the two extra tool traces) "
                         f"| geometric mean {r['geomean']:.1f}×, lowest {r['min']:.1f}× ({r['min_at']})"
                         + (f"; {len(r['below'])} of {r['count']} below {r['min_target']:g}×" if every else "")
                         + (f" ({len(r['unreachable'])} of them out of any engine's reach: the "
                            f"{r['label_engine']} render takes less than {r['min_target']:g} copies of its "
                            f"output: {', '.join(r['unreachable'])})" if every and r.get("unreachable") else "")
                         + f" | {'yes' if r['met'] else '**no**'} |")
    if "linear" in t:
        r = t["linear"]
        lines.append(f"| chatformats time(10,000)/time(1,000) ≤ {r['target']:g} (single renders, the two sizes alternating, each after an untimed one, core cache emptied; median of paired ratios) "
                     f"| highest {r['max']:.1f} ({r['at']}) "
                     f"| {'yes' if r['met'] else '**no**'} |")
    if "linear_batched" in t:
        r = t["linear_batched"]
        lines.append(f"| the same from back-to-back batches (a 1,000-message render stays in the core's cache, a "
                     f"10,000-message one cannot) | highest {r['max']:.1f} ({r['at']}) "
                     f"| {'yes' if r['met'] else '**no**'} |")
    for label in ("render_spans/render", "apply_spans/apply"):
        if label in t:
            r = t[label]
            lines.append(f"| {label}: recording spans and reading `.spans` and `.assistant_spans` costs ≤ {r['target']:g}× the plain call on every workload "
                         f"| highest {r['max']:.2f}× ({r['at']}), geometric mean {r['geomean']:.2f}× over "
                         f"{r['count']} format × workload pairs"
                         + (f"; above: {', '.join(r['above'])}" if r["above"] else "")
                         + f" | {'yes' if r['met'] else '**no**'} |")
    if "spans_off/no_spans_code" in t:
        r = t["spans_off/no_spans_code"]
        lines.append(f"| spans off: the plain render ≤ {r['target']:g}× the same port without its spans code, on every workload "
                     f"| highest {r['max']:.3f}× ({r['at']}), geometric mean {r['geomean']:.3f}× over "
                     f"{r['count']} format × workload pairs"
                     + (f"; above: {', '.join(r['above'])}" if r["above"] else "")
                     + f" | {'yes' if r['met'] else '**no**'} |")
    if "import" in t:
        r = t["import"]
        lines.append(f"| `import chatformats` after `json`, `datetime` ≤ {r['target']:g} ms (CPU time) "
                     f"| {r['cpu_ms']:.2f} ms CPU, {r['ms']:.2f} ms wall "
                     f"| {'yes' if r['met'] else '**no**'} |")
    lines.append("")
    # ratio matrix
    workloads = [w for w in W.WORKLOADS if w in report["workloads"]]
    for label, title in _RATIO_COLUMNS:
        rows = [r for r in report["results"] if label in r.get("ratios", {})]
        if not rows:
            continue
        lines.append(f"**{label}** (median of same-round ratios; "
                     + ("lower is cheaper spans)" if label in COST_TARGETS else "higher is faster chatformats)"))
        lines.append("")
        lines.append("| format | " + " | ".join(workloads) + " |")
        lines.append("|---|" + "---:|" * len(workloads))
        for fmt in report["formats"]:
            cells = []
            for wl in workloads:
                res = next((r for r in report["results"] if r["format"] == fmt and r["workload"] == wl), None)
                value = res.get("ratios", {}).get(label) if res else None
                if value is None and res:
                    num = label.split("/")[0]
                    st = res["engines"].get(num, {}).get("status")
                    value = st if st and st != "ok" else None
                digits = 3 if label == "spans_off/no_spans_code" else 2 if label in COST_TARGETS else 1
                cells.append(_ratio(value, digits))
            lines.append(f"| {fmt} | " + " | ".join(cells) + " |")
        lines.append("")
    # scaling
    tables = [(series, table, "single renders, the two sizes alternating: each right after an untimed render of the same "
               "conversation by the same engine, with the core's cache emptied in between; the median of the "
               "paired ratios")
              for series, table in s["scaling"].items()]
    tables += [(series, table, "from the back-to-back batches of the timing rounds: a batch keeps a 1,000-message "
                "conversation in the core's cache; `output copy` is one copy of the rendered text, the machine's "
                "own memory scaling") for series, table in s.get("scaling_batched", {}).items()]
    for series, table, how in tables:
        lines.append(f"**time(10,000 messages) / time(1,000 messages), {series} workloads** (linear is 10; {how})")
        lines.append("")
        columns = _ENGINE_COLUMNS + ("output copy",)
        lines.append("| format | " + " | ".join(columns) + " |")
        lines.append("|---|" + "---:|" * len(columns))
        for fmt, values in table.items():
            lines.append(f"| {fmt} | " + " | ".join(_ratio(values.get(e)) if isinstance(values.get(e), float)
                                                   else (values.get(e) or "—") for e in columns) + " |")
        lines.append("")
    if report.get("import"):
        lines.append("**Import time** (a fresh interpreter that has imported `json` and `datetime`, bytecode cached; "
                     "median wall time and CPU time of the import statement)")
        lines.append("")
        lines.append("| import | wall | CPU |")
        lines.append("|---|---:|---:|")
        for label, r in report["import"].items():
            if "median_ms" in r:
                lines.append(f"| `{label}` | {_fmt_ms(r['median_ms'])} | {_fmt_ms(r['cpu_median_ms'])} |")
            else:
                lines.append(f"| `{label}` | {r} | |")
        lines.append("")
    if report.get("memory"):
        lines.append("**Peak memory of the 10,000-message render** (`chat_10000`; growth of the process's peak RSS "
                     "during one render / `tracemalloc` peak of the Python heap, fresh interpreter per cell)")
        lines.append("")
        lines.append("| format | " + " | ".join(_ENGINE_COLUMNS) + " |")
        lines.append("|---|" + "---:|" * len(_ENGINE_COLUMNS))
        for fmt, engines in report["memory"].items():
            cells = []
            for e in _ENGINE_COLUMNS:
                m = engines.get(e)
                if not m:
                    cells.append("—")
                elif "error" in m:
                    cells.append("error")
                else:
                    traced = f" / {m['tracemalloc_peak_mb']:.1f}" if "tracemalloc_peak_mb" in m else ""
                    rss = m.get("rss_peak_growth_mb")
                    cells.append(f"{rss:.1f}{traced} MB" if rss is not None else f"—{traced} MB")
            lines.append(f"| {fmt} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def markdown(report: Dict[str, Any]) -> str:
    lines = ["# Benchmark results", "", "Written by `python -m benchmarks` (see `benchmarks/README.md`).", ""]
    lines.append(summary_tables(report))
    lines.append("## Median time per render")
    lines.append("")
    lines.append("`cf` is `chatformats.render` (template layer), `cf.apply` is `chatformats.apply_chat_template` "
                 "(pipeline layer, compared with transformers). ¹ fewer than three samples (slow engine).")
    lines.append("")
    lines.append("| format | workload | messages | " + " | ".join(_ENGINE_COLUMNS) + " | output copy | "
                 + " | ".join(t for _, t in _RATIO_COLUMNS) + " |")
    lines.append("|---|---|---:|" + "---:|" * (len(_ENGINE_COLUMNS) + 1 + len(_RATIO_COLUMNS)))
    for r in report["results"]:
        cells = [_time(r["engines"].get(e, {})) for e in _ENGINE_COLUMNS]
        cells.append(_time({"status": "ok", "median_s": r["output_copy_s"], "samples": 3}) if r.get("output_copy_s") else "—")
        ratios = [_ratio(r.get("ratios", {}).get(label), 2 if label in COST_TARGETS else 1)
                  for label, _ in _RATIO_COLUMNS]
        lines.append(f"| {r['format']} | {r['workload']} | {r['messages']:,} | " + " | ".join(cells) + " | "
                     + " | ".join(ratios) + " |")
    lines.append("")
    problems = report["summary"].get("problems")
    notes = report.get("engine_notes")
    if problems or notes or report.get("skipped_formats"):
        lines.append("## Engines not timed")
        lines.append("")
        for fmt, why in report.get("skipped_formats", {}).items():
            lines.append(f"- format {fmt}: {why}")
        for fmt, engines in (notes or {}).items():
            for e, why in engines.items():
                lines.append(f"- {fmt} / {e}: {why}")
        for p in problems or []:
            lines.append(f"- {p}")
        lines.append("")
    needs = report.get("minijinja_needs")
    if needs:
        lines.append("## What the minijinja engine needs")
        lines.append("")
        lines.append("The benchmarked minijinja engine (its default `pycompat` mode, transformers' `tojson` as a "
                     "Python filter) renders every format exactly. Configured otherwise, on the short chat and the "
                     "tool agent:")
        lines.append("")
        lines.append("| format | without `pycompat` | with minijinja's own `tojson` |")
        lines.append("|---|---|---|")
        for fmt, verdicts in needs.items():
            cells = [verdicts.get("pycompat=False", "—"), verdicts.get("minijinja's tojson", "—")]
            lines.append(f"| {fmt} | " + " | ".join(c.replace("|", "\\|").replace("\n", "\\n") for c in cells) + " |")
        lines.append("")
    lines.append(f"Run took {report['seconds']:.0f} s; load average at end "
                 f"{', '.join(f'{x:.2f}' for x in report.get('load_average_at_end', []))}.")
    lines.append("")
    return "\n".join(lines)


SECTION_START = "<!-- benchmarks:start (written by python -m benchmarks --docs) -->"
SECTION_END = "<!-- benchmarks:end -->"


def docs_section(report: Dict[str, Any]) -> str:
    """The benchmark summary of ``docs/benchmarks.md`` (between the markers): the targets, the
    ratio matrices, scaling, import time and memory, with the machine and the command.  Links are
    relative to ``docs/``."""
    s = report["summary"]
    lines = [SECTION_START, ""]
    lines.append("Reproduce with `python -m pip install -e '.[bench]' && python -m benchmarks --docs` "
                 "(about ten minutes on two cores; [`benchmarks/README.md`](../benchmarks/README.md) describes "
                 "the engines, workloads and method). Full table: "
                 "[`benchmarks/results/results.md`](../benchmarks/results/results.md); "
                 "every measurement: `benchmarks/results/results.json`.")
    lines.append("")
    lines.append(summary_tables(report))
    lines.append("![Render time against conversation length, log-log, one line per engine]"
                 "(../benchmarks/results/scaling.png)")
    lines.append("")
    skipped = report.get("skipped_formats") or {}
    if skipped:
        lines.append("Not benchmarked: " + ", ".join(f"{k} ({v})" for k, v in skipped.items()) + ".")
        lines.append("")
    lines.append(SECTION_END)
    return "\n".join(lines)


def update_docs(report: Dict[str, Any], path: Path) -> bool:
    """Replace the section between the markers in ``path``; False when the markers are missing."""
    text = path.read_text(encoding="utf-8")
    start, end = text.find(SECTION_START), text.find(SECTION_END)
    if start < 0 or end < start:
        return False
    path.write_text(text[:start] + docs_section(report) + text[end + len(SECTION_END):], encoding="utf-8")
    return True
