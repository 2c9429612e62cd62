"""``chatformats parse FORMAT FILE|-``: read a completion back into an assistant message.

    chatformats parse FORMAT FILE|- [--prefix FILE] [--tools FILE] [--stream]

FILE (``-``: stdin) is the completion's text exactly (UTF-8, no trailing newline added or
removed); ``--prefix FILE`` is the prompt it continued (default: none, the completion starts
the assistant turn); ``--tools FILE`` a JSON list of tool schemas to cast arguments by.
Output: the message as JSON.  With ``--stream``: the input is read as it arrives and fed to the
streaming parser; each event is printed as a JSON line (``region_open`` / ``region_chunk`` /
``region_close``, as transformers' ``ResponseParser`` names them), then
``{"type": "message", "message": ...}``.  A completion that is not a turn of the format exits
with status 1 and the parser's message on stderr.
"""

from __future__ import annotations

import argparse
import codecs
import json
import sys
from typing import IO, Any

from ..errors import ParseError

CHUNK = 4096


def add_parser(sub: Any, resolve: Any, input_error: type[Exception]) -> None:
    """Register ``parse`` on the ``build_parser`` sub-parsers (``resolve``: FORMAT -> format)."""
    p = sub.add_parser("parse", help="read a completion back into an assistant message",
                       description="Parse FILE (a completion, - for stdin) into the assistant "
                                   "message it encodes, printed as JSON.")
    p.add_argument("format", metavar="FORMAT", help="format name or model id")
    p.add_argument("file", metavar="FILE", help="the completion's text (- for stdin)")
    p.add_argument("--prefix", metavar="FILE", help="the prompt the completion continued")
    p.add_argument("--tools", metavar="FILE", help="JSON list of tools: cast arguments by their schemas")
    p.add_argument("--stream", action="store_true",
                   help="feed the input as it arrives; print each event as a JSON line")
    p.set_defaults(func=lambda args: run(args, resolve, input_error))


def _read_text(path: str, input_error: type[Exception]) -> str:
    try:
        if path == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                raw = handle.read()
    except OSError as exc:
        raise input_error(f"{path}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise input_error(f"{path}: not UTF-8 (byte {exc.start + 1})") from None


def _line(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _chunks(path: str, input_error: type[Exception]) -> Any:
    """The UTF-8 text of ``path`` in pieces as they can be read (stdin: as they arrive)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        handle: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise input_error(f"{path}: {exc.strerror or exc}") from None
    try:
        read = getattr(handle, "read1", handle.read)
        while True:
            block = read(CHUNK)
            text = decoder.decode(block, final=not block)
            if text:
                yield text
            if not block:
                return
    except UnicodeDecodeError as exc:
        raise input_error(f"{path}: not UTF-8 ({exc.reason})") from None
    finally:
        if path != "-":
            handle.close()


def run(args: argparse.Namespace, resolve: Any, input_error: type[Exception]) -> int:
    from ..parsing import ResponseParser, parse_response

    name = resolve(args.format).name
    prefix = _read_text(args.prefix, input_error) if args.prefix is not None else ""
    tools = None
    if args.tools is not None:
        try:
            tools = json.loads(_read_text(args.tools, input_error))
        except json.JSONDecodeError as exc:
            raise input_error(f"{args.tools}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
        if not isinstance(tools, list):
            raise input_error(f"{args.tools}: expected a JSON list of tools")
    try:
        if not args.stream:
            message = parse_response(name, _read_text(args.file, input_error), prefix=prefix, tools=tools)
            _line(message)
            return 0
        parser = ResponseParser(name, prefix=prefix, tools=tools)
        for event in parser.initial_events:
            _line(event)
        for chunk in _chunks(args.file, input_error):
            for event in parser.feed(chunk):
                _line(event)
        message, events = parser.finalize()
        for event in events:
            _line(event)
        _line({"type": "message", "message": message})
        return 0
    except ParseError as exc:
        sys.stderr.write(f"chatformats: {exc}\n")
        return 1
