"""The machine and the versions a run measured on."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any, Dict

def machine() -> Dict[str, Any]:
    info: Dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform(),
                            "cpus": os.cpu_count()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        info["load_average_at_start"] = os.getloadavg()
    except OSError:
        pass
    versions = {}
    for mod in ("chatformats", "jinja2", "transformers", "minijinja", "tokenizers"):
        try:
            from importlib.metadata import version

            versions[mod] = version(mod)
        except Exception:  # noqa: BLE001
            versions[mod] = None
    info["versions"] = versions
    return info
