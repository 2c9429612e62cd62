"""One format x workload measured: the correctness run against the reference, the interleaved
timing rounds, the single cold renders at the scaling sizes, the output-copy floor and the paired
ratios (``run.py``'s docstring describes the method)."""

from __future__ import annotations

import argparse
import statistics
from typing import Any, Dict, List, Optional, Tuple

from . import engines as E
from . import workloads as W
from .common import RATIOS, SCALING_SIZES, SERIES, SERIES_OF, sha
from .manifest import manifest_entry
from . import timing as T

def paired_scaling(fmt: str, series: str, big: Dict[str, Any], built: Dict[str, E.Engine],
                    fast: List[str], result: Dict[str, Any], opts: argparse.Namespace) -> None:
    """time(10,000)/time(1,000) from single calls of the two sizes alternating, in the same phase
    of the run: the median of the paired ratios, for every engine fast enough to be called
    singly (slow engines keep the ratio of their medians at each size).

    Timing the two sizes minutes apart made the ratio depend on the heap and cache state each
    phase happened to start from (qwen3-tool-agent's chat: 10.1 in one run, 13.5 in another,
    with the same code); alternating them gives both sizes the same state."""
    small_wl = next(wl for wl in SERIES[series] if W.WORKLOADS[wl][1] == SCALING_SIZES[0])
    small = W.generate(small_wl, fmt)
    small["variables"] = E.variables(fmt, small)
    for n in fast:
        pairs: List[Tuple[float, float]] = []
        for _ in range(opts.single_calls):
            pairs.append((T.cold_call(built[n], small), T.cold_call(built[n], big)))
            if sum(a + b for a, b in pairs) > opts.budget / 2 and len(pairs) >= 3:
                break
        result["engines"][n]["scaling_paired"] = statistics.median(b / a for a, b in pairs)
        result["engines"][n]["scaling_pairs"] = len(pairs)
        result["engines"][n]["scaling_small_median_s"] = statistics.median(a for a, _ in pairs)
        result["engines"][n]["scaling_big_median_s"] = statistics.median(b for _, b in pairs)


