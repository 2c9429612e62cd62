"""``chatformats audit FORMAT FILE`` and ``chatformats render FORMAT FILE --html OUT``.

    chatformats audit FORMAT FILE [--layer L] [--generation-prompt] [--now D] [--var N=J] [--json]

FILE is read as ``chatformats render`` reads it (a list of messages, an OpenAI request body, or
an object with ``messages`` and template variables; ``-`` for stdin).  Each finding (a control
string of the format inside input-derived text, see ``chatformats.audit``) is one line::

    messages[1].content:0: <|im_start|> (prompt offset 19)

(``path:offset in the value: token``; ``[in its rendered text]`` when the offset counts in the
value's JSON or ``str()``, ``[across: ...]`` when the occurrence spans several sources);
Input the render dropped and values it printed as Python syntax are findings too::

    messages[4]: dropped: the message contributed no character (prompt offset 192)
    messages[0].content: repr: list printed through str() (Python syntax, not JSON): [...]

``--json`` prints a JSON list of ``{"token", "offset", "path", "input_offset", "form",
"sources", "kind", "detail"}`` instead.  Exit status: 0 no finding; 3 at least one finding; 1
the input cannot be read or rendered; 2 usage error.

``render ... --html OUT`` writes the prompt to stdout as ``render`` does, and the page of
:mod:`chatformats.html` to OUT.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable

from ..errors import ChatFormatError
from .arguments import add_render_options
from .common import EXIT_OK, InputError, UsageError, _describe, _name

#: ``audit``: at least one control string in input-derived text.
EXIT_FINDINGS = 3

#: The pipeline layer's named parameters (the rest of the variables are keyword arguments).
_PIPELINE_PARAMS = ("tools", "documents", "add_generation_prompt", "continue_final_message")


def add_parser(sub: Any, resolve: Callable[[str], Any], parse_file: Callable[[str], Any]) -> None:
    """Register ``audit`` on the ``build_parser`` sub-parsers.  ``resolve``: FORMAT -> format;
    ``parse_file``: FILE -> a conversation (``.messages``, ``.variables``) as ``render`` reads
    it."""
    p = sub.add_parser(
        "audit", help="find the format's control tokens in input-derived text, and input "
                      "the template drops or prints as Python syntax",
        description="Render FILE with spans and report every control string of the format "
                    "(its tokenizer's special tokens, its template's tags) inside text that came "
                    "from the input, every input the render dropped and every value it printed "
                    "as Python syntax. Exit status: 0 none found, 3 found, 1 the input cannot be "
                    "read or rendered, 2 usage error.")
    p.add_argument("format", metavar="FORMAT", help="format name or model id")
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="a JSON file (- for stdin), as `render` reads it")
    add_render_options(p)  # as render's
    p.add_argument("--json", action="store_true", help="print the findings as a JSON list")
    from . import parquet as _parquet

    _parquet.add_options(p, output="findings", what="findings (JSON text)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="with --parquet: write here (default stdout); OUT is replaced only when "
                        "the run finishes")
    p.set_defaults(progress=None, audit_parser=p, func=lambda args: _parquet.audit_parquet(args)
                   if args.parquet is not None else run_audit(args, resolve, parse_file))


def add_html_option(render_parser: argparse.ArgumentParser, resolve: Callable[[str], Any],
                    parse_file: Callable[[str], Any]) -> None:
    """Add ``--html OUT`` to ``render``: with it, ``render`` runs :func:`run_render_html`."""
    render_parser.add_argument(
        "--html", metavar="OUT",
        help="also write a self-contained HTML page of the prompt to OUT: each span marked by "
             "its source, template text set apart, assistant ranges outlined, audit findings "
             "flagged")
    plain = render_parser.get_default("func")

    def render(args: argparse.Namespace) -> int:
        if getattr(args, "html", None) is None:
            return int(plain(args))
        if args.jsonl is not None or getattr(args, "parquet", None) is not None:
            raise UsageError("--html renders one FILE, not --jsonl or --parquet")
        if args.output is not None or args.workers != 1:
            raise UsageError("-o/--output and --workers go with --jsonl")
        return run_render_html(args, resolve, parse_file)

    render_parser.set_defaults(func=render)


# ------------------------------------------------------------------ rendering with spans


def _spans_and_findings(args: argparse.Namespace, resolve: Callable[[str], Any],
                        parse_file: Callable[[str], Any]) -> tuple[Any, Any, tuple[Any, ...]]:
    """(format, rendering, findings) of FILE at the chosen layer."""
    from .. import _audit

    fmt = resolve(args.format)
    conv = parse_file(args.file)
    variables = dict(conv.variables)
    variables.update(args.var)
    if args.generation_prompt:
        variables["add_generation_prompt"] = True
    try:
        if args.layer == "template":
            rendering, findings = _audit.template_layer(fmt.name, conv.messages, args.now, False,
                                                        variables)
        else:
            rendering, findings = _audit.pipeline_layer(fmt.name, conv.messages, args.now,
                                                        variables)
    except ChatFormatError as exc:
        if "does not record spans" in str(exc):
            raise UsageError(f"{exc}: use --layer template") from None
        raise InputError(f"{_name(args.file)}: {_describe(exc)}") from None
    except TypeError as exc:  # a variable the Python API refuses
        raise InputError(f"{_name(args.file)}: {exc}") from None
    return fmt, rendering, findings


def describe(finding: Any) -> str:
    """One finding as one line (see the module docstring)."""
    if finding.kind == "dropped":
        return f"{finding.path}: dropped: {finding.detail} (prompt offset {finding.offset})"
    if finding.kind == "repr":
        shown = finding.token if len(finding.token) <= 80 else finding.token[:77] + "..."
        return (f"{finding.path}: repr: {finding.detail}: {shown} "
                f"(prompt offset {finding.offset})")
    line = (f"{finding.path}:{finding.input_offset}: {finding.token} "
            f"(prompt offset {finding.offset})")
    if finding.form != "value":
        line += " [in its rendered text]"
    if len(finding.sources) > 1:
        line += " [across: " + ", ".join(s if s is not None else "template"
                                         for s in finding.sources) + "]"
    return line


def summary(findings: Any, format_name: str) -> str:
    """``4 control strings of qwen3 in input text, 1 dropped input, 1 value printed as Python``."""
    counts = {kind: sum(1 for f in findings if f.kind == kind)
              for kind in ("control", "dropped", "repr")}
    parts = []
    if counts["control"]:
        parts.append(f"{counts['control']} control string{'s' if counts['control'] != 1 else ''}"
                     f" of {format_name} in input text")
    if counts["dropped"]:
        parts.append(f"{counts['dropped']} dropped input{'s' if counts['dropped'] != 1 else ''}")
    if counts["repr"]:
        parts.append(f"{counts['repr']} value{'s' if counts['repr'] != 1 else ''} printed as "
                     "Python syntax")
    return ", ".join(parts)


def run_audit(args: argparse.Namespace, resolve: Callable[[str], Any],
              parse_file: Callable[[str], Any]) -> int:
    if args.file is None:
        args.audit_parser.error("give FILE or --parquet IN (one of them)")  # exits with status 2
    if args.output is not None:
        raise UsageError("-o/--output goes with --parquet")
    fmt, _, findings = _spans_and_findings(args, resolve, parse_file)
    if args.json:
        sys.stdout.write(json.dumps([f.as_dict() for f in findings], ensure_ascii=False,
                                    indent=2) + "\n")
    else:
        for finding in findings:
            sys.stdout.write(json.dumps(describe(finding), ensure_ascii=False)[1:-1] + "\n")
    if findings:
        sys.stderr.write(f"chatformats: {_name(args.file)}: {summary(findings, fmt.name)}\n")
        return EXIT_FINDINGS
    return EXIT_OK


def run_render_html(args: argparse.Namespace, resolve: Callable[[str], Any],
                    parse_file: Callable[[str], Any]) -> int:
    from .. import html
    from .common import _write_stdout

    fmt, rendering, findings = _spans_and_findings(args, resolve, parse_file)
    page = html.page(rendering, findings, title=f"{fmt.name}: {_name(args.file)}",
                     layer=args.layer)
    _write_page(args.html, page)
    _write_stdout(rendering.text)
    return EXIT_OK


def _write_page(path: str, text: str) -> None:
    """The page (UTF-8) to ``path`` through the command's one output writer
    (:class:`chatformats._io.Output`): a regular file is replaced atomically, keeping its
    mode; a FIFO or a character device is streamed to; anything else is refused."""
    from .. import _io

    if path == "-":
        raise UsageError("--html needs a file (the prompt itself goes to stdout)")
    try:
        with _io.Output(path) as out:
            out.write(text.encode("utf-8"))  # the page holds no lone surrogate
            out.commit()
    except _io.OutputError as exc:
        raise _io.OutputError(f"cannot write the page: {exc}") from None
