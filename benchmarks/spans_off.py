"""Spans off, measured on its own: ``chatformats.render`` with each format's port against the
same call with the port's copy without its spans code (``nospans.py``), per workload.

The main rounds time eight engines in turn and nine rounds of them: each ratio there moves by a
few percent from run to run, as much as the 3% this check is about (and on the largest
workloads, by which engine ran before: a jinja2 render evicts the conversation from the core's
cache).  So the two are timed here alone, alternating (plain then copy, copy then plain) for
``rounds`` rounds of batches of ``seconds`` each (of a render that takes longer than a tenth of
that, twice as many rounds of single renders): the ratio is the median of the rounds'
``plain / copy``."""

from __future__ import annotations

import statistics
from typing import Dict, Sequence

from . import engines as E
from . import timing as T
from . import workloads as W
from .common import log

LABEL = "spans_off/no_spans_code"


def measure(formats: Sequence[str], workloads: Sequence[str], rounds: int = 21,
            seconds: float = 0.02) -> Dict[str, Dict[str, float]]:
    """``{format: {workload: plain / copy}}``; the copy's output must be the port's."""
    out: Dict[str, Dict[str, float]] = {}
    for fmt in formats:
        plain, bare = E.chatformats_render(fmt), E.chatformats_nospans(fmt)
        for wl in workloads:
            data = W.generate(wl, fmt)
            data["variables"] = E.variables(fmt, data)
            expected, once, error = T.call(plain, data)
            if error or bare(data) != expected:
                log(f"spans off: {fmt} {wl}: the copy without spans code differs or fails ({error})")
                continue
            n, count = int(seconds / max(once, 1e-7)), rounds
            if n < 10:
                # A long render (a 10,000-message one takes 5-10 ms): single renders alternate,
                # twice as many.  Batches of a few moved the ratio by 3-5% from run to run, the
                # port against an unedited copy of itself too; single renders, by 1%.
                n, count = 1, 2 * rounds
            ratios = []
            for i in range(count):
                if i % 2:
                    a = T.batch(plain, data, n)
                    b = T.batch(bare, data, n)
                else:
                    b = T.batch(bare, data, n)
                    a = T.batch(plain, data, n)
                ratios.append(a / b)
            out.setdefault(fmt, {})[wl] = statistics.median(ratios)
        log(f"spans off: {fmt} " + " ".join(f"{wl}={v:.3f}" for wl, v in out.get(fmt, {}).items()))
    return out
