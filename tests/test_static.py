"""Static checks of the package source: Python 3.9 compatibility (vermin) and no dynamic code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "chatformats"


def test_source_is_valid_for_python_3_9():
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from vermin import main; sys.exit(main())",
         "--no-tips", "--violations", "-t=3.9-", "--eval-annotations", str(SRC)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


#: The one module of the package that may import a template engine: ``chatformats verify``'s
#: reference side (jinja2 at its top, transformers and tokenizers inside its pipeline-layer
#: functions); nothing on the render path imports it.
ENGINE_IMPORT_EXEMPTION = "verify.py"
#: The CLI's ``render --parquet --ids TOKENIZER_JSON`` loads the file it is given with the
#: tokenizers library (a command line has no tokenizer object to be handed): that one import,
#: inside that one function, and nothing else of the package.
TOKENIZER_FILE_LOADER = ("cli/parquet.py", "import tokenizers  # the caller's tokenizer library, on this path only")
ENGINES = ("jinja2", "transformers", "tokenizers")
_ENGINE_IMPORT = re.compile(r"\s*(import|from)\s+(%s)\b" % "|".join(ENGINES))
_ENGINE_BY_NAME = re.compile(r"""import_module\(\s*["'](%s)\b""" % "|".join(ENGINES))


def test_no_dynamic_code_and_no_template_engine_imports():
    offenders = []
    for path in SRC.rglob("*.py"):
        relative = path.relative_to(SRC).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            dynamic = re.search(r"(^|[^.\w])(exec|eval|compile)\(", line)
            # Importing an engine by name (importlib) is an import too: no way around the rule.
            engine = _ENGINE_IMPORT.match(line) or _ENGINE_BY_NAME.search(line)
            loader = (relative, line.strip()) == TOKENIZER_FILE_LOADER
            if dynamic or (engine and relative != ENGINE_IMPORT_EXEMPTION and not loader):
                offenders.append(f"{relative}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_the_exemption_imports_jinja2_plainly_and_nothing_imports_it_eagerly():
    """``verify.py`` imports jinja2 at its top (the exemption is used openly, not sidestepped);
    no other package module imports ``verify`` at its top, so ``import chatformats`` and every
    render stay free of it (the CLI loads it by name when ``verify`` runs)."""
    source = (SRC / ENGINE_IMPORT_EXEMPTION).read_text(encoding="utf-8")
    assert re.search(r"^import jinja2$", source, flags=re.M)
    for path in SRC.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            assert not re.match(r"(from\s+\S*\s+import\s+.*\bverify\b|import\s+\S*\bverify\b)", line), (
                f"{path.relative_to(SRC)} imports verify at its top: {line.strip()}")
