"""Parsing on token ids: ``parse_response(name, ids, tokenizer=...)`` against the text parser on
the same completion, and against ``renderers``' token-id parsers where it has the model.

    python -m benchmarks.parse_ids [--formats ...] [--rounds 5] [--budget 0.2]

The workloads are ``benchmarks.parse``'s (``short``, ``tools``, ``long``: one rendered assistant
turn each), encoded with ``benchmarks.parse``'s in-process byte-level tokenizer (no merges, the
format's control strings as added tokens: each byte a token, so every parser on ids decodes
about four times more ids than a real vocabulary gives; an upper bound for all of them), and a
``spelled`` workload: ``short`` with a control string of the format written as ordinary tokens
in its content (what the id parser masks).  The id parser's message must equal the text parser's
(``spelled``: the content holds the control string) before anything is timed.  Timing is CPU time
of batches with ``gc`` disabled, the engines interleaved round after round; each cell is the
median over the rounds.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import chatformats
from chatformats import parse_response
from chatformats.parsing import family

from .parse import RENDERERS, _byte_tokenizer, _ours_viewed, _time, renderers_engine, workloads

FORMATS = ("qwen3-thinking-2507", "qwen3-instruct-2507", "llama-3.2-vision-2024-12", "cogito",
           "glm-4.5", "kimi-k2")
#: The control string planted, spelled, in the ``spelled`` workload's content.
SPELLED = {"llama3_2_vision": "<|eot_id|>", "cogito": "<|eot_id|>", "glm4_5": "<|user|>",
           "kimi_k2": "<|im_end|>"}


def _tokenizer(name: str) -> Any:
    return _byte_tokenizer(tuple(chatformats.get_format(name).control_strings)).backend_tokenizer


def cases(name: str) -> dict[str, tuple[str, str, list[int], Any]]:
    """``workload -> (prefix, completion, ids, expected message)``."""
    tok = _tokenizer(name)
    out = {}
    for workload, (prefix, completion) in workloads(name).items():
        ids = tok.encode(completion, add_special_tokens=False).ids
        out[workload] = (prefix, completion, ids, parse_response(name, completion, prefix=prefix))
    prefix, completion = workloads(name)["short"]
    control = SPELLED.get(family(name), "<|im_end|>")
    at = completion.index("Here are")
    spelled_text = completion[:at] + control + completion[at:]
    pieces = [tok.encode(completion[:at], add_special_tokens=False).ids,
              [t.id for piece, _ in tok.pre_tokenizer.pre_tokenize_str(control)
               for t in tok.model.tokenize(piece)],
              tok.encode(completion[at:], add_special_tokens=False).ids]
    ids = [t for piece in pieces for t in piece]
    expected = parse_response(name, completion, prefix=prefix)
    expected["content"] = expected["content"].replace("Here are", control + "Here are", 1)
    out["spelled"] = (prefix, spelled_text, ids, expected)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--formats", nargs="*", default=list(FORMATS))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=0.2)
    args = parser.parse_args(argv)
    print("| format | workload | ids | text parser (µs) | on ids (µs) | on ids / text | renderers (µs) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in args.formats:
        tok = _tokenizer(name)
        for workload, (prefix, text, ids, expected) in cases(name).items():
            on_ids = parse_response(name, ids, prefix=prefix, tokenizer=tok)
            assert on_ids == expected, (name, workload, on_ids, expected)
            engines = {"text": lambda: parse_response(name, text, prefix=prefix),
                       "ids": lambda: parse_response(name, ids, prefix=prefix, tokenizer=tok)}
            rend = renderers_engine(name, text, prefix) if workload != "spelled" else None
            if rend is not None and family(name) in RENDERERS:
                parse, view = rend
                if view(parse()) == _ours_viewed(on_ids):
                    engines["renderers"] = parse
            times: dict[str, list[float]] = {k: [] for k in engines}
            for _ in range(args.rounds):
                for key, fn in engines.items():
                    times[key].append(_time(fn, args.budget))
            t = {k: statistics.median(v) for k, v in times.items()}
            renderers_cell = f"{t['renderers'] * 1e6:.1f}" if "renderers" in t else "—"
            print(f"| {name} | {workload} | {len(ids)} | {t['text'] * 1e6:.1f} | {t['ids'] * 1e6:.1f} | "
                  f"{t['ids'] / t['text']:.2f}× | {renderers_cell} |", flush=True)


if __name__ == "__main__":
    main()
