"""The progress bar on stderr for long runs (``--jsonl``): tqdm when installed, else a plain
counter; ``--progress`` / ``--no-progress``, by default shown when stderr is a terminal."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from typing import Any


class _Progress:
    """A progress bar on stderr for long runs: tqdm when installed, else a plain counter.
    Shown only after the first second, and only when ``enabled``."""

    def __init__(self, enabled: bool, total: int | None, unit: str) -> None:
        self.enabled = enabled
        self.total = total
        self.unit = unit
        self.count = 0
        self.errors = 0
        self.started = time.monotonic()
        self.last = 0.0
        self.bar: Any = None
        if enabled:
            try:
                tqdm = importlib.import_module("tqdm").tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=total, unit=f" {unit}", file=sys.stderr, delay=1.0,
                                dynamic_ncols=True)

    def update(self, n: int, errors: int) -> None:
        self.count += n
        self.errors += errors
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(n)
            if errors:
                self.bar.set_postfix(errors=self.errors, refresh=False)
            return
        now = time.monotonic()
        if now - self.started >= 1.0 and now - self.last >= 0.25:
            self.last = now
            self._write()

    def _write(self) -> None:
        of = f"/{self.total}" if self.total is not None else ""
        sys.stderr.write(f"\r{self.count}{of} {self.unit}, {self.errors} failed")
        sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and self.last:  # the counter was shown: its final state, then a newline
            self._write()
            sys.stderr.write("\n")
            sys.stderr.flush()


def _progress_enabled(args: argparse.Namespace) -> bool:
    if args.progress is not None:
        return bool(args.progress)
    return sys.stderr.isatty()
