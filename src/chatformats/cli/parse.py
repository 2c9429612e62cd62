"""``chatformats parse FORMAT FILE|-``: read a completion back into an assistant message.

    chatformats parse FORMAT FILE|- (--prefix FILE | --no-prefix) [--tools FILE] [--stream] [--strict]

FILE (``-``: stdin) is the completion's text exactly (UTF-8, no trailing newline added or
removed); ``--prefix FILE`` is the prompt it continued, required as ``parse_response``'s
``prefix=`` is (``--no-prefix``: there is none, the completion starts the assistant turn, as
``prefix=""``; neither is a usage error, status 2); ``--tools FILE`` a JSON list of tool schemas to cast arguments by.
Output: the message as JSON.  With ``--stream``: the input is read as it arrives and fed to the
streaming parser; each event is printed as a JSON line (``region_open`` / ``region_chunk`` /
``region_close``, as transformers' ``ResponseParser`` names them), then
``{"type": "message", "message": ...}``.  The output is strict JSON (a message holding a
number JSON cannot write, NaN or an infinity, is an error; a lone surrogate is written as its
``\\u`` escape).  Each recovery the default reading made is a line
``chatformats: note: ...`` on stderr; with ``--strict`` (the exact reading) a completion that is
not a turn of the format exits with status 1 and the parser's message on stderr, on one line.
Nothing else: bad input files, a format without a parser, all exit with a one-line message.
"""

from __future__ import annotations

import argparse
import codecs
import json
import sys
from typing import IO, Any

from ..errors import ChatFormatError, ParseError

CHUNK = 4096
#: The most of one error or note line (a message quotes a bounded excerpt already).
LINE = 2000


def add_parser(sub: Any, resolve: Any, input_error: type[Exception]) -> None:
    """Register ``parse`` on the ``build_parser`` sub-parsers (``resolve``: FORMAT -> format)."""
    p = sub.add_parser("parse", help="read a completion back into an assistant message",
                       description="Parse FILE (a completion, - for stdin) into the assistant "
                                   "message it encodes, printed as JSON.")
    p.add_argument("format", metavar="FORMAT", help="format name or model id")
    p.add_argument("file", metavar="FILE", help="the completion's text (- for stdin)")
    given = p.add_mutually_exclusive_group()
    given.add_argument("--prefix", metavar="FILE",
                       help="the prompt the completion continued (required, as parse_response's "
                            "prefix=, unless --no-prefix)")
    given.add_argument("--no-prefix", action="store_true",
                       help="there is no prompt: the completion starts the assistant turn "
                            "(parse_response's prefix=\"\")")
    p.add_argument("--tools", metavar="FILE", help="JSON list of tools: cast arguments by their schemas")
    p.add_argument("--stream", action="store_true",
                   help="feed the input as it arrives; print each event as a JSON line")
    p.add_argument("--strict", action="store_true",
                   help="the exact reading: refuse what the template would not write")
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


class _Unwritable(Exception):
    """A message JSON cannot express (NaN, an infinity)."""


def _json_line(value: Any) -> str:
    """``value`` as one line of strict JSON: UTF-8 text where it can be, ``\\u`` escapes where
    a lone surrogate cannot be encoded; NaN and infinities refused."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise _Unwritable("the message holds a number JSON cannot write (NaN or an infinity)") from None
    except RecursionError:
        raise _Unwritable("the message is nested too deeply to write as JSON") from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a \ud800 escape in the completion's JSON
        text = json.dumps(value, ensure_ascii=True, allow_nan=False)
    return text + "\n"


def _line(value: Any) -> None:
    sys.stdout.write(_json_line(value))
    sys.stdout.flush()


def one_line(text: str) -> str:
    """``text`` on one line, at most :data:`LINE` characters."""
    text = " ".join(text.split("\n"))
    return text if len(text) <= LINE else text[:LINE - 3] + "..."


def _notes(diagnostics: list[dict[str, Any]]) -> None:
    for d in diagnostics:
        sys.stderr.write(one_line(f"chatformats: note: recovered {d['kind']} at offset "
                                  f"{d['offset']}: {d['detail']}") + "\n")


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
    from ..parsing import ResponseParser, family, parse_response

    fmt = resolve(args.format)
    name = fmt.name
    try:
        family(name)
    except ChatFormatError as exc:
        sys.stderr.write(one_line(f"chatformats: {exc}") + "\n")
        return 2
    if args.prefix is None and not args.no_prefix:
        # As parse_response, whose prefix= is required: the template writes part of the turn
        # (a <think> prefill), so a missing prompt would change the reading silently.
        sys.stderr.write("chatformats: parse: give the prompt the completion continued "
                         "(--prefix FILE), or --no-prefix when there is none\n")
        return 2
    prefix = _read_text(args.prefix, input_error) if args.prefix is not None else ""
    tools = None
    if args.tools is not None:
        text = _read_text(args.tools, input_error)
        try:
            tools = json.loads(text)
        except json.JSONDecodeError as exc:
            raise input_error(f"{args.tools}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
        except RecursionError:
            raise input_error(f"{args.tools}: JSON nested too deeply to read") from None
        except ValueError as exc:  # an integer too long to convert
            raise input_error(f"{args.tools}: invalid JSON: {one_line(str(exc))[:200]}") from None
        if not isinstance(tools, list):
            raise input_error(f"{args.tools}: expected a JSON list of tools")
    strict = bool(getattr(args, "strict", False))
    try:
        if not args.stream:
            message = parse_response(name, _read_text(args.file, input_error), prefix=prefix,
                                     tools=tools, strict=strict)
            line = _json_line(message)
            _notes(message.diagnostics)
            sys.stdout.write(line)
            sys.stdout.flush()
            return 0
        parser = ResponseParser(name, prefix=prefix, tools=tools, strict=strict)
        for event in parser.initial_events:
            _line(event)
        for chunk in _chunks(args.file, input_error):
            for event in parser.feed(chunk):
                _line(event)
        message, events = parser.finalize()
        for event in events:
            _line(event)
        _line({"type": "message", "message": message})
        _notes(message.diagnostics)
        return 0
    except (ParseError, _Unwritable) as exc:
        sys.stderr.write(one_line(f"chatformats: {exc}") + "\n")
        return 1
