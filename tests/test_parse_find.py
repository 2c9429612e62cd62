"""The scanner's fast paths are its definitions: the marker search (``_scan._find``, the
closing-character skip) finds what the regex alone finds, from every position, for every state
of every grammar; the held-back tail (``_scan._held``) is rule 3's longest partial marker; and
a parse leaves no reference cycle (its copies of the completion are freed on return)."""

from __future__ import annotations

import gc
import random

import chatformats
from chatformats.parsing import _scan, load_grammar


def _cases() -> list[tuple[str, object, object, list[str]]]:
    out = []
    for name in sorted({chatformats.get_format(f).grammar for f in chatformats.formats()} - {""}):
        g = load_grammar(name)
        for table in (g.STATES, g.RECOVER):
            for st in table.values():
                lits = [m[0] for m in st.markers]
                for p in st.patterns or ((st.pattern,) if st.pattern is not None else ()):
                    out.append((f"{name}/{st.name}", p, st.closers[p], lits))
    return out


def test_find_is_the_regex_search() -> None:
    rng = random.Random(30)
    cases = _cases()
    assert sum(c[2] is not None for c in cases) > 20  # the skip is in use
    for where, pattern, closer, lits in cases:
        # Markers, their prefixes and suffixes (near misses, a closing character alone) and text.
        pieces = lits + [lit[:k] for lit in lits for k in range(1, len(lit))]
        pieces += [lit[k:] for lit in lits for k in range(1, len(lit))] + ["a", " ", "\n", ">", "|"]
        for _ in range(60):
            size = rng.randrange(0, 30) if rng.random() < 0.5 else rng.randrange(150, 400)
            buf = "".join(rng.choice(pieces) for _ in range(size))
            for pos in range(0, len(buf) + 1, max(1, len(buf) // 9)):
                a = pattern.search(buf, pos)
                b = _scan._find(pattern, closer, buf, pos)
                assert (a and a.span()) == (b and b.span()), (where, buf, pos)
        if closer is not None:  # a marker just after the tries: the regex's search on
            for lit in lits:
                if lit[-1] == closer[0]:
                    buf = "x" + closer[0] * _scan.CLOSER_TRIES + lit
                    assert _scan._find(pattern, closer, buf, 0).span() == pattern.search(buf).span()


def test_closer_only_where_it_ends_every_marker() -> None:
    assert _scan._closer(["<|eot_id|>", "<|eom_id|>"]) == (">", 10)
    assert _scan._closer(["<a>b>"]) is None  # the character inside a marker: no skip
    assert _scan._closer(["<a>", "<b|"]) is None


def _held_by_slices(buf: str, pos: int, st: object) -> int:
    """Rule 3 as stated: the longest tail of ``buf[pos:]`` that is a proper prefix of a marker."""
    partials = {lit[:k] for lit, _, _ in st.markers for k in range(1, len(lit))}  # type: ignore[attr-defined]
    for k in range(min(st.longest - 1, len(buf) - pos), 0, -1):  # type: ignore[attr-defined]
        if buf[-k:] in partials:
            return k
    return 0


def test_held_is_the_longest_partial_tail() -> None:
    rng = random.Random(31)
    for name in sorted({chatformats.get_format(f).grammar for f in chatformats.formats()} - {""}):
        g = load_grammar(name)
        for table in (g.STATES, g.RECOVER):
            for st in table.values():
                lits = [m[0] for m in st.markers]
                pieces = [lit[:k] for lit in lits for k in range(1, len(lit))] + ["a", " ", ">"]
                if not lits:
                    assert _scan._held("abc<", 0, st) == 0
                    continue
                for _ in range(80):
                    buf = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 6)))
                    for pos in range(len(buf) + 1):
                        assert _scan._held(buf, pos, st) == _held_by_slices(buf, pos, st), (
                            name, st.name, buf, pos)


def test_a_parse_leaves_no_cycle() -> None:
    from chatformats import ResponseParser, parse_response

    for name in ("llama-3.2-vision-2024-09", "qwen3-tool-agent", "deepseek-v3", "kimi-k2"):
        text = "Some text < with a <| near miss.\n" * 50
        for strict in (False, True):
            parse_response(name, text, prefix="", strict=strict)
            gc.collect()
            gc.disable()
            try:
                parse_response(name, text, prefix="", strict=strict)
                parser = ResponseParser(name, prefix="", strict=strict)
                parser.feed(text)
                parser.close()
                del parser
                assert gc.collect() == 0, (name, strict)
            finally:
                gc.enable()
