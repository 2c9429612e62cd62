"""``chatformats request FORMAT FILE``: the prompt a vLLM server builds for an OpenAI
chat-completions request body (:func:`chatformats.openai.render_request`).

    chatformats request cogito body.json                 the prompt, exactly, on stdout
    chatformats request cogito body.json --preprocess    the conversation and the arguments
                                                         vLLM passes to apply_chat_template

The server's options that change the prompt are options here too: ``--content-format``
(``--chat-template-content-format``), ``--default-chat-template-kwargs`` and
``--exclude-tools-when-tool-choice-none``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _kwargs(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        value = None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return value


def add_parser(sub: Any) -> None:
    """Register the ``request`` command on the subcommand parsers ``sub``."""
    from .common import _parse_now

    p = sub.add_parser(
        "request", help="render an OpenAI chat-completions request body as vLLM does",
        description="Print the prompt a vLLM OpenAI-compatible server builds for the request "
                    "body in FILE (- for stdin): vLLM's message preprocessing and defaults, then "
                    "the format's template.")
    p.add_argument("format", metavar="FORMAT", help="format name or model id")
    p.add_argument("file", metavar="FILE", help="the request body as JSON (- for stdin)")
    p.add_argument("--now", metavar="ISO-DATE", type=_parse_now,
                   help="the clock behind strftime_now (default: the current time)")
    p.add_argument("--content-format", choices=("auto", "string", "openai"), default="auto",
                   help="the server's --chat-template-content-format (default auto: as vLLM "
                        "detects it for the template)")
    p.add_argument("--default-chat-template-kwargs", metavar="JSON", type=_kwargs, default=None,
                   help="the server's --default-chat-template-kwargs")
    p.add_argument("--exclude-tools-when-tool-choice-none", action="store_true",
                   help="the server's option of that name")
    p.add_argument("--strict", action="store_true",
                   help="refuse (exit 1) what the server would lose or misprint without a word: "
                        "a chat_template_kwargs entry the template does not read, tool-call "
                        "arguments that are not JSON, input the template drops, a value it "
                        "prints as Python syntax")
    p.add_argument("--preprocess", action="store_true",
                   help="print the conversation and the arguments vLLM passes to "
                        "apply_chat_template (JSON) instead of the prompt")
    p.set_defaults(func=_cmd_request)


def _cmd_request(args: argparse.Namespace) -> int:
    from ..errors import ChatFormatError
    from ..openai import preprocess_request, render_request
    from .common import EXIT_OK, InputError, _describe, _name, _read_json, _resolve_format, _write_stdout

    fmt = _resolve_format(args.format)
    body = _read_json(args.file)
    options = dict(content_format=args.content_format,
                   default_chat_template_kwargs=args.default_chat_template_kwargs,
                   exclude_tools_when_tool_choice_none=args.exclude_tools_when_tool_choice_none)
    try:
        if args.preprocess:
            messages, kwargs = preprocess_request(fmt, body, **options)
            text = json.dumps({"messages": messages, "kwargs": kwargs}, ensure_ascii=False,
                              indent=2) + "\n"
        else:
            text = render_request(fmt, body, now=args.now, strict=args.strict, **options)
    except ChatFormatError as exc:
        raise InputError(f"{_name(args.file)}: {_describe(exc)}") from None
    _write_stdout(text)
    sys.stdout.flush()
    return EXIT_OK
