"""Write each golden case's expected outcomes, ``tests/golden/<port module>/<case>[.pipeline][.error].txt``,
from the reference renderers: transformers' compiled template (the template layer) and
transformers' ``apply_chat_template`` (the pipeline layer), as the test suite's oracles
(``tests/oracle.py``, ``tests/transformers_oracle.py``) render them.  ``tests/golden/__init__.py``
describes the files; ``tests/test_golden.py`` checks them against the port and the live oracles.

    python scripts/write_golden.py [FORMAT ...]     # (re)write; stale files are removed
    python scripts/write_golden.py --check          # exit 1 if a file differs from the oracle

Needs the test extra (jinja2, transformers).  Run from anywhere; the source tree's package is used.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("formats", nargs="*", help="format names (default: every ported format)")
    parser.add_argument("--check", action="store_true", help="compare only; write nothing")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT / "src"), str(ROOT)]
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    from tests import golden

    stale = 0
    for name in args.formats or golden.ported_formats():
        want = golden.reference_files(name)
        have = golden.stored_files(name)
        folder = golden.expected_dir(name)
        changed = sorted(f for f in set(want) | set(have) if want.get(f) != have.get(f))
        stale += len(changed)
        if args.check or not changed:
            for file in changed:
                print(f"write_golden: {folder.relative_to(ROOT) / file} is stale", file=sys.stderr)
            continue
        folder.mkdir(exist_ok=True)
        for file in changed:
            path = folder / file
            if file in want:
                path.write_bytes(want[file].encode("utf-8"))
            else:
                path.unlink()
        print(f"write_golden: {name}: {len(changed)} file(s) written or removed in "
              f"{folder.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
