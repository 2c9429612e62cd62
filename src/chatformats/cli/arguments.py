"""Argument parsing: the options ``render``, ``verify`` and ``audit`` share, the ``--var`` and
``--workers`` value types, and a parser whose errors are one line."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import EXIT_USAGE, _parse_now
from .conversation import LAYERS, _RESERVED


def _parse_var(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=JSON, got {text!r}")
    if name in _RESERVED:
        raise argparse.ArgumentTypeError(f"{name} cannot be a template variable")
    try:
        return name, json.loads(value)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, or a number too long
        raise argparse.ArgumentTypeError(
            f"{name}: the value is not JSON ({getattr(exc, 'msg', exc)}); strings need JSON "
            f"quotes, e.g. --var '{name}=\"text\"'"
        ) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _add_input_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("format", metavar="FORMAT", help="format name or model id (see `chatformats formats`)")
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="a JSON file (- for stdin): a list of messages, an OpenAI "
                        "chat-completions request body (its messages as given; `chatformats "
                        "request` preprocesses them as a vLLM server does), or an object with "
                        "messages, tools and template variables")
    p.add_argument("--jsonl", metavar="IN",
                   help=f"{what} a JSONL dataset, one conversation per line (- for stdin)")
    add_render_options(p)
    p.add_argument("--progress", action="store_true", default=None,
                   help="show a progress bar on stderr (default: when stderr is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never show the progress bar")


def add_render_options(p: argparse.ArgumentParser) -> None:
    """How a conversation is rendered: ``--layer``, ``--generation-prompt``, ``--now``, ``--var``
    (``render``, ``verify`` and ``audit``)."""
    p.add_argument("--layer", choices=LAYERS, default="pipeline",
                   help="template: the template alone (chatformats.render); pipeline (default): "
                        "what transformers' apply_chat_template gives, i.e. what a served model "
                        "sees (chatformats.apply_chat_template)")
    p.add_argument("--generation-prompt", action="store_true",
                   help="pass add_generation_prompt=True (end with the assistant header)")
    p.add_argument("--now", metavar="ISO-DATE", type=_parse_now,
                   help="the clock behind strftime_now (default: the current time)")
    p.add_argument("--var", metavar="NAME=JSON", type=_parse_var, action="append", default=[],
                   help="a template variable, e.g. --var enable_thinking=false "
                        "--var date_string='\"26 Jul 2024\"' (repeatable; overrides the file)")


class _ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors: ``chatformats render: error: ... (see --help)`` instead
    of the usage block followed by the error (subcommand parsers inherit the class)."""

    def error(self, message: str) -> Any:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")
