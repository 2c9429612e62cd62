"""Write ``src/chatformats/_template_sources.py``: the package's one copy of each reference template.

The installed package carries each template's text as a string in that generated module (no
data files, no path lookup): ``ChatFormat.template_source()`` returns it after checking its
sha256 against the registry, and the pipeline's ``continue_final_message`` check searches it.
The texts come from ``reference_templates/``, each file checked against the sha256 the registry
pins before anything is written.

    python scripts/sync_templates.py          # regenerate the module
    python scripts/sync_templates.py --check  # exit 1 if the module is stale (written by hand,
                                              # or a template or the registry changed)

``tests/test_template_sources.py`` fails when the module is not what this script writes.
Only the standard library is used.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "reference_templates"
MODULE = ROOT / "src" / "chatformats" / "_template_sources.py"

HEADER = '''\
"""The reference templates' text: the package's one copy of each (generated, do not edit).

Written by ``scripts/sync_templates.py`` from ``reference_templates/``, each file checked against
the sha256 pinned in ``_registry.py``; ``tests/test_template_sources.py`` fails when this module is
stale.  ``ChatFormat.template_source()`` returns a text after checking its sha256 again, and the
pipeline's ``continue_final_message`` check searches it (transformers checks ``field in
chat_template``).  Keyed by the template's file name in ``reference_templates/``.
"""

from __future__ import annotations

SOURCES: dict[str, str] = {
'''


class SyncError(Exception):
    """A template file is missing or does not have the sha256 the registry pins."""


def pinned_templates() -> list[tuple[str, str]]:
    """``(template file, sha256)`` of every registered format, in registry order, each file once."""
    sys.path.insert(0, str(ROOT / "src"))
    try:
        from chatformats import _registry
    finally:
        sys.path.pop(0)
    seen: dict[str, str] = {}
    for fmt in _registry._FORMATS.values():
        if seen.setdefault(fmt.template_file, fmt.template_sha256) != fmt.template_sha256:
            raise SyncError(f"{fmt.template_file} is pinned to two different sha256 values")
    return list(seen.items())


def read_template(file: str, sha256: str) -> str:
    """The text of ``reference_templates/<file>``, refused unless it has the pinned ``sha256``."""
    path = TEMPLATES / file
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SyncError(f"{path}: {exc.strerror or exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise SyncError(f"{path} has sha256 {digest}; the registry pins {sha256}")
    return data.decode("utf-8")


def module_text() -> str:
    """What ``src/chatformats/_template_sources.py`` must contain: one entry per template, its
    text as one string literal per source line (so a template change reads as a line diff)."""
    out = [HEADER]
    for file, sha256 in pinned_templates():
        out.append(f"    {file!r}: (\n")
        for line in read_template(file, sha256).splitlines(keepends=True):
            out.append(f"        {line!r}\n")
        out.append("    ),\n")
    out.append("}\n")
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if the module is not what would be written")
    args = parser.parse_args(argv)
    try:
        text = module_text()
    except SyncError as exc:
        print(f"sync_templates: {exc}", file=sys.stderr)
        return 1
    current = MODULE.read_text(encoding="utf-8") if MODULE.is_file() else None
    if args.check:
        if current != text:
            print(f"sync_templates: {MODULE.relative_to(ROOT)} is stale: run "
                  "python scripts/sync_templates.py", file=sys.stderr)
            return 1
        return 0
    if current != text:
        MODULE.write_text(text, encoding="utf-8")
        print(f"sync_templates: wrote {MODULE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
