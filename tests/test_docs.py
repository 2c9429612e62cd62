"""The documentation works: every fenced ```python block of README.md and docs/*.md runs, and
every relative link resolves.

- The blocks of one page run in order as one script (a page reads top to bottom, and a block may
  use what an earlier one defined), in a fresh interpreter whose working directory is a temporary
  one holding a copy of ``examples/``, so an example opens ``examples/...`` as a reader in the
  repository root would, and anything it writes is thrown away.  The package tested is the one
  this test imports.
- A block may opt out only with a first line ``# docs-test: skip (REASON)`` with a reason (for
  example, it needs a model download); the test fails on a marker without one.
- A link ``[text](target)`` or ``![alt](target)`` whose target is not a URL must name an existing
  file or directory, relative to the page; a ``#fragment`` pointing into a Markdown page must be
  one of that page's headings (GitHub's anchors: lower case, punctuation dropped, spaces as ``-``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import chatformats

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_SKIP = re.compile(r"#\s*docs-test:\s*skip\b(.*)")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """``(line number, code)`` of each fenced ``python`` block of ``page``."""
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group(2))
            for m in _FENCE.finditer(text) if m.group(1) == "python"]


def _prose(text: str) -> str:
    """``text`` without its fenced blocks and inline code (links there are not links)."""
    text = _FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of the headings of ``page``."""
    found = set()
    for line in _FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6}\s+(.*)", line)
        if heading:
            title = heading.group(1).strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_the_pages_are_there():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"README.md", "docs/index.md", "docs/api.md", "docs/cli.md", "docs/guarantees.md",
            "docs/formats.md", "docs/batch.md", "docs/benchmarks.md", "docs/layout.md"} <= names
    assert (ROOT / "LICENSE").is_file()
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


_RUNNER = """\
import sys
for _line, _code in {blocks!r}:
    try:
        exec(compile(_code, {page!r} + ":" + str(_line), "exec"), globals())
    except BaseException as _exc:
        sys.stderr.write(f"the block at line {{_line}} fails: {{type(_exc).__name__}}: {{_exc}}\\n")
        raise
"""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_python_blocks_run(page, tmp_path):
    """The page's blocks, as one script run by a fresh interpreter in a temporary directory (as a
    reader would run them: functions defined there live in ``__main__``, which worker processes
    can receive)."""
    blocks = []
    for line, code in python_blocks(page):
        first = code.lstrip().splitlines()[0] if code.strip() else ""
        skip = _SKIP.match(first)
        if skip:
            assert re.search(r"\w", skip.group(1)), f"{page.name}:{line}: a skipped block must say why"
            continue
        blocks.append((line, code))
    if not blocks:
        return
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    script = tmp_path / "docs_blocks.py"
    script.write_text(_RUNNER.format(blocks=blocks, page=page.relative_to(ROOT).as_posix()), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(chatformats.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{page.relative_to(ROOT)}: {result.stderr[-3000:]}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    broken = []
    for target in _LINK.findall(_prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
            continue
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{target}: no heading #{fragment} in {resolved.relative_to(ROOT)}")
        elif not str(resolved).startswith(str(ROOT) + os.sep) and resolved != ROOT:
            broken.append(f"{target}: outside the repository")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_runner_sees_a_failing_block_and_a_broken_link(tmp_path):
    """The two checks can fail: a page whose block raises and whose link is dangling."""
    page = tmp_path / "page.md"
    page.write_text("# T\n\n[gone](missing.md) [here](#t) [bad](#nope)\n\n```python\nraise ValueError('x')\n```\n",
                    encoding="utf-8")
    assert python_blocks(page) == [(5, "raise ValueError('x')\n")]
    assert anchors(page) == {"t"}
    targets = _LINK.findall(_prose(page.read_text(encoding="utf-8")))
    assert targets == ["missing.md", "#t", "#nope"]
