"""The summary of a run: geometric means and minima of each ratio, the scaling ratios, the
targets and whether each is met; and the one-line log of a measured workload."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence

from . import workloads as W
from .common import COST_TARGETS, IMPORT_MAX_MS, LINEAR_MAX, RATIOS, SERIES, TARGETS

def describe(result: Dict[str, Any]) -> str:
    parts = [f"{result['format']:>24} {result['workload']:<17}"]
    for name, info in result["engines"].items():
        st = info.get("status")
        if st == "ok" and "median_s" in info:
            parts.append(f"{name} {info['median_s'] * 1e3:.3f}ms")
        elif st == "capped":
            parts.append(f"{name} capped(~{info['estimate_s']:.0f}s)")
        else:
            parts.append(f"{name} {st}: {info.get('why', '')[:80]}")
    parts.append(" ".join(f"{k}={v:.1f}" for k, v in result.get("ratios", {}).items()))
    if result.get("warning"):
        parts.append("WARNING " + result["warning"])
    return " | ".join(parts)


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def summarise(report: Dict[str, Any]) -> Dict[str, Any]:
    """Geometric means, minima, scaling ratios, the targets."""
    out: Dict[str, Any] = {"ratios": {}, "scaling": {}, "scaling_batched": {}, "targets": {}, "problems": []}
    for res in report["results"]:
        for name, info in res["engines"].items():
            if info.get("status") not in ("ok", "capped"):
                out["problems"].append(f"{res['format']} {res['workload']} {name}: {info.get('status')} {info.get('why', '')}")
    for label, _, _ in RATIOS:
        # The targets speak of the workloads; tool_trace_1000 and tool_trace_10000 only
        # measure scaling and are reported, not counted.
        values = [(r["format"], r["workload"], r["ratios"][label]) for r in report["results"]
                  if label in r.get("ratios", {}) and r["workload"] in W.TARGET_WORKLOADS]
        if values:
            worst = min(values, key=lambda v: v[2])
            target = TARGETS.get(label, (0.0, 0.0))[1]
            out["ratios"][label] = {"geomean": geomean([v[2] for v in values]), "min": worst[2],
                                    "below_min_target": [f"{f} {w} {v:.1f}" for f, w, v in values if v < target],
                                    "min_at": f"{worst[0]} {worst[1]}", "count": len(values)}
    for res_fmt in report["formats"]:
        for series, names in SERIES.items():
            small, big = (("chat_1000", "chat_10000") if series == "chat" else ("tool_trace_1000", "tool_trace_10000"))
            a = next((r for r in report["results"] if r["format"] == res_fmt and r["workload"] == small), None)
            b = next((r for r in report["results"] if r["format"] == res_fmt and r["workload"] == big), None)
            if not a or not b:
                continue
            if a.get("output_copy_s") and b.get("output_copy_s"):
                out["scaling_batched"].setdefault(series, {}).setdefault(res_fmt, {})["output copy"] = (
                    b["output_copy_s"] / a["output_copy_s"])
            for key, table in (("single_median_s", out["scaling"]), ("median_s", out["scaling_batched"])):
                for name in b["engines"]:
                    ia, ib = a["engines"].get(name, {}), b["engines"].get(name, {})
                    value: Any
                    if key == "single_median_s" and "scaling_paired" in ib:
                        value = ib["scaling_paired"]
                    elif key in ia and key in ib:
                        value = ib[key] / ia[key]
                    elif key in ia and ib.get("status") == "capped":
                        value = f"capped (est. {ib['estimate_s'] / ia[key]:.0f})"
                    else:
                        continue
                    table.setdefault(series, {}).setdefault(res_fmt, {})[name] = value
    # The ratio no engine that writes the output can beat: the reference engine's time over one
    # copy of the output.  Where it is under the minimum target, the target cannot be met there.
    ceilings: Dict[str, List[str]] = {}
    for label, num, _ in RATIOS:
        min_target = TARGETS.get(label, (0.0, 0.0))[1]
        for r in report["results"]:
            info = r["engines"].get(num, {})
            if r["workload"] in W.TARGET_WORKLOADS and r.get("output_copy_s") and "median_s" in info:
                ceiling = info["median_s"] / r["output_copy_s"]
                if ceiling < min_target:
                    ceilings.setdefault(label, []).append(f"{r['format']} {r['workload']} {ceiling:.1f}")
    out["ceilings"] = ceilings
    for label, (geo_target, min_target) in TARGETS.items():
        r = out["ratios"].get(label)
        if r:
            out["targets"][label] = {"geomean": r["geomean"], "geomean_target": geo_target, "count": r["count"],
                                     "below": r["below_min_target"], "unreachable": ceilings.get(label, []),
                                     "min": r["min"], "min_target": min_target, "min_at": r["min_at"],
                                     "met": r["geomean"] >= geo_target and r["min"] >= min_target}
    # Costs (lower is better): spans on and off, on every workload measured.
    for label, most in COST_TARGETS.items():
        values = [(r["format"], r["workload"], r["ratios"][label]) for r in report["results"]
                  if label in r.get("ratios", {})]
        if values:
            worst = max(values, key=lambda v: v[2])
            out["targets"][label] = {"max": worst[2], "at": f"{worst[0]} {worst[1]}", "target": most,
                                     "count": len(values), "geomean": geomean([v[2] for v in values]),
                                     "above": [f"{f} {w} {v:.2f}" for f, w, v in values if v > most],
                                     "met": worst[2] <= most}
    worst_scaling = [(fmt, series, v) for series, table in out["scaling"].items() for fmt, engines in table.items()
                     for name, v in engines.items() if name == "chatformats" and isinstance(v, float)]
    if worst_scaling:
        w = max(worst_scaling, key=lambda x: x[2])
        out["targets"]["linear"] = {"max": w[2], "at": f"{w[0]} {w[1]}", "target": LINEAR_MAX, "met": w[2] <= LINEAR_MAX}
    worst_batched = [(fmt, series, v) for series, table in out["scaling_batched"].items() for fmt, engines in table.items()
                     for name, v in engines.items() if name == "chatformats" and isinstance(v, float)]
    if worst_batched:
        w = max(worst_batched, key=lambda x: x[2])
        out["targets"]["linear_batched"] = {"max": w[2], "at": f"{w[0]} {w[1]}", "target": LINEAR_MAX,
                                            "met": w[2] <= LINEAR_MAX}
    imp = report.get("import", {})
    if "chatformats" in imp and "median_ms" in imp["chatformats"]:
        out["targets"]["import"] = {"ms": imp["chatformats"]["median_ms"], "cpu_ms": imp["chatformats"]["cpu_median_ms"],
                                    "target": IMPORT_MAX_MS, "met": imp["chatformats"]["cpu_median_ms"] <= IMPORT_MAX_MS}
    return out

