"""What the DeepSeek templates share byte for byte: the system-message scan and the ``.split``
of an assistant content at ``</think>``.

``deepseek_v3_1.jinja``, ``deepseek_r1.jinja`` and ``deepseek_r1_2025_01.jinja`` open with the
same scan, ``ns.system_prompt`` every system message's content joined with ``'\\n\\n'``
(:func:`system_prompt`); all of them split an assistant content with ``content.split('</think>',
...)`` under ``'</think>' in content`` (:func:`split_think`), V3.1 keeping what follows the first
``</think>``, R1 and its distills what follows the last.
"""

from __future__ import annotations

from typing import Any, Sequence

from .._jinja import MISSING, contains, need_str_at
from ..errors import TemplateTypeError, UndefinedValueError

#: The literal between two system messages (``'\n\n'``).
JOIN = "\n\n"
THINK_CLOSE = "</think>"


def system_prompt(messages: Sequence[Any]) -> tuple[str, tuple[int, ...]]:
    """``{%- for message in messages %}{%- if message['role'] == 'system' %}`` ... the first
    system content, then ``ns.system_prompt + '\\n\\n' + message['content']`` for each later one:
    the joined text and the indices of the messages it came from (each content must be a
    string: ``+`` fails on anything else)."""
    parts: list[str] = []
    indices: list[int] = []
    for index, message in enumerate(messages):
        if type(message) is dict and message.get("role", MISSING) == "system":
            parts.append(need_str_at(message.get("content", MISSING), index))
            indices.append(index)
    return JOIN.join(parts), tuple(indices)


def split_think(content: Any, index: int, last: bool) -> Any:
    """``{% if '</think>' in content %}{% set content = content.split('</think>'...)[...] %}``
    on ``messages[index]['content']``: what follows the last ``</think>`` of a string (``last``:
    ``split('</think>')[-1]``) or its first (``split('</think>', 1)[1]``); ``content`` itself
    when it holds none.  A string takes one ``partition``, and the path
    (``messages[3].content``) is built only for a failure.

    ``in`` is Python's (a list's item, a dict's key); such a list or dict has no ``split``
    attribute (undefined, which cannot be called), unless the dict has a ``split`` key (its value,
    which no JSON value makes callable); ``None`` and numbers fail the ``in``."""
    if type(content) is str:
        if last:
            return content.rpartition(THINK_CLOSE)[2]
        _, found, after = content.partition(THINK_CLOSE)
        return after if found else content
    path = f"messages[{index}].content"
    if not contains(content, THINK_CLOSE, path):
        return content
    if type(content) is dict and "split" in content:
        value = content["split"]
        raise TemplateTypeError(f"{path}.split is {type(value).__name__}: "
                                f"'{type(value).__name__}' object is not callable")
    raise UndefinedValueError(f"{path} is {type(content).__name__}: it has no attribute 'split'")