def bench_one(fmt: str, wl: str, built: Dict[str, E.Engine], manifest: Dict[str, Any],
              history: Dict[Tuple[str, str], Dict[int, float]], opts: argparse.Namespace) -> Dict[str, Any]:
    data = W.generate(wl, fmt)
    data["variables"] = E.variables(fmt, data)
    entry = manifest_entry(manifest, wl, fmt)
    result: Dict[str, Any] = {"format": fmt, "workload": wl, "messages": len(data["messages"]),
                              "input_sha256": W.digest({k: v for k, v in data.items() if k != "variables"}),
                              "engines": {}}
    if entry.get("input_sha256") and entry["input_sha256"] != result["input_sha256"]:
        result["warning"] = "workload differs from the manifest"
    size = W.WORKLOADS[wl][1]
    series = SERIES_OF.get(wl)

    # 1. correctness run (also the first timing sample)
    outputs: Dict[str, str] = {}
    first: Dict[str, float] = {}
    for name, engine in built.items():
        info: Dict[str, Any] = {}
        result["engines"][name] = info
        est = T.estimate(history.get((series, name), {}), size) if series else None
        if est is not None and est > opts.cap and not name.startswith("chatformats"):
            info.update(status="capped", estimate_s=est)
            continue
        out, elapsed, error = T.call(engine, data)
        if out is None:
            info.update(status="error", why=error)
            continue
        outputs[name] = out
        first[name] = elapsed
        info.update(status="ok", chars=len(out))
    reference = outputs.get("jinja2")
    ref_sha = sha(reference) if reference is not None else entry.get("reference_sha256")
    if reference is not None and entry.get("reference_sha256") and sha(reference) != entry["reference_sha256"]:
        result["warning"] = "jinja2's output differs from the manifest's reference sha256"
    result["reference"] = "jinja2" if reference is not None else ("manifest sha256" if ref_sha else "none")
    for name, out in outputs.items():
        info = result["engines"][name]
        if ref_sha is None:
            info.update(status="unverified")
        elif sha(out) != ref_sha:
            info.update(status="mismatch", why=first_difference(reference, out) if reference else
                        "sha256 differs from the manifest's reference")
    timed = [n for n in built if result["engines"][n].get("status") == "ok"]

    # 2. interleaved rounds
    samples: Dict[str, List[float]] = {n: [] for n in timed}
    slow = [n for n in timed if first[n] > opts.slow]
    fast = [n for n in timed if n not in slow]
    batch = {n: max(1, int(opts.batch / max(first[n], 1e-7))) for n in fast}
    if fast:
        # a warm-up batch: the first call paid for caches and lazy imports
        for n in fast:
            first[n] = T.batch(built[n], data, min(batch[n], max(1, batch[n] // 4)))
            batch[n] = max(1, int(opts.batch / max(first[n], 1e-7)))
    per_round = sum(first[n] * batch[n] for n in fast)
    rounds = opts.rounds
    if per_round > 0 and per_round * rounds > opts.budget:
        rounds = max(opts.min_rounds, int(opts.budget / per_round))
    for r in range(rounds):
        order = fast[r % len(fast):] + fast[:r % len(fast)] if fast else []
        for n in order:
            samples[n].append(T.batch(built[n], data, batch[n]))
    for n in slow:
        samples[n].append(first[n])
        for _ in range(opts.slow_rounds if first[n] < 5 * opts.slow else 0):
            _, elapsed, _ = T.call(built[n], data)
            samples[n].append(elapsed)
    for n in timed:
        info = result["engines"][n]
        info.update(median_s=statistics.median(samples[n]), samples=len(samples[n]),
                    calls_per_sample=batch.get(n, 1), rounds=len(samples[n]))
        if series:
            history.setdefault((series, n), {})[size] = info["median_s"]
    for n, info in result["engines"].items():
        if info.get("status") == "capped" and series:
            history.setdefault((series, n), {})[size] = info["estimate_s"]

    # Scaling sizes: every engine also timed one call at a time, each starting from a cold core
    # cache, the same way at 1,000 and at 10,000 messages.  Back-to-back renders of one
    # 1,000-message conversation (0.5 MB of text in, 1.7 MB out) keep it in the core's own cache;
    # a 10,000-message one (4.7 MB in, 17 MB out) cannot be, so batches compare a warm render
    # with a cold one.  A server renders each request from memory, not from cache.
    if size in SCALING_SIZES and series:
        singles: Dict[str, List[float]] = {n: (list(samples[n]) if n in slow else []) for n in timed}
        for _ in range(opts.single_calls):
            for n in fast:
                if sum(singles[n]) < opts.budget / 2 or len(singles[n]) < 3:
                    singles[n].append(T.cold_call(built[n], data))
        for n in timed:
            result["engines"][n]["single_median_s"] = statistics.median(singles[n])
            result["engines"][n]["single_calls"] = len(singles[n])
        if size == SCALING_SIZES[-1]:
            paired_scaling(fmt, series, data, built, fast, result, opts)

    # The floor no engine can beat: copying the output once (joining its two halves).
    if reference is not None or outputs:
        text = reference if reference is not None else next(iter(outputs.values()))
        halves = (text[:len(text) // 2], text[len(text) // 2:])
        join = "".join
        copies = max(1, int(opts.batch / max(1e-7, T.batch(lambda _: join(halves), data, 1))))
        result["output_copy_s"] = statistics.median(
            T.batch(lambda _: join(halves), data, copies) for _ in range(max(3, opts.min_rounds)))

    # paired ratios
    ratios: Dict[str, Any] = {}
    for label, num, den in RATIOS:
        if num in samples and den in samples and samples[num] and samples[den]:
            if num in fast and den in fast:
                paired = [a / b for a, b in zip(samples[num], samples[den])]
                ratios[label] = statistics.median(paired)
            else:
                ratios[label] = statistics.median(samples[num]) / statistics.median(samples[den])
    result["ratios"] = ratios
    return result


def first_difference(expected: Optional[str], got: str) -> str:
    if expected is None:
        return "differs"
    i = next((k for k, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    return (f"differs at character {i} (reference {len(expected)} chars, got {len(got)}): "
            f"reference {expected[max(0, i - 30):i + 30]!r}, got {got[max(0, i - 30):i + 30]!r}")
