"""The fixed cost of a render outside the port, before and after a change, in one process.

``python -m benchmarks.overhead --base REV`` imports the package twice more beside the working
tree's: ``git archive REV`` as ``chatformats_base`` (the code before) and ``git archive HEAD``
as ``chatformats_copy`` (the code after, a second copy: its ratio to the working tree is the A/A
noise of two module copies of the same code).  For each format and workload it times, alternating
(base then new, new then base) for ``rounds`` rounds of batches of ``seconds`` each, as
``spans_off.py`` does:

- ``render``: ``chatformats.render(name, messages, now=NOW, **variables)``, the benchmark's call;
- ``render/clock``: the same without ``now`` (the default clock);
- ``apply``: ``apply_chat_template(name, messages, tools=..., add_generation_prompt=True,
  now=NOW)``, and ``apply/clock`` without ``now``;

and reports per render the base's and the new code's time, the median of the rounds'
``base / new``, the port's own time (its function called with the template layer's variables),
and so the time outside the port before and after.  Every engine's output must equal the
base's first."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from typing import Any, Callable, Dict, List, Sequence

from . import engines as E
from . import timing as T
from . import workloads as W
from .common import log

FORMATS = ("qwen2.5-instruct", "qwen3", "qwen3-coder", "llama-3.1", "llama-3.2", "deepseek-v3",
           "gpt-oss", "glm-4.5", "kimi-k2", "solar-open")
WORKLOADS = ("short_chat", "chat_10", "chat_100", "tool_agent")
KINDS = ("render", "render/clock", "apply", "apply/clock")


def load(rev: str, as_name: str, root: str) -> Any:
    """The package at git revision ``rev`` (``src/chatformats``), imported as ``as_name``: the one
    absolute module name its render path builds (the port modules') renamed to match."""
    where = tempfile.mkdtemp(prefix=f"{as_name}-")
    archive = subprocess.run(["git", "-C", root, "archive", rev, "src/chatformats"],
                             check=True, capture_output=True).stdout
    tar_path = os.path.join(where, "src.tar")
    with open(tar_path, "wb") as f:
        f.write(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(where)
    package = os.path.join(where, as_name)
    os.rename(os.path.join(where, "src", "chatformats"), package)
    registry = os.path.join(package, "_registry.py")
    with open(registry, encoding="utf-8") as f:
        text = f.read()
    with open(registry, "w", encoding="utf-8") as f:
        f.write(text.replace('f"chatformats.ports.', f'f"{as_name}.ports.'))
    sys.path.insert(0, where)
    return importlib.import_module(as_name)


def engine(pkg: Any, kind: str, name: str) -> Callable[[Dict[str, Any]], Any]:
    render, apply, now = pkg.render, pkg.apply_chat_template, E.NOW
    if kind == "render":
        return lambda d: render(name, d["messages"], now=now, **d["variables"])
    if kind == "render/clock":
        return lambda d: render(name, d["messages"], **d["variables"])
    if kind == "apply":
        return lambda d: apply(name, d["messages"], tools=d.get("tools"), add_generation_prompt=True,
                               now=now)
    return lambda d: apply(name, d["messages"], tools=d.get("tools"), add_generation_prompt=True)


def alternate(a: Callable[..., Any], b: Callable[..., Any], data: Dict[str, Any], rounds: int,
              seconds: float) -> Dict[str, float]:
    """Median per-call seconds of ``a`` and of ``b`` and the median of the rounds' ``a / b``."""
    once = min(T.batch(a, data, 3), T.batch(b, data, 3))
    n = max(1, int(seconds / max(once, 1e-7)))
    ta: List[float] = []
    tb: List[float] = []
    for i in range(rounds):
        if i % 2:
            ta.append(T.batch(a, data, n))
            tb.append(T.batch(b, data, n))
        else:
            tb.append(T.batch(b, data, n))
            ta.append(T.batch(a, data, n))
    return {"a": statistics.median(ta), "b": statistics.median(tb),
            "ratio": statistics.median(x / y for x, y in zip(ta, tb))}


def measure(formats: Sequence[str], workloads: Sequence[str], base: Any, new: Any, copy: Any,
            rounds: int, seconds: float) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for fmt in formats:
        port = new.get_format(fmt).port
        for wl in workloads:
            data = W.generate(wl, fmt)
            data["variables"] = E.variables(fmt, data)
            row: Dict[str, Any] = {}
            for kind in KINDS:
                old_e, new_e, copy_e = (engine(p, kind, fmt) for p in (base, new, copy))
                expected = old_e(data)
                if new_e(data) != expected or copy_e(data) != expected:
                    log(f"overhead: {fmt} {wl} {kind}: the outputs differ")
                    continue
                ab = alternate(old_e, new_e, data, rounds, seconds)
                aa = alternate(copy_e, new_e, data, rounds, seconds)
                row[kind] = {"base_us": ab["a"] * 1e6, "new_us": ab["b"] * 1e6,
                             "base/new": ab["ratio"], "copy/new (A/A)": aa["ratio"]}
            port_e = lambda d: port(d["messages"], d["variables"], E.NOW)  # noqa: E731
            t = alternate(port_e, port_e, data, max(3, rounds // 3), seconds)
            row["port_us"] = statistics.mean((t["a"], t["b"])) * 1e6
            out.setdefault(fmt, {})[wl] = row
            log(f"overhead: {fmt} {wl} port {row['port_us']:.2f} us " + " ".join(
                f"{k}={v['base_us']:.2f}->{v['new_us']:.2f} ({v['base/new']:.3f}, A/A "
                f"{v['copy/new (A/A)']:.3f})" for k, v in row.items() if isinstance(v, dict)))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.overhead", description=__doc__)
    parser.add_argument("--base", default="main", help="the git revision before the change")
    parser.add_argument("--formats", nargs="*", default=list(FORMATS))
    parser.add_argument("--workloads", nargs="*", default=list(WORKLOADS))
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=0.02)
    parser.add_argument("--out", default=None, help="a JSON file for the numbers")
    args = parser.parse_args(argv)
    import chatformats

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    base = load(args.base, "chatformats_base", root)
    copy = load("HEAD", "chatformats_copy", root)
    results = measure(args.formats, args.workloads, base, chatformats, copy, args.rounds,
                      args.seconds)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"base": args.base, "rounds": args.rounds, "seconds": args.seconds,
                       "results": results}, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
