"""Ids for long conversations: 10, 100 and 1,000 messages, against ``renderers`` and the
tokenizer's own encode of the text.

``python -m benchmarks.ids_long`` (the ``bench`` extra installed; not part of the test run) writes
``benchmarks/results/ids_long.md``; ``--quick`` (one format, 10 messages, one round) writes
nothing.

The set-up is ``benchmarks/renderers_compare.py``'s (the same mapped formats, the same in-memory
byte-level BPE with the format's control strings as special tokens, trained on the same seeded
conversations; the same engines, timed the same way: CPU time of batches, the engines interleaved
round after round, each ratio the median of same-round ratios), on the chat workloads of
``benchmarks/workloads.py`` (a system message, then alternating user and assistant messages of
20 to 1,200 characters).  The engines:

- ``renderers.render_ids``;
- ``chatformats.apply(tokenize=True)``: ``apply_chat_template(..., tokenize=True,
  tokenizer=..., return_dict=False)`` with the transformers tokenizer (encoded by pieces where
  that is exact, ``chatformats.ids.Splitter``);
- ``chatformats.render_ids``: the template layer's ``Ids`` (ids only read);
- ``chatformats.render+encode``: ``render`` and the tokenizer's ``encode`` of the whole text in
  one call, what ``apply_chat_template(tokenize=True)`` did before the pieces;
- ``transformers(tokenize=True)``;
- ``encode alone``: the tokenizer's ``encode`` of the template's text, rendered beforehand.

Every engine's ids are checked before timing: transformers' (the template layer's: its text
encoded whole).
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Dict, List, Optional

import chatformats

from . import common
from . import renderers_compare as R
from . import workloads as W

FORMATS = ("qwen3", "deepseek-v3", "glm-4.5", "llama-3.2", "qwen3-instruct-2507", "deepseek-r1", "kimi-k2")
WORKLOADS = ("chat_10", "chat_100", "chat_1000")
ENGINES = ("chatformats.apply(tokenize=True)", "chatformats.render_ids", "chatformats.render+encode",
           "transformers(tokenize=True)", "encode alone")


def engines(fmt: str, tokenizer: Any) -> Dict[str, Any]:
    out = R.speed_engines(fmt, tokenizer)
    variables = dict(R.MAPPING[fmt][3][0][1])
    variables.update(chatformats.get_format(fmt).special_tokens)  # as transformers passes them

    def render_ids(convs: List[R.Conversation]) -> Any:
        return [chatformats.render_ids(fmt, c.messages, tokenizer=tokenizer, tools=c.tools, documents=None,
                                       add_generation_prompt=c.add_generation_prompt, now=R.NOW,
                                       **variables).ids for c in convs]

    out["chatformats.render_ids"] = render_ids
    return out


def run(argv: Optional[List[str]] = None) -> List[Dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one format, 10 messages, writes nothing")
    parser.add_argument("--formats", nargs="*", default=None)
    parser.add_argument("--rounds", type=int, default=None, help="interleaved timing rounds (default 5)")
    args = parser.parse_args(argv)
    formats = args.formats or (FORMATS[:1] if args.quick else FORMATS)
    workloads = WORKLOADS[:1] if args.quick else WORKLOADS
    rounds = args.rounds or (1 if args.quick else 5)
    batch_s = 0.002 if args.quick else 0.05
    from . import engines as E

    E.fix_clock()
    rows = []
    for fmt in formats:
        started = time.process_time()
        convs = R.conversations(fmt, 20)
        texts = []
        for _label, setting_variables, _fields in R.MAPPING[fmt][3]:
            texts += [t for t in (R.template_text(fmt, c, setting_variables) for c in convs) if t]
        tokenizer = R.build_tokenizer(fmt, texts)
        timed = engines(fmt, tokenizer)
        for wl in workloads:
            data = W.generate(wl, fmt)
            conv = [R.Conversation(wl, data["messages"], data.get("tools"), True)]
            expected = timed["transformers(tokenize=True)"](conv)
            # the template layer's ids are its text's (render) encoded; every other engine's are
            # transformers'
            template = [list(getattr(e, "ids", e)) for e in timed["chatformats.render+encode"](conv)]
            for name in ENGINES:
                got = [list(getattr(g, "ids", g)) for g in timed[name](conv)]
                assert got == (template if name in ("chatformats.render_ids", "chatformats.render+encode")
                               else expected), (fmt, wl, name)
            tokens = len(expected[0])
            rows.append({"format": fmt, "workload": wl, "tokens": tokens,
                         "engines": R.time_engines(timed, conv, rounds, batch_s)})
        common.log(f"{fmt}: {time.process_time() - started:.1f} s")
        if not args.quick:  # written after each format
            (common.RESULTS / "ids_long.md").write_text(report(rows), encoding="utf-8")
    return rows


def report(rows: List[Dict[str, Any]]) -> str:
    import renderers  # type: ignore[import-untyped]

    from . import machine

    info = machine.machine()
    out = ["# Ids for long conversations", "",
           f"Generated by `python -m benchmarks.ids_long` (renderers {renderers.__version__}; "
           f"{info.get('cpu', 'unknown CPU')}, {info['cpus']} CPUs, Python {info['python']}, tokenizers "
           f"{info['versions'].get('tokenizers')}, transformers {info['versions'].get('transformers')}). "
           "The method is in the module's docstring. CPU time of one conversation, median of interleaved "
           "rounds; each ratio is renderers' `render_ids` time over the engine's, the median of same-round "
           "ratios (above 1: faster than renderers); *vs encode*: the engine's time over `encode alone`'s "
           "(the tokenizer's own encode of the text in one call; below 1: faster).", "",
           "| format | workload | tokens | renderers.render_ids (ms) | " + " | ".join(ENGINES) +
           " | apply vs encode | render_ids vs encode |",
           "|---|---|---:|---:|" + "---:|" * (len(ENGINES) + 2)]
    for row in rows:
        e = row["engines"]
        cells = [f"{e[n]['ratio']:.2f}× ({e[n]['median_s'] * 1e3:.3g} ms)" for n in ENGINES]
        floor = e["encode alone"]["median_s"]
        versus = [f"{e[n]['median_s'] / floor:.2f}" for n in ENGINES[:2]]
        out.append(f"| {row['format']} | {row['workload']} | {row['tokens']:,} | "
                   f"{e['renderers.render_ids']['median_s'] * 1e3:.3g} | " + " | ".join(cells + versus) + " |")
    return "\n".join(out) + "\n"


def main(argv: Optional[List[str]] = None) -> None:
    print(report(run(argv)))


if __name__ == "__main__":
    main()
