"""Parsing on token ids: control tokens recognised by id.

A completion sampled as token ids says which of its control strings are control tokens: the
tokenizer's added tokens (``<|im_end|>``, ``</think>``, ``<tool_call>``, ...) have ids of their
own, and a model that writes the same characters with ordinary tokens (``<``, ``|``, ``im``,
...) wrote text.  :func:`parse_ids` reads the completion so:

1. the ids are cut into runs: each added token alone, the ordinary tokens between them together;
   each run is decoded on its own (an added token is its content), and the pieces must join to
   the tokenizer's decoding of the whole (a byte-level decoder's always do,
   ``Encoder.decodes_runs``; for any other decoder it is checked, and a decoder that does not
   decode runs independently is refused: ``ChatFormatError``);
2. in the ordinary runs, every occurrence of an added token's content (the longest first, left to
   right) is *masked*: replaced by as many characters of the Unicode private use planes, a
   first one naming the token and fillers, none of which occur in the completion or the prefix;
   no grammar matches them, so the text parser reads them as the text around them;
3. the text parser reads the masked text (:func:`chatformats.parse_response`, passed in), and every string
   of the message (content, reasoning, tool-call names, arguments and their keys, ids,
   diagnostics) gets its masks back as the characters they stood for.

A mask has the length of what it stands for, so the parser's offsets (diagnostics) are offsets
in the decoded completion.  Where no added token's content is spelled in an ordinary run, the
masked text is the decoded text, and the message is the text parser's.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ChatFormatError, ParseError

__all__ = ["parse_ids", "decode_runs"]

#: The first private-use code point masks are drawn from (Supplementary Private Use Area-A);
#: masks move to the next free block when the input holds one of these characters.
_PLANE = 0xF0000
_PLANE_END = 0x10FFFD


def decode_runs(enc: Any, ids: list[int]) -> list[tuple[str, bool]]:
    """``(text, is_added_token)`` for each run of ``ids``: an added token alone, the ordinary
    tokens between two of them together."""
    added = enc.contents
    runs: list[tuple[str, bool]] = []
    ordinary: list[int] = []
    for token in ids:
        if type(token) is not int:
            raise TypeError(f"token ids must be ints, not {type(token).__name__}")
        special = added.get(token)
        if special is None:
            ordinary.append(token)
            continue
        if ordinary:
            runs.append((enc.decode(ordinary), False))
            ordinary = []
        runs.append((special, True))
    if ordinary:
        runs.append((enc.decode(ordinary), False))
    return runs


_FINDERS: dict[int, tuple[Any, Any]] = {}


def _finder(enc: Any) -> Any:
    """A pattern of every added token's content (the longest first), per encoder."""
    hit = _FINDERS.get(id(enc))
    if hit is not None and hit[0] is enc:
        return hit[1]
    contents = sorted({c for c in enc.contents.values() if c}, key=lambda c: (-len(c), c))
    finder = re.compile("|".join(map(re.escape, contents))) if contents else None
    if len(_FINDERS) > 64:
        _FINDERS.clear()
    _FINDERS[id(enc)] = (enc, finder)
    return finder


class _Masks:
    """The masks of one completion: added-token contents to private-use strings and back."""

    __slots__ = ("_find", "_masks", "_back", "_unmask", "block")

    def __init__(self, contents: list[str], used: str) -> None:
        contents = sorted({c for c in contents if c}, key=lambda c: (-len(c), c))
        base = _PLANE
        while True:  # a block of len(contents) + 1 code points that the input does not hold
            end = base + len(contents) + 1
            if end > _PLANE_END:
                raise ChatFormatError("the completion holds too many private-use characters to "
                                      "mask its spelled control strings")
            block = {chr(c) for c in range(base, end)}
            if not any(ch in block for ch in used):
                break
            base = end
        self.block = range(base, end)
        filler = chr(base + len(contents))
        self._masks = {c: chr(base + i) + filler * (len(c) - 1) for i, c in enumerate(contents)}
        self._back = {mask: c for c, mask in self._masks.items()}
        self._find = re.compile("|".join(map(re.escape, contents))) if contents else None
        self._unmask = re.compile("|".join(map(re.escape, sorted(self._back, key=len, reverse=True)))) \
            if contents else None

    def mask(self, text: str) -> str:
        if self._find is None:
            return text
        return self._find.sub(lambda m: self._masks[m.group(0)], text)

    def unmask(self, value: Any) -> Any:
        """``value`` (a message, or any JSON value in it) with its masks given back, in place
        for containers."""
        if type(value) is str:
            return self._unmask.sub(lambda m: self._back[m.group(0)], value) if self._unmask else value
        if isinstance(value, dict):
            items = [(self.unmask(k), self.unmask(v)) for k, v in value.items()]
            value.clear()
            value.update(items)
            return value
        if isinstance(value, list):
            value[:] = [self.unmask(v) for v in value]
            return value
        return value


def parse_ids(parse_response: Any, name: str, ids: Any, enc: Any, prefix: str, tools: Any,
              strict: bool) -> Any:
    """The message token ids ``ids`` encode (see the module docstring); ``parse_response`` is
    the text parser (:func:`chatformats.parse_response`)."""
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise TypeError("with tokenizer=, response must be a list of token ids")
    ids = list(ids)
    runs = decode_runs(enc, ids)
    text = "".join(piece for piece, _ in runs)
    if not enc.decodes_runs and text != enc.decode(ids):
        raise ChatFormatError(
            f"{name}: the tokenizer does not decode its tokens run by run (the decoded runs differ "
            "from the decoding of the whole), so its control tokens cannot be told by id")
    finder = _finder(enc)
    spelled = sorted({m.group(0) for piece, is_added in runs if not is_added
                      for m in finder.finditer(piece)}) if finder is not None else []
    if not spelled:
        return parse_response(name, text, prefix=prefix, tools=tools, strict=strict)
    masks = _Masks(spelled, text + prefix)
    masked = "".join(piece if is_added else masks.mask(piece) for piece, is_added in runs)
    message = parse_response(name, masked, prefix=prefix, tools=tools, strict=strict)
    masks.unmask(message)
    masks.unmask(message.diagnostics)
    if _masked(message, masks):
        raise ParseError(f"{name}: a spelled control string was cut by the grammar")  # never expected
    return message


def _masked(value: Any, masks: _Masks) -> bool:
    """Whether a mask's character is left in ``value``."""
    if type(value) is str:
        return any(ord(ch) in masks.block for ch in value)
    if isinstance(value, dict):
        return any(_masked(k, masks) or _masked(v, masks) for k, v in value.items())
    if isinstance(value, list):
        return any(_masked(v, masks) for v in value)
    return False
