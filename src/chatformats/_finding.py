"""The audit's finding, and the input paths its findings name (a leaf: the audit and the
dropped/repr checks of :mod:`chatformats._silent` both build findings)."""

from __future__ import annotations

from typing import Any, Mapping

from ._record import Record

__all__ = ["Finding", "resolve"]


class Finding(Record):
    """One finding of the audit (read-only): an occurrence of a control string in input-derived
    text (``kind == "control"``), input that contributed no character (``"dropped"``), or a value
    printed through ``str()`` as Python syntax (``"repr"``; see :mod:`chatformats._silent`).

    - ``token``: the control string;
    - ``offset``: where it starts in the rendered text;
    - ``path``: the input value it came from (error-path syntax, ``messages[3].content``);
    - ``input_offset``: where it starts in that value (``form == "value"``), or in the text the
      prompt holds for the value, its JSON or ``str()`` (``form == "rendered"``);
    - ``sources``: the source of every span the occurrence overlaps, in order (``(path,)`` when it
      lies inside one input value; ``None`` stands for template text);
    - ``kind``: ``"control"``, ``"dropped"`` or ``"repr"``; ``detail``: what was found, in words.

    For ``"repr"``, ``token`` is the text the prompt holds (``str()`` of the value at ``path``);
    for ``"dropped"`` it is ``""`` and ``offset`` is where the input would have been (before the
    next message's text, after the message's own, or 0 for a variable).
    """

    __slots__ = ("token", "offset", "path", "input_offset", "form", "sources", "kind", "detail")
    _defaults = {"kind": "control", "detail": ""}

    token: str
    offset: int
    path: str
    input_offset: int
    form: str
    sources: tuple[str | None, ...]
    kind: str
    detail: str

    @property
    def end(self) -> int:
        """Where the occurrence ends in the rendered text."""
        return self.offset + len(self.token)

    def as_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data (what ``chatformats audit --json`` prints)."""
        return {"token": self.token, "offset": self.offset, "path": self.path,
                "input_offset": self.input_offset, "form": self.form,
                "sources": list(self.sources), "kind": self.kind, "detail": self.detail}


# ------------------------------------------------------------------ paths


def _parse_path(path: str) -> list[Any] | None:
    """``messages[3].tool_calls[0].function`` -> ``["messages", 3, "tool_calls", 0, "function"]``
    (the error-path syntax: ``.name`` for an identifier key, ``[N]`` for an index, ``['key']``
    for any other string key, as ``repr`` writes it); ``None`` for anything else."""
    parts: list[Any] = []
    i, n = 0, len(path)
    while i < n and path[i] not in ".[":
        i += 1
    if i == 0:
        return None
    parts.append(path[:i])
    while i < n:
        if path[i] == ".":
            start = i = i + 1
            while i < n and path[i] not in ".[":
                i += 1
            if i == start:
                return None
            parts.append(path[start:i])
        elif path.startswith(("['", '["'), i):
            key, i = _quoted(path, i + 1)
            if key is None or not path.startswith("]", i):
                return None
            parts.append(key)
            i += 1
        else:  # "[N]"
            close = path.find("]", i)
            digits = path[i + 1:close] if close > 0 else ""
            if digits.startswith("-"):
                digits, sign = digits[1:], -1
            else:
                sign = 1
            if not digits.isdigit() or not digits.isascii():
                return None
            parts.append(sign * int(digits))
            i = close + 1
    return parts


_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r", "a": "\a",
            "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_HEX = {"x": 2, "u": 4, "U": 8}


def _quoted(path: str, i: int) -> tuple[str | None, int]:
    """The string ``repr`` wrote at ``path[i]`` (a quote) and the index after its closing
    quote; ``(None, i)`` if it is not one."""
    quote = path[i]
    out: list[str] = []
    i += 1
    while i < len(path):
        char = path[i]
        if char == quote:
            return "".join(out), i + 1
        if char == "\\" and i + 1 < len(path):
            code = path[i + 1]
            if code in _HEX:
                digits = path[i + 2:i + 2 + _HEX[code]]
                try:
                    out.append(chr(int(digits, 16)))
                except ValueError:
                    return None, i
                i += 2 + _HEX[code]
                continue
            if code not in _ESCAPES:
                return None, i
            out.append(_ESCAPES[code])
            i += 2
            continue
        out.append(char)
        i += 1
    return None, i


_MISSING = object()


def resolve(path: str, roots: Mapping[str, Any]) -> Any:
    """The value at ``path`` under ``roots`` (``{"messages": ..., **variables}``), or a private
    sentinel when the path does not lead to a value (then :func:`find` reports offsets in the
    rendered text)."""
    parts = _parse_path(path)
    if parts is None:
        return _MISSING
    value = roots.get(parts[0], _MISSING)
    for part in parts[1:]:
        if type(value) is dict:
            value = value.get(part, _MISSING)
        elif type(value) in (list, tuple) and type(part) is int and -len(value) <= part < len(value):
            value = value[part]
        else:
            return _MISSING
    return value
