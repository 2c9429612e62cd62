"""The ``chatformats`` command.

    chatformats formats                 list the formats and their status
    chatformats render FORMAT FILE      render a JSON conversation file (``-`` for stdin)

FILE holds a list of messages, or an object with ``messages``, ``tools`` and template
variables.  Exit codes: 0 success, 1 the template or input failed, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from . import ChatFormatError, formats, get_format, render


def _load(path: str) -> Any:
    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _cmd_formats(args: argparse.Namespace) -> int:
    for name in formats():
        fmt = get_format(name)
        models = ", ".join(fmt.model_ids) or "-"
        print(f"{name:24} {fmt.status:8} {models}")
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    try:
        data = _load(args.file)
    except OSError as exc:
        print(f"chatformats: {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except json.JSONDecodeError as exc:
        print(f"chatformats: {args.file}: invalid JSON: {exc}", file=sys.stderr)
        return 1
    if isinstance(data, list):
        messages, variables = data, {}
    elif isinstance(data, dict) and "messages" in data:
        variables = {k: v for k, v in data.items() if k != "messages"}
        messages = data["messages"]
    else:
        print(f"chatformats: {args.file}: expected a list of messages or an object with 'messages'",
              file=sys.stderr)
        return 1
    try:
        text = render(args.format, messages, **variables)
    except ChatFormatError as exc:
        print(f"chatformats: {args.file}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(text)  # exactly the prompt's bytes: no newline is added
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chatformats", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("formats", help="list the formats and their status")
    p.set_defaults(func=_cmd_formats)
    p = sub.add_parser("render", help="render a conversation file")
    p.add_argument("format", help="format name (see `chatformats formats`)")
    p.add_argument("file", help="JSON file: a list of messages or an object with messages; - for stdin")
    p.set_defaults(func=_cmd_render)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
