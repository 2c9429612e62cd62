"""What every benchmark module shares: the paths, the workload series, the ratios reported and
their targets, and two helpers (a text's sha256, a log line on stderr)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

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
    ("render_spans/render", "chatformats.spans", "chatformats"),
    ("apply_spans/apply", "chatformats.apply_spans", "chatformats.apply"),
)

#: Cost ratios (lower is better) and the most each may be on every workload: recording and
#: reading spans; and the plain render over the same port without its spans code (spans off
#: costs at most 3%; measured on its own, ``spans_off.py``).
COST_TARGETS = {
    "render_spans/render": 2.5,
    "apply_spans/apply": 2.5,
    "spans_off/no_spans_code": 1.03,
}

#: (geometric mean, every workload): at least 25x precompiled jinja2 (no per-workload multiple:
#: where jinja2 is itself copy- or json.dumps-bound no engine can reach one), at least 6x
#: minijinja and 2x on every workload.
TARGETS = {
    "jinja2/chatformats": (25.0, 0.0),
    "minijinja/chatformats": (6.0, 2.0),
}
LINEAR_MAX = 11.0
IMPORT_MAX_MS = 5.0


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def log(*args: Any) -> None:
    print(*args, file=sys.stderr, flush=True)
