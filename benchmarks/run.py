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

Then: import time of ``chatformats``, ``jinja2`` and ``transformers`` in fresh interpreters
(median of many), and the peak memory of the 10,000-message render per engine (fresh
interpreter each: growth of the peak RSS during the render, and ``tracemalloc``'s peak of the
Python heap).  Writes ``results.json``, ``results.md`` and ``scaling.png`` to ``--out``
(default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import engines as E
from . import workloads as W

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "workloads" / "manifest.json"
RESULTS = HERE / "results"

SERIES = {
    "chat": ("chat_10", "chat_100", "chat_1000", "chat_10000"),
    "tool_trace": ("tool_trace_1000", "tool_trace_2000", "tool_trace_10000"),
}
SCALING_SIZES = (1000, 10000)
SERIES_OF = {wl: key for key, names in SERIES.items() for wl in names}

#: Ratios: (label, numerator engine, denominator engine).
RATIOS = (
    ("jinja2/chatformats", "jinja2", "chatformats"),
    ("minijinja/chatformats", "minijinja", "chatformats"),
    ("transformers/chatformats.apply", "transformers", "chatformats.apply"),
    ("transformers/chatformats", "transformers", "chatformats"),
)

TARGETS = {
    "jinja2/chatformats": (20.0, 8.0),
    "minijinja/chatformats": (3.0, 1.5),
}
LINEAR_MAX = 11.0
IMPORT_MAX_MS = 5.0


#: The clock of every timing: the process's CPU time, which other processes on a shared machine do
#: not inflate (wall time differs from it only by the time spent waiting for a core).
CLOCK = time.process_time


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def log(*args: Any) -> None:
    print(*args, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ manifest


def load_manifest() -> Dict[str, Any]:
    if MANIFEST.exists():
        return json.loads(MANIFEST.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    return {}


def save_manifest(manifest: Dict[str, Any]) -> None:
    MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def manifest_entry(manifest: Dict[str, Any], workload: str, fmt: str) -> Dict[str, Any]:
    return manifest.get("workloads", {}).get(workload, {}).get(fmt, {})  # type: ignore[no-any-return]


def record_workloads(formats: Sequence[str], workloads: Sequence[str], references: bool) -> None:
    """Write the manifest: generator parameters, each variant's input sha256, and (with
    ``references``) the sha256 of jinja2's reference output, however long it takes."""
    manifest = load_manifest()
    manifest["generator"] = {"module": "benchmarks/workloads.py", "seed": W.SEED,
                             "canonical_json": "json.dumps(data, ensure_ascii=False, separators=(',', ':')) as UTF-8"}
    table = manifest.setdefault("workloads", {})
    if references:
        E.fix_clock()
    for wl in workloads:
        for fmt in formats:
            data = W.generate(wl, fmt)
            entry = table.setdefault(wl, {}).setdefault(fmt, {})
            entry.update(input_sha256=W.digest(data), messages=len(data["messages"]),
                         input_bytes=len(W.canonical_json(data)))
            if references:
                data["variables"] = E.variables(fmt, data)
                start = time.perf_counter()
                out = E.jinja2_engine(fmt)(data)
                entry.update(reference_sha256=sha(out), reference_chars=len(out),
                             reference_seconds=round(time.perf_counter() - start, 3))
                log(f"  reference {fmt} {wl}: {len(out)} chars in {entry['reference_seconds']} s")
            if wl in W.SAVED_WORKLOADS:
                path = HERE / "workloads" / fmt / f"{wl}.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                plain = {k: v for k, v in data.items() if k != "variables"}
                path.write_text(json.dumps(plain, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            save_manifest(manifest)


def verify_workloads(formats: Sequence[str], workloads: Sequence[str]) -> List[str]:
    """Regenerate and compare with the manifest; the list of mismatches."""
    manifest = load_manifest()
    bad = []
    for wl in workloads:
        for fmt in formats:
            entry = manifest_entry(manifest, wl, fmt)
            got = W.digest(W.generate(wl, fmt))
            if entry.get("input_sha256") != got:
                bad.append(f"{fmt} {wl}: generated {got}, manifest {entry.get('input_sha256')}")
    return bad


# ------------------------------------------------------------------ timing


def _call(engine: E.Engine, workload: Dict[str, Any]) -> Tuple[Optional[str], float, str]:
    gc.collect()
    gc.disable()
    try:
        start = CLOCK()
        out = engine(workload)
        elapsed = CLOCK() - start
    except Exception as exc:  # noqa: BLE001 — a failure is a result
        return None, 0.0, f"{type(exc).__name__}: {exc}"[:300]
    finally:
        gc.enable()
    return out, elapsed, ""


def _batch(engine: E.Engine, workload: Dict[str, Any], n: int) -> float:
    gc.collect()
    gc.disable()
    try:
        start = CLOCK()
        for _ in range(n):
            engine(workload)
        return (CLOCK() - start) / n
    finally:
        gc.enable()


_EVICT = bytearray(32 << 20)


def _evict_caches() -> None:
    """Write 32 MB, far more than a core's L1 and L2 caches (about 2 MB here), so the next
    render starts with none of its data in them."""
    _EVICT[::64] = b"\x01" * (len(_EVICT) // 64)


def _cold_call(engine: E.Engine, workload: Dict[str, Any]) -> float:
    """One call, after a collection, an untimed call of the same engine on the same input, and
    then a cache eviction (in that order: a collection walks every container and would bring a
    small workload back into the cache).

    The untimed call makes the state each timed call starts from the engine's own: without it,
    a call starts from whatever the engine before it in the round left behind.  Measured on
    qwen3-tool-agent's 10,000-message chat: the same render took 13.3 ms right after a jinja2
    render of that chat and 9.8 ms after its own (jinja2's render, about 130 ms of allocation,
    pushes the conversation out of the shared cache), while a 1,000-message render did not care
    (0.9 ms either way), so the scaling ratio depended on which engine ran before."""
    gc.collect()
    gc.disable()
    try:
        engine(workload)
        _evict_caches()
        start = CLOCK()
        engine(workload)
        return CLOCK() - start
    finally:
        gc.enable()


def _paired_scaling(fmt: str, series: str, big: Dict[str, Any], built: Dict[str, E.Engine],
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
            pairs.append((_cold_call(built[n], small), _cold_call(built[n], big)))
            if sum(a + b for a, b in pairs) > opts.budget / 2 and len(pairs) >= 3:
                break
        result["engines"][n]["scaling_paired"] = statistics.median(b / a for a, b in pairs)
        result["engines"][n]["scaling_pairs"] = len(pairs)
        result["engines"][n]["scaling_small_median_s"] = statistics.median(a for a, _ in pairs)
        result["engines"][n]["scaling_big_median_s"] = statistics.median(b for _, b in pairs)


def estimate(history: Dict[int, float], size: int) -> Optional[float]:
    """Time at ``size`` from the times at smaller sizes: at least linear in size, and the
    measured exponent between the two largest sizes if it is worse."""
    sizes = sorted(s for s in history if s < size)
    if not sizes:
        return None
    last = sizes[-1]
    exponent = 1.0
    if len(sizes) >= 2 and history[sizes[-2]] > 0:
        prev = sizes[-2]
        exponent = max(1.0, math.log(history[last] / history[prev]) / math.log(last / prev))
    return history[last] * (size / last) ** exponent


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
        est = estimate(history.get((series, name), {}), size) if series else None
        if est is not None and est > opts.cap and not name.startswith("chatformats"):
            info.update(status="capped", estimate_s=est)
            continue
        out, elapsed, error = _call(engine, data)
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
            info.update(status="mismatch", why=_first_difference(reference, out) if reference else
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
            first[n] = _batch(built[n], data, min(batch[n], max(1, batch[n] // 4)))
            batch[n] = max(1, int(opts.batch / max(first[n], 1e-7)))
    per_round = sum(first[n] * batch[n] for n in fast)
    rounds = opts.rounds
    if per_round > 0 and per_round * rounds > opts.budget:
        rounds = max(opts.min_rounds, int(opts.budget / per_round))
    for r in range(rounds):
        order = fast[r % len(fast):] + fast[:r % len(fast)] if fast else []
        for n in order:
            samples[n].append(_batch(built[n], data, batch[n]))
    for n in slow:
        samples[n].append(first[n])
        for _ in range(opts.slow_rounds if first[n] < 5 * opts.slow else 0):
            _, elapsed, _ = _call(built[n], data)
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
                    singles[n].append(_cold_call(built[n], data))
        for n in timed:
            result["engines"][n]["single_median_s"] = statistics.median(singles[n])
            result["engines"][n]["single_calls"] = len(singles[n])
        if size == SCALING_SIZES[-1]:
            _paired_scaling(fmt, series, data, built, fast, result, opts)

    # The floor no engine can beat: copying the output once (joining its two halves).
    if reference is not None or outputs:
        text = reference if reference is not None else next(iter(outputs.values()))
        halves = (text[:len(text) // 2], text[len(text) // 2:])
        join = "".join
        n = max(1, int(opts.batch / max(1e-7, _batch(lambda _: join(halves), data, 1))))
        result["output_copy_s"] = statistics.median(
            _batch(lambda _: join(halves), data, n) for _ in range(max(3, opts.min_rounds)))

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


def _first_difference(expected: Optional[str], got: str) -> str:
    if expected is None:
        return "differs"
    i = next((k for k, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    return (f"differs at character {i} (reference {len(expected)} chars, got {len(got)}): "
            f"reference {expected[max(0, i - 30):i + 30]!r}, got {got[max(0, i - 30):i + 30]!r}")


def minijinja_needs(formats: Sequence[str]) -> Dict[str, Dict[str, str]]:
    """What minijinja renders, per format, without ``pycompat`` and with its own ``tojson``
    (on the short chat and the tool agent): ``same``, or the first difference or error."""
    out: Dict[str, Dict[str, str]] = {}
    for fmt in formats:
        reference = E.jinja2_engine(fmt)
        for label, pycompat, own in (("pycompat=False", False, True), ("minijinja's tojson", True, False)):
            try:
                engine = E.minijinja_probe(fmt, pycompat, own)
            except Exception as exc:  # noqa: BLE001
                out.setdefault(fmt, {})[label] = f"{type(exc).__name__}: {exc}"
                continue
            verdict = "same"
            for wl in ("short_chat", "tool_agent"):
                data = W.generate(wl, fmt)
                data["variables"] = E.variables(fmt, data)
                expected = reference(data)
                try:
                    got = engine(data)
                except Exception as exc:  # noqa: BLE001
                    verdict = f"{wl}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
                    break
                if got != expected:
                    verdict = f"{wl}: {_first_difference(expected, got)}"
                    break
            out.setdefault(fmt, {})[label] = verdict
    return out


# ------------------------------------------------------------------ import time and memory


def import_times(repeats: int) -> Dict[str, Any]:
    """Median wall time of ``import X`` in a fresh interpreter that has already imported
    ``json`` and ``datetime`` (measured inside the child, so interpreter start-up is excluded)."""
    snippets = {
        "chatformats": "import chatformats",
        "chatformats + first render": "import chatformats; chatformats.render('qwen3-tool-agent', [{'role': 'user', 'content': 'hi'}])",
        "jinja2": "import jinja2",
        "jinja2 + sandbox": "import jinja2.sandbox, jinja2.ext",
        "minijinja": "import minijinja",
        "transformers": "import transformers",
        "transformers.utils.chat_template_utils": "import transformers.utils.chat_template_utils",
    }
    import tempfile

    out: Dict[str, Any] = {}
    # Bytecode cached as for an installed package (this checkout may run with
    # PYTHONDONTWRITEBYTECODE): every module, ours and the others', compiled once into a private
    # cache by a warm-up run that is not counted.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(TRANSFORMERS_VERBOSITY="error", PYTHONPYCACHEPREFIX=tempfile.mkdtemp(prefix="bench-pycache-"))
    for label, stmt in snippets.items():
        n = repeats if not label.startswith("transformers") else max(3, repeats // 4)
        wall, cpu = [], []
        code = ("import json, datetime, time\nt = time.perf_counter(); c = time.process_time()\n" + stmt +
                "\nprint(time.perf_counter() - t, time.process_time() - c)")
        for attempt in range(n + 1):
            proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                out[label] = {"error": proc.stderr.strip().splitlines()[-1:]}
                break
            if attempt:  # the first run compiles and caches bytecode
                w, c = proc.stdout.strip().splitlines()[-1].split()
                wall.append(float(w))
                cpu.append(float(c))
        else:
            out[label] = {"median_ms": statistics.median(wall) * 1e3, "cpu_median_ms": statistics.median(cpu) * 1e3,
                          "min_ms": min(wall) * 1e3, "runs": n}
        log(f"  import {label}: {out[label]}")
    return out


_MEMORY_CHILD = r"""
import gc, json, resource, sys, time, tracemalloc
sys.path.insert(0, {root!r})
from benchmarks import engines as E, workloads as W
fmt, name, wl = {fmt!r}, {engine!r}, {workload!r}
if name in ("jinja2", "transformers"):
    E.fix_clock()
engine = E.BUILDERS[name](fmt)
small = W.generate("short_chat", fmt); small["variables"] = E.variables(fmt, small)
engine(small)
data = W.generate(wl, fmt); data["variables"] = E.variables(fmt, data)
gc.collect()
def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))
try:  # reset the peak RSS (VmHWM) to the current RSS: Linux >= 4.0
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS")
except OSError:
    before = None
start = time.perf_counter()
out = engine(data)
elapsed = time.perf_counter() - start
after = status("VmHWM") if before is not None else None
del out
result = {{"rss_peak_growth_mb": (after - before) / 1024 if before is not None else None, "seconds": elapsed}}
if elapsed < {traced_limit}:
    gc.collect()
    tracemalloc.start()
    out = engine(data)
    result["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    result["output_mb"] = len(out.encode("utf-8")) / 2**20
    tracemalloc.stop()
print(json.dumps(result))
"""


def peak_memory(fmt: str, engine: str, workload: str, skip_over: float) -> Dict[str, Any]:
    code = _MEMORY_CHILD.format(root=str(HERE.parent), fmt=fmt, engine=engine, workload=workload,
                                traced_limit=skip_over)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "TRANSFORMERS_VERBOSITY": "error"})
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


# ------------------------------------------------------------------ main


def machine() -> Dict[str, Any]:
    info: Dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform(),
                            "cpus": os.cpu_count()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        info["load_average_at_start"] = os.getloadavg()
    except OSError:
        pass
    versions = {}
    for mod in ("chatformats", "jinja2", "transformers", "minijinja", "tokenizers"):
        try:
            from importlib.metadata import version

            versions[mod] = version(mod)
        except Exception:  # noqa: BLE001
            versions[mod] = None
    info["versions"] = versions
    return info


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
    p.add_argument("--import-repeats", type=int, default=21)
    p.add_argument("--no-import", action="store_true")
    p.add_argument("--no-memory", action="store_true")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--readme", action="store_true",
                   help="also rewrite the README's benchmark section (between its markers) from this run")
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
    ported, skipped = [], {}
    for name in names:
        fmt = chatformats.get_format(name)
        if fmt.status == "ported":
            ported.append(name)
        else:
            skipped[name] = f"not ported (status: {fmt.status})"
    return ported, skipped


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
        from . import report as R

        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
        (out / "results.md").write_text(R.markdown(report), encoding="utf-8")
        if not opts.no_plot:
            R.plot(report, out / "scaling.png")
        log(f"wrote {out}/results.json, results.md" + ("" if opts.no_plot else ", scaling.png"))
        if opts.readme:
            readme = HERE.parent / "README.md"
            if R.update_readme(report, readme):
                log(f"updated the benchmark section of {readme}")
            else:
                log(f"{readme} has no benchmark markers ({R.README_START!r}): not updated")
    return report


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
