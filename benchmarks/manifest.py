"""The workload manifest (``workloads/manifest.json``): each generated input's sha256 and, when
recorded, the sha256 of jinja2's reference output; written by ``--record-workloads``, checked by
``--verify-workloads`` and before every timing."""

from __future__ import annotations

import json
import time
from typing import Any, Dict, List, Sequence

from . import engines as E
from . import workloads as W
from .common import HERE, MANIFEST, log, sha

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
