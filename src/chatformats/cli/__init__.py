"""The ``chatformats`` command (also ``python -m chatformats``).

    chatformats formats                          the formats and their status
    chatformats show FORMAT                      model ids, special tokens, template, variables
    chatformats render FORMAT FILE               render one conversation (FILE or - for stdin)
    chatformats render FORMAT --jsonl IN [-o OUT] [--workers N]
                                                 render a JSONL dataset into JSONL
    chatformats render FORMAT --parquet IN [-o OUT]  a Parquet file into Parquet
    chatformats verify FORMAT FILE|--jsonl IN    render with the port and with the reference
                                                 template, and show any difference
    chatformats parse FORMAT FILE|- (--prefix FILE | --no-prefix) [--stream]
                                                 read a completion back into a message
    chatformats request FORMAT FILE              the prompt a vLLM server builds for an OpenAI
                                                 chat-completions request body

An input is a list of messages; an OpenAI chat-completions request body (``messages``,
``tools``, ``chat_template_kwargs`` as vLLM and SGLang accept them); or an object with
``messages``, ``tools`` and template variables.

Exit status: 0 success; 1 an input or a render failed (for ``--jsonl``: at least one line
failed, every other line is still written), or the run could not finish (an input or the
output cannot be read or written, a worker process died); 2 usage error (bad arguments,
unknown format, ``parse`` without ``--prefix`` or ``--no-prefix``); 3 ``verify`` found a
difference, ``audit`` found a control string in input text (and no row failed); 4 ``verify`` cannot run (jinja2, or
transformers for the pipeline layer, is not installed); 130 interrupted (SIGINT, Ctrl-C);
143 terminated (SIGTERM).  Every failure is one line on stderr (``--jsonl`` adds the failed
lines, one per line).

The modules beside this one hold one concern each: :mod:`.arguments` (argument parsing),
:mod:`.conversation` (an input, from its JSON to the prompt), :mod:`.render`, :mod:`.verify`,
:mod:`.show`, :mod:`.parse` and :mod:`.request` (one command each), :mod:`.progress` (the
progress bar), :mod:`.io` (reading any stream; writing stdout, ``-o`` and ``--html``), :mod:`.workers`
(worker processes, interrupts), :mod:`.common` (exit statuses, errors, what they all share).
This one holds :func:`main` and the table of subcommands (:func:`build_parser`).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Sequence

from .. import _io
from .arguments import _add_input_options, _ArgumentParser, _positive
from .common import (
    EXIT_DIFFERENT,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NO_REFERENCE,
    EXIT_OK,
    EXIT_USAGE,
    InputError,
    UsageError,
    _Stopped,
    _resolve_format,
)
from .._rows import (
    _WARNED,
    TEMPLATE_VARIABLES,
    Conversation,
    Options,
    _parse_file,
    parse_conversation,
    render_conversation,
)
from .render import _cmd_render, render_line
from .show import _cmd_formats, _cmd_show
from .verify import _cmd_verify
from .workers import Interrupted, Interrupts

__all__ = ["main", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_DIFFERENT", "EXIT_NO_REFERENCE",
           "EXIT_INTERRUPTED",
           # one input, rendered as the command renders it (for embedding and tests)
           "Conversation", "InputError", "Options", "TEMPLATE_VARIABLES", "parse_conversation",
           "render_conversation", "render_line"]


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="chatformats",
        description="Render LLM chat prompts byte-for-byte as the models' own chat templates do.",
        epilog="exit status: 0 ok; 1 an input, a render or the run failed (a file that cannot "
               "be read or written, a worker process that died); 2 usage error; "
               "3 verify found a difference, or audit found a control string in input text; "
               "4 verify's reference renderer is not installed; "
               "130 interrupted (Ctrl-C); 143 terminated (SIGTERM). docs/cli.md describes "
               "every command and status.",
    )
    from .._version import __version__

    parser.add_argument("--version", action="version", version=f"chatformats {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("formats", help="list the formats and their status")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(func=_cmd_formats)

    p = sub.add_parser("show", help="a format's model ids, special tokens, template and variables")
    p.add_argument("format", metavar="FORMAT", help="format name or model id")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("render", help="render a conversation, or a JSONL dataset",
                       description="Render FILE (the prompt goes to stdout exactly, no newline "
                                   "added), or --jsonl IN into JSONL ({\"prompt\": ...} or "
                                   "{\"error\": ..., \"line\": N} per line, in order).")
    _add_input_options(p, "render")
    p.set_defaults(parser=p)
    p.add_argument("-o", "--output", metavar="OUT",
                   help="with --jsonl or --parquet: write here (default stdout); OUT is "
                        "replaced only when the run finishes (written beside it, then renamed)")
    from . import parquet as _parquet_cli

    _parquet_cli.add_options(p)
    _parquet_cli.add_ids_option(p)
    p.add_argument("--strict", action="store_true",
                   help="refuse (exit 1) a variable the template does not read, input it drops "
                        "and a value it prints as Python syntax (what `chatformats audit` "
                        "reports as dropped or repr), naming the path")
    p.add_argument("--workers", metavar="N", type=_positive, default=1,
                   help="with --jsonl: render in N processes (default 1)")
    p.set_defaults(func=_cmd_render)
    from . import audit as _audit

    _audit.add_html_option(p, _resolve_format, _parse_file)

    p = sub.add_parser("verify", help="compare the port with the reference template (needs jinja2)",
                       description="Render each input with the port and with the reference "
                                   "template (jinja2 configured as transformers configures it; "
                                   "--layer pipeline: transformers' own apply_chat_template) "
                                   "and show any difference.")
    _add_input_options(p, "verify")
    p.set_defaults(parser=p)
    p.set_defaults(func=_cmd_verify)

    from . import parse as _parse

    _parse.add_parser(sub, _resolve_format, InputError)
    from .request import add_parser as add_request_parser

    add_request_parser(sub)
    _audit.add_parser(sub, _resolve_format, _parse_file)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status.

    For the whole run, stdout accounts for every byte (:func:`.io.accounted_stdout`) and
    SIGTERM ends the run as Ctrl-C does (one line, status 143, no traceback); a run whose
    output failed leaves nothing buffered that could fail again at exit."""
    parser = build_parser()
    _WARNED.clear()  # each run reports its unknown variables once
    args = parser.parse_args(argv)
    if args.command in ("render", "verify"):
        sources = [args.file, args.jsonl, getattr(args, "parquet", None)]
        if sum(source is not None for source in sources) != 1:
            args.parser.error("give FILE or --jsonl IN (one of them)" if args.command == "verify"
                              else "give FILE, --jsonl IN or --parquet IN (one of them)")
    with _io.accounted_stdout(), Interrupts((signal.SIGTERM,)):
        status = _run(args)
        _settle_stdout()
    return status


