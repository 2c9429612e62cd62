"""Python literals read without ``compile``: what ``ast.literal_eval`` gives for a text whose
value is JSON-like data, and a refusal for every other text.

vLLM's Qwen3-Coder tool parser converts a parameter value it cannot read otherwise with
``ast.literal_eval`` (``_cast.qwen3_coder_value``).  ``ast.literal_eval`` compiles its text,
which this package never does (no ``compile``, ``eval`` or ``exec``: ``docs/guarantees.md``),
so :func:`literal` reads the same language: numbers (decimal, hexadecimal, octal and binary
integers with ``_`` separators, floats), strings (``'``, ``"``, triple-quoted, ``r`` and ``u``
prefixes, every escape, adjacent strings joined), ``True``, ``False``, ``None``, ``+`` or
``-`` before a number, lists, tuples (with or without parentheses at the top), dicts,
comments, line continuations and the newlines Python allows inside brackets.

Where ``ast.literal_eval`` gives a value that is not JSON-like (a set, bytes, a complex number,
an f-string refused) the caller keeps the text (vLLM's ``json.dumps`` of such a value fails), so
:func:`literal` refuses those texts too (:class:`ValueError`), as it refuses every text
``ast.literal_eval`` refuses.  A tuple is a tuple and a dict keeps Python's key semantics
(``{1: 'a', True: 'b'}`` is ``{1: 'b'}``); the caller turns the value into what vLLM's JSON
gives.  ``tests/test_qwen3_coder_parse.py`` checks it against ``ast.literal_eval`` itself.
"""

from __future__ import annotations

import re
from typing import Any

#: Python's tokenizer refuses more nested brackets than this ("too many nested parentheses").
MAX_NESTING = 200

