"""Peak memory of one render, in a fresh interpreter per engine and format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Dict

from .common import HERE

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
