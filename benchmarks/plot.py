"""The scaling plot (``scaling.png``): time against messages, log-log, one panel per format."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

from .common import SERIES
from .engines import ENGINES


def plot(report: Dict[str, Any], path: Path) -> None:
    """Time against messages (log-log), one line per engine, one panel per format; the chat
    series solid, the tool-trace series dashed, capped points hollow at their estimate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    formats = report["formats"]
    cols = min(3, len(formats)) or 1
    rows = (len(formats) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.2 * rows), squeeze=False)
    colors = {"chatformats": "tab:green", "chatformats.apply": "tab:olive", "chatformats.spans": "tab:cyan",
              "chatformats.apply_spans": "tab:gray", "chatformats.nospans": "tab:brown", "jinja2": "tab:red",
              "transformers": "tab:purple", "minijinja": "tab:blue"}
    for i, fmt in enumerate(formats):
        ax = axes[i // cols][i % cols]
        for series, names in SERIES.items():
            style = "-" if series == "chat" else "--"
            for engine in ENGINES:
                xs, ys, cx, cy = [], [], [], []
                for wl in names:
                    r = next((r for r in report["results"] if r["format"] == fmt and r["workload"] == wl), None)
                    info = r["engines"].get(engine, {}) if r else {}
                    if "median_s" in info:
                        xs.append(r["messages"]), ys.append(info["median_s"])
                    elif info.get("status") == "capped":
                        cx.append(r["messages"]), cy.append(info["estimate_s"])
                if xs:
                    ax.plot(xs, ys, style, marker="o", ms=3, color=colors[engine],
                            label=engine if series == "chat" else None)
                if cx:
                    ax.plot(cx, cy, "o", mfc="none", color=colors[engine])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(fmt)
        ax.set_xlabel("messages")
        ax.set_ylabel("seconds per render")
        ax.grid(True, which="major", alpha=0.3)
    for j in range(len(formats), rows * cols):
        axes[j // cols][j % cols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower right" if len(formats) % cols else "upper center", ncol=1 if len(formats) % cols else 5)
    fig.suptitle("Render time against conversation length (solid: chat, dashed: tool trace; hollow: capped, estimated)")
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
