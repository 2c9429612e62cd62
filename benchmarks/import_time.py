"""Import time of chatformats, jinja2, minijinja and transformers in fresh interpreters."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from typing import Any, Dict

from .common import log

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