_NUMBER = re.compile(
    r"(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+"
    r"|(?:(?:[0-9](?:_?[0-9])*)?\.[0-9](?:_?[0-9])*|[0-9](?:_?[0-9])*\.?)(?:[eE][+-]?[0-9](?:_?[0-9])*)?)"
    r"[jJ]?"
)
_DECIMAL_INT = re.compile(r"[1-9](?:_?[0-9])*|0(?:_?0)*")
_NAME_CHAR = re.compile(r"[0-9A-Za-z_\u0080-\U0010ffff]")
_PREFIX = re.compile(r"([A-Za-z]{1,2})?(['\"])")
_SIMPLE_ESCAPES = {"\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
                   "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_STRING_PREFIXES = {"", "r", "u"}


def literal(text: str) -> Any:
    """The value ``ast.literal_eval(text)`` gives, for a text whose value is JSON-like (see the
    module docstring); :class:`ValueError` for any other text."""
    # Python reads a str source with universal newlines; literal_eval strips spaces and tabs
    source = text.replace("\r\n", "\n").replace("\r", "\n").lstrip(" \t")
    if "\x00" in source:
        raise ValueError("a null character")
    reader = _Reader(source)
    reader.leading()
    value = reader.expressions(top=True)
    reader.space()
    if not reader.at_end():
        raise ValueError(f"unexpected text at {reader.pos}")
    return value


class _Reader:
    __slots__ = ("text", "pos", "depth")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0  # open brackets: newlines inside them are whitespace

    def leading(self) -> None:
        """Blank and comment lines before the expression (an indented first line is Python's
        IndentationError)."""
        text, n = self.text, len(self.text)
        pos, first = 0, True
        while True:
            line = pos
            while pos < n:
                if text[pos] in " \t\x0c":
                    pos += 1
                elif text.startswith("\\\n", pos) and pos + 2 < n:
                    pos += 2
                else:
                    break
            if pos < n and text[pos] == "#":
                end = text.find("\n", pos)
                pos = n if end < 0 else end
            if pos < n and text[pos] == "\n":
                pos += 1
                first = False
                continue
            # the line's indentation (continued lines count: Python's tokenizer reads it on
            # across a backslash-newline), after the last form feed
            indent = text[line:pos].replace("\\\n", "").rpartition("\x0c")[2]
            if pos < n and indent:
                raise ValueError("an indented line")
            break
        self.pos = pos

    def space(self) -> None:
        """Whitespace, comments and line continuations on the line (and newlines inside
        brackets, where Python's tokenizer ignores them)."""
        text, n = self.text, len(self.text)
        pos = self.pos
        while pos < n:
            ch = text[pos]
            if ch in " \t\x0c":
                pos += 1
            elif ch == "\\" and text.startswith("\\\n", pos) and pos + 2 < n:
                pos += 2
            elif ch == "#":
                end = text.find("\n", pos)
                pos = n if end < 0 else end
            elif ch == "\n" and self.depth:
                pos += 1
            else:
                break
        self.pos = pos

    def at_end(self) -> bool:
        """Nothing but blank and comment lines from here (outside brackets)."""
        pos = self.pos
        return pos >= len(self.text) or (self.depth == 0 and self.text[pos] == "\n"
                                         and _only_comments(self.text[pos:]))

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expressions(self, top: bool = False, closer: str = "") -> Any:
        """One expression, or several separated by commas (a tuple)."""
        first = self.expression()
        self.space()
        if self.peek() != ",":
            return first
        items = [first]
        while self.peek() == ",":
            self.pos += 1
            self.space()
            if self.at_end() or (closer and self.peek() == closer):
                break
            items.append(self.expression())
            self.space()
        return tuple(items)

    def expression(self) -> Any:
        ch = self.peek()
        if ch in "+-":
            self.pos += 1
            self.space()
            number = self.signed_operand()
            return -number if ch == "-" else +number
        return self.atom()

    def signed_operand(self) -> Any:
        """The operand of a unary ``+``/``-``: a number (in parentheses or not)."""
        if self.peek() == "(":
            self.open()
            value = self.signed_operand_inner()
            self.close(")")
            return value
        return self.number(signed=True)

    def signed_operand_inner(self) -> Any:
        self.space()
        value = self.signed_operand()
        self.space()
        return value

    def open(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ValueError("too many nested brackets")
        self.pos += 1

    def close(self, closer: str) -> None:
        self.space()
        if self.peek() != closer:
            raise ValueError(f"expected {closer!r} at {self.pos}")
        self.depth -= 1
        self.pos += 1

    def atom(self) -> Any:
        ch = self.peek()
        text = self.text
        if ch == "[":
            self.open()
            self.space()
            items: list[Any] = []
            while self.peek() != "]":
                items.append(self.expression())
                self.space()
                if self.peek() != ",":
                    break
                self.pos += 1
                self.space()
            self.close("]")
            return items
        if ch == "(":
            self.open()
            self.space()
            if self.peek() == ")":
                self.close(")")
                return ()
            value = self.expressions(closer=")")
            self.close(")")
            return value
        if ch == "{":
            return self.braces()
        if ch.isdigit() or (ch == "." and self.pos + 1 < len(text) and text[self.pos + 1].isdigit()):
            return self.number(signed=False)
        for name, value in (("True", True), ("False", False), ("None", None)):
            if text.startswith(name, self.pos):
                end = self.pos + len(name)
                if end < len(text) and _NAME_CHAR.match(text[end]):
                    break
                self.pos = end
                return value
        if _PREFIX.match(text, self.pos):
            return self.strings()
        raise ValueError(f"no literal at {self.pos}")

    def braces(self) -> Any:
        self.open()
        self.space()
        if self.peek() == "}":
            self.close("}")
            return {}
        key = self.expression()
        self.space()
        if self.peek() != ":":
            raise ValueError("a set")  # literal_eval gives a set: not JSON-like
        out: dict[Any, Any] = {}
        while True:
            self.pos += 1  # the ':'
            self.space()
            value = self.expression()
            try:
                out[key] = value
            except TypeError:  # an unhashable key: literal_eval fails too
                raise ValueError("an unhashable key") from None
            self.space()
            if self.peek() != ",":
                break
            self.pos += 1
            self.space()
            if self.peek() == "}":
                break
            key = self.expression()
            self.space()
            if self.peek() != ":":
                raise ValueError(f"expected ':' at {self.pos}")
        self.close("}")
        return out

    def number(self, signed: bool) -> Any:
        text = self.text
        m = _NUMBER.match(text, self.pos)
        if m is None:
            raise ValueError(f"no number at {self.pos}")
        token = m.group()
        end = m.end()
        if end < len(text) and (_NAME_CHAR.match(text[end]) or text[end] == "."):
            raise ValueError(f"an invalid number at {self.pos}")
        if token[-1] in "jJ":
            raise ValueError("a complex number")
        self.pos = end
        digits = token.replace("_", "")
        if token[:2] in ("0x", "0X"):
            return int(digits[2:], 16)
        if token[:2] in ("0o", "0O"):
            return int(digits[2:], 8)
        if token[:2] in ("0b", "0B"):
            return int(digits[2:], 2)
        if "." in token or "e" in token or "E" in token:
            return float(digits)
        if not _DECIMAL_INT.fullmatch(token):
            raise ValueError("leading zeros in a decimal integer")
        return int(digits)

    def strings(self) -> str:
        """One or more adjacent string literals, joined."""
        pieces: list[str] = []
        while True:
            m = _PREFIX.match(self.text, self.pos)
            if m is None:
                break
            prefix = (m.group(1) or "").lower()
            if prefix not in _STRING_PREFIXES:
                if prefix in ("b", "br", "rb", "f", "fr", "rf", "t", "tr", "rt"):
                    raise ValueError("bytes or a formatted string")
                break  # a name
            self.pos = m.start(2)
            pieces.append(self.string(raw="r" in prefix))
            self.space()
        if not pieces:
            raise ValueError(f"no literal at {self.pos}")
        return "".join(pieces)

    def string(self, raw: bool) -> str:
        text = self.text
        quote = text[self.pos]
        triple = text.startswith(quote * 3, self.pos)
        delimiter = quote * 3 if triple else quote
        pos = self.pos + len(delimiter)
        out: list[str] = []
        n = len(text)
        while True:
            if pos >= n:
                raise ValueError("an unterminated string")
            ch = text[pos]
            if text.startswith(delimiter, pos):
                pos += len(delimiter)
                break
            if ch == "\n" and not triple:
                raise ValueError("a newline in a string")
            if ch != "\\":
                out.append(ch)
                pos += 1
                continue
            if pos + 1 >= n:
                raise ValueError("an unterminated string")
            nxt = text[pos + 1]
            if raw:  # the backslash stays, and keeps the next character from ending the string
                out.append(ch + nxt)
                pos += 2
                continue
            simple = _SIMPLE_ESCAPES.get(nxt)
            if simple is not None:
                out.append(simple)
                pos += 2
            elif nxt in "01234567":
                end = pos + 2
                while end < n and end < pos + 4 and text[end] in "01234567":
                    end += 1
                out.append(chr(int(text[pos + 1:end], 8)))
                pos = end
            elif nxt in "xuU":
                size = {"x": 2, "u": 4, "U": 8}[nxt]
                digits = text[pos + 2:pos + 2 + size]
                if len(digits) != size or not all(c in "0123456789abcdefABCDEF" for c in digits):
                    raise ValueError("a truncated escape")
                code = int(digits, 16)
                if code > 0x10FFFF:
                    raise ValueError("an escape out of range")
                out.append(chr(code))
                pos += 2 + size
            elif nxt == "N":
                import unicodedata

                end = text.find("}", pos + 3)
                if not text.startswith("{", pos + 2) or end < 0:
                    raise ValueError("a malformed \\N escape")
                try:
                    out.append(unicodedata.lookup(text[pos + 3:end]))
                except KeyError:
                    raise ValueError("an unknown character name") from None
                pos = end + 1
            else:  # an unknown escape keeps its backslash
                out.append("\\")
                pos += 1
        self.pos = pos
        return "".join(out)


def _only_comments(rest: str) -> bool:
    """Whether ``rest`` (from a newline) is blank and comment lines only; a last line of
    spaces or tabs without its newline is Python's IndentationError."""
    if rest.endswith("\\\n") and "#" not in rest[:-2].rpartition("\n")[2]:
        return False  # a continuation into the end of the text
    lines = rest.replace("\\\n", "").split("\n")  # continued lines joined
    if not all(not line.strip(" \t\x0c") or line.lstrip(" \t\x0c").startswith("#") for line in lines):
        return False
    last = lines[-1]
    return bool(last.strip(" \t\x0c")) or not last.rpartition("\x0c")[2]
