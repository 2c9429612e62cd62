"""Growth of the HTML page and throughput of the audit: measured as ratios, never asserted.

    python -m benchmarks.surfaces [--quick] [--out benchmarks/results/surfaces.md]

- **The page** (``chatformats.html.page``): its time for a prompt with n findings (a message of
  n ``<|im_end|>``, qwen3-instruct-2507) and for a prompt with n assistant ranges (n
  user/assistant turns), n = 2,000 to 16,000 doubling; the rendering and the findings are made
  before the clock starts.  A linear page takes about 2x per doubling; a quadratic one 4x.
- **The audit** (``chatformats.audit``) for cogito (258 control strings) on a 1 MB message of
  ``<|`` runs (every other character could start a control string) and of ordinary text, in
  MB of message per second, and its time against ``render_spans`` of the same conversation
  (what the audit renders before it scans).

Timing is CPU time (``time.process_time``), the best of a few rounds, ``gc`` disabled during a
call.
"""

from __future__ import annotations

import argparse
import gc
import time
from typing import Any, Callable

import chatformats
from chatformats import html

PAGE_FORMAT = "qwen3-instruct-2507"
AUDIT_FORMAT = "cogito"


def _best(call: Callable[[], Any], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            call()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best


def _findings_chat(n: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "<|im_end|>" * n}]


def _turns_chat(n: int) -> list[dict[str, Any]]:
    chat: list[dict[str, Any]] = []
    for i in range(n):
        chat.append({"role": "user", "content": f"q{i}"})
        chat.append({"role": "assistant", "content": f"a{i}"})
    return chat


def page_growth(sizes: tuple[int, ...], rounds: int) -> dict[str, list[tuple[int, float]]]:
    out: dict[str, list[tuple[int, float]]] = {}
    for label, build in (("findings", _findings_chat), ("assistant ranges", _turns_chat)):
        rows = []
        for n in sizes:
            chat = build(n)
            rendering = chatformats.render_spans(PAGE_FORMAT, chat)
            findings = chatformats.audit(PAGE_FORMAT, chat)
            rows.append((n, _best(lambda: html.page(rendering, findings), rounds)))
        out[label] = rows
    return out


def audit_throughput(megabytes: float, rounds: int) -> dict[str, tuple[float, float]]:
    """Per input: (audit MB/s, audit time / render_spans time)."""
    size = int(megabytes * 1_000_000)
    sentence = "The quick brown fox jumps over the lazy dog. "
    texts = {"<| runs": "<|" * (size // 2),
             "ordinary text": (sentence * (size // len(sentence) + 1))[:size]}
    out = {}
    for label, text in texts.items():
        chat = [{"role": "user", "content": text}]
        audit = _best(lambda: chatformats.audit(AUDIT_FORMAT, chat), rounds)
        render = _best(lambda: chatformats.render_spans(AUDIT_FORMAT, chat).spans, rounds)
        out[label] = (len(text) / 1e6 / audit, audit / render)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one round, no file")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per measurement (3)")
    parser.add_argument("--out", default=None, help="write the tables here (markdown)")
    args = parser.parse_args(argv)
    sizes = (250, 500) if args.quick else (2000, 4000, 8000, 16000)
    rounds = args.rounds or (1 if args.quick else 3)
    lines = ["| page: n | findings (s) | assistant ranges (s) |", "|---:|---:|---:|"]
    growth = page_growth(sizes, rounds)
    for i, n in enumerate(sizes):
        lines.append(f"| {n:,} | {growth['findings'][i][1]:.3f} | "
                     f"{growth['assistant ranges'][i][1]:.3f} |")
    for label, rows in growth.items():
        ratios = [b[1] / a[1] for a, b in zip(rows, rows[1:]) if a[1] > 0]
        lines.append(f"\n{label}: time per doubling " + ", ".join(f"{r:.2f}x" for r in ratios))
    lines += ["", "| audit, cogito | MB/s | audit / render_spans |", "|---|---:|---:|"]
    for label, (rate, ratio) in audit_throughput(0.05 if args.quick else 1.0, rounds).items():
        lines.append(f"| {label} | {rate:.2f} | {ratio:.1f}x |")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out and not args.quick:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
