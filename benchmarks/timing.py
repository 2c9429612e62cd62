"""How one engine is timed: one call, a batch of calls, a call from a cold core cache, and the
estimate of a call's time at a larger size (for the caps)."""

from __future__ import annotations

import gc
import math
import time
from typing import Any, Dict, Optional, Tuple

from . import engines as E


#: The clock of every timing: the process's CPU time, which other processes on a shared machine do
#: not inflate (wall time differs from it only by the time spent waiting for a core).
CLOCK = time.process_time


def call(engine: E.Engine, workload: Dict[str, Any]) -> Tuple[Optional[str], float, str]:
    """One timed call: ``(output, CPU seconds, "")``, or ``(None, 0.0, error)`` if it raised."""
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


def batch(engine: E.Engine, workload: Dict[str, Any], n: int) -> float:
    """CPU seconds per call of ``n`` back-to-back calls, ``gc`` disabled (as ``timeit`` does)."""
    gc.collect()
    gc.disable()
    try:
        start = CLOCK()
        for _ in range(n):
            engine(workload)
        return (CLOCK() - start) / n
    finally:
        gc.enable()


EVICT = bytearray(32 << 20)


def evict_caches() -> None:
    """Write 32 MB, far more than a core's L1 and L2 caches (about 2 MB here), so the next
    render starts with none of its data in them."""
    EVICT[::64] = b"\x01" * (len(EVICT) // 64)


def cold_call(engine: E.Engine, workload: Dict[str, Any]) -> float:
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
        evict_caches()
        start = CLOCK()
        engine(workload)
        return CLOCK() - start
    finally:
        gc.enable()


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