def _run(args: argparse.Namespace) -> int:
    try:
        status: int = args.func(args)
        sys.stdout.flush()  # a full disk is reported here, not at exit
    except UsageError as exc:
        return _fail(f"chatformats: {exc}", EXIT_USAGE)
    except (InputError, _io.ReadError, _io.OutputError) as exc:
        return _fail(f"chatformats: {exc}", EXIT_FAILED)
    except _Stopped as exc:
        return _fail(f"chatformats: {exc}", exc.status)
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly.
        _discard_stdout()
        return EXIT_FAILED
    except OSError as exc:  # stdout on a full disk, an I/O error
        _discard_stdout()
        return _fail(f"chatformats: cannot write the output: {exc.strerror or exc}", EXIT_FAILED)
    except Interrupted as exc:
        what = "terminated" if exc.signum == signal.SIGTERM else "interrupted"
        return _fail(f"chatformats: {what}", exc.exit_status)
    except KeyboardInterrupt:
        return _fail("chatformats: interrupted", EXIT_INTERRUPTED)
    return status


def _settle_stdout() -> None:
    """At the end of a run: flush what stdout still holds; if that fails (after a failure
    already reported), drop it, so that nothing fails again at exit ("Exception ignored", status 120)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _discard_stdout()


def _fail(message: str, status: int) -> int:
    """``message`` as one line on stderr; returns ``status``."""
    try:
        sys.stderr.write(message.replace("\n", "\\n") + "\n")
        sys.stderr.flush()
    except OSError:
        pass
    return status


def _discard_stdout() -> None:
    """Point stdout at the null device, so that what is still buffered cannot fail again at
    exit (a second error message, a different status)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
