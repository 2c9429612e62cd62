"""Write ``tests/generation/<format>.jinja``: each reference template with ``{% generation %}`` tags.

The tagged copies are the oracle for ``Rendering.assistant_spans``: transformers' own
``{% generation %}`` extension (``render_jinja_template(..., return_assistant_tokens_mask=True)``)
returns the character ranges inside those tags, and ``tests/test_generation.py`` checks that each
port's assistant ranges equal them, and that each copy renders byte-identically to its original.

A copy is never edited by hand.  It is derived mechanically from the pinned reference template
(``reference_templates/``, checked against the registry's sha256) and the format's edits,
``tests/generation/<format>.json``: a list of ``[find, replace]`` pairs applied in order, each
``find`` an exact substring that occurs exactly once in the reference template and exactly once
in the text it is applied to.  The tags follow the convention in ``docs/guarantees.md``
("The assistant-spans oracle"): a range opens after the assistant header (and any prefill the
format's own generation prompt writes) and closes right after the turn's end-of-turn token.

    python scripts/write_generation_templates.py          # (re)write the copies
    python scripts/write_generation_templates.py --check  # exit 1 if a copy is stale

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "reference_templates"
GENERATION = ROOT / "tests" / "generation"


class EditError(Exception):
    """An edits file is malformed, or a ``find`` does not occur exactly once."""


def formats() -> list[tuple[str, str, str]]:
    """``(format name, template file, sha256)`` of every registered format, in registry order."""
    sys.path.insert(0, str(ROOT / "src"))
    try:
        from chatformats import _registry
    finally:
        sys.path.pop(0)
    return [(fmt.name, fmt.template_file, fmt.template_sha256) for fmt in _registry._FORMATS.values()]


def reference(file: str, sha256: str) -> str:
    """The text of ``reference_templates/<file>``, refused unless it has the pinned ``sha256``."""
    data = (TEMPLATES / file).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise EditError(f"reference_templates/{file} has sha256 {digest}; the registry pins {sha256}")
    return data.decode("utf-8")


def edits(name: str) -> list[tuple[str, str]]:
    """The ``[find, replace]`` pairs of ``tests/generation/<name>.json``."""
    path = GENERATION / f"{name}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EditError(f"{path.relative_to(ROOT)}: {exc}") from None
    if not isinstance(data, list) or not all(
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(s, str) for s in pair)
            for pair in data):
        raise EditError(f"{path.relative_to(ROOT)}: not a list of [find, replace] string pairs")
    return [(find, replace) for find, replace in data]


def apply(name: str, original: str, pairs: list[tuple[str, str]]) -> str:
    """``original`` with each pair applied in order; each ``find`` must occur exactly once in the
    original and exactly once in the text it is applied to."""
    text = original
    for number, (find, replace) in enumerate(pairs, 1):
        for where, haystack in (("the reference template", original), ("the edited text", text)):
            count = haystack.count(find) if find else 0
            if count != 1:
                raise EditError(f"{name}: edit {number}'s find occurs {count} times in {where} "
                                f"(must be exactly once): {find[:80]!r}")
        text = text.replace(find, replace, 1)
    return text


def tagged(name: str) -> str:
    """The tagged copy of format ``name``'s reference template."""
    for fmt_name, file, sha256 in formats():
        if fmt_name == name:
            return apply(name, reference(file, sha256), edits(name))
    raise EditError(f"{name}: not a registered format")


def copies() -> dict[Path, str]:
    """Every copy's path and the text it must hold."""
    return {GENERATION / f"{name}.jinja": tagged(name) for name, _, _ in formats()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if a copy is not what would be written")
    args = parser.parse_args(argv)
    try:
        wanted = copies()
    except EditError as exc:
        print(f"write_generation_templates: {exc}", file=sys.stderr)
        return 1
    stale = 0
    for path, text in wanted.items():
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            continue
        if args.check:
            print(f"write_generation_templates: {path.relative_to(ROOT)} is stale: run "
                  "python scripts/write_generation_templates.py", file=sys.stderr)
            stale = 1
        else:
            path.write_text(text, encoding="utf-8")
            print(f"write_generation_templates: wrote {path.relative_to(ROOT)}")
    return stale


if __name__ == "__main__":
    sys.exit(main())
