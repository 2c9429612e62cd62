"""Parse throughput: ``chatformats.parse_response`` against transformers' ``parse_response``
with the same format's ``response_template``, and the scan's time against input length.

    python -m benchmarks.parse [--quick] [--out benchmarks/results/parse.md]

Workloads per format, each the completion of one rendered assistant turn (the port's own
output, so both parsers read what the template writes):

- ``short``: a sentence of reasoning and content;
- ``tools``: content and three tool calls (one call and no content for the Llama grammars;
  two and no content for deepseek-r1-distill and deepseek-v3, whose templates write calls only so);
- ``long``: 20,000 characters of content full of near-miss ``<`` and ``<|`` (the partial
  control tokens a streaming parser has to hold back);
- ``stream``: ``long`` fed 16 characters at a time to each library's streaming parser.

Both parsers must give the same message before anything is timed (cogito's tool-call ids,
which transformers' template cannot keep, are left out of its workloads).  Timing is CPU time
(``time.process_time``) of batches with ``gc`` disabled, the two engines interleaved round after
round; the ratio is the median of the per-round ratios.

Scaling: chatformats' time for a completion of n and of 10n characters (n = 20,000 and
200,000), as a ratio (the issue's bound is 12), for the ``long`` completion and for adversarial
shapes the recovering reading works hardest on (runs of call openers that never decode, runs
of ``<think>``-like near misses), in both readings.

Readings: each row times the default (recovering) reading; ``strict`` is the exact one on the
same text, so the cost of recovery on exact output shows as their ratio.

The ``renderers`` package (0.1.12, the ``bench`` extra) where it has the model (``RENDERERS``:
``parse_qwen3`` for the Qwen3 texts, ``parse_llama_3`` for Llama 3.1, 3.2 and 3.2 Vision,
``parse_deepseek_v3`` for DeepSeek-V3 and R1, ``parse_glm`` for GLM-4.5, ``parse_kimi_k2`` for
Kimi-K2), which read token ids through the model's tokenizer.  No model tokenizer is downloaded:
an in-process byte-level tokenizer (``tokenizers``' ByteLevel alphabet, no merges, the format's
control tokens as special tokens) gives the ids, so each byte is a token (a real vocabulary has
about four times fewer ids to decode: renderers' times are an upper bound).  Its ids are computed
before timing (a server hands the sampled ids over), and its message must agree with
chatformats' before anything is timed: content and reasoning compared stripped (renderers strips
them; GLM's content keeps the newlines after ``</think>`` where there is no call), the calls'
names and arguments, a string of arguments decoded (the DeepSeek grammars keep the string the
template wrote; renderers decodes it).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from typing import Any, Callable

import chatformats
from chatformats import ResponseParser, parse_response
from chatformats.parsing import family, grammar

# (a description: gpt-oss's template concatenates it into its TypeScript namespace)
TOOLS = [{"type": "function", "function": {"name": "search", "description": "Search for papers.",
                                           "parameters": {"type": "object", "properties": {
    "query": {"type": "string"}, "limit": {"type": "integer"}}}}}]
P = [{"role": "user", "content": "Find three papers on parsing."}]
FILLER = "Some text < with a <| near miss and <thi and {\"na and [{ here.\n"


#: The DeepSeek R1/V3 family's grammars: string arguments only (the templates concatenate
#: them), and the turn read after the prompt less its ``<think>\n`` prefill.
DEEPSEEK = {"deepseek_v3_1", "deepseek_r1", "deepseek_r1_distill", "deepseek_v3",
            "deepseek_r1_0528_qwen3"}
#: Those whose templates write tool calls only for a turn whose content is None: rendered at the
#: template layer (the pipeline drops None values), with at most two calls (the second ends the
#: turn).
NONE_CONTENT_CALLS = {"deepseek_r1_distill", "deepseek_v3"}
#: The grammars whose template writes one tool call per turn, without content beside it.
SINGLE_CALL = ("llama3_2_vision", "llama3_1")


def _turn(name: str, m: dict[str, Any]) -> tuple[str, str]:
    if family(name) in NONE_CONTENT_CALLS and m.get("tool_calls"):
        m = {**m, "content": None, "tool_calls": m["tool_calls"][:2]}
        bos = {"bos_token": "<｜begin▁of▁sentence｜>"}
        prompt = chatformats.render(name, P, add_generation_prompt=True, **bos)
        full = chatformats.render(name, P + [m], **bos)
    else:
        prompt = chatformats.apply_chat_template(name, P, tools=TOOLS, add_generation_prompt=True)
        full = chatformats.apply_chat_template(name, P + [m], tools=TOOLS)
    if full.startswith(prompt):
        return prompt, full[len(prompt):]
    if family(name) in DEEPSEEK:  # the R1 prefill: the stored turn has none
        cut = prompt.removesuffix("<think>\n")
        assert full.startswith(cut)
        return cut, full[len(cut):]
    anchor = grammar(name).ANCHOR
    k = full.rfind(anchor) + len(anchor)
    return full[:k], full[k:]


def workloads(name: str, long_chars: int = 20_000) -> dict[str, tuple[str, str]]:
    n_calls = 1 if family(name) in SINGLE_CALL else 3
    calls = [{"type": "function", "function": {"name": "search", "arguments": {"query": f"parsing {k}", "limit": k}}}
             for k in range(n_calls)]
    if family(name) == "solar_open":
        for k, call in enumerate(calls):
            call["id"] = f"call{k:06d}"
    if family(name) in DEEPSEEK:  # their templates take only string arguments
        for call in calls:
            call["function"]["arguments"] = json.dumps(call["function"]["arguments"])
    reasoning = {"reasoning": "Look it up."} if family(name) == "solar_open" else {"reasoning_content": "Look it up."}
    long_text = (FILLER * (long_chars // len(FILLER) + 1))[:long_chars]
    return {
        "short": _turn(name, {"role": "assistant", "content": "Here are three papers.", **reasoning}),
        # (gpt-oss renders a tool-call turn's content as its analysis: no reasoning beside it)
        "tools": _turn(name, {"role": "assistant", "content": "" if family(name) in SINGLE_CALL else "Searching.",
                              "tool_calls": calls, **({} if family(name) == "gpt_oss" else reasoning)}),
        "long": _turn(name, {"role": "assistant", "content": long_text, **reasoning}),
    }


def _engines(name: str, prefix: str, text: str, stream: bool) -> dict[str, Callable[[], Any]]:
    from transformers.utils.chat_parsing import ResponseParser as TParser
    from transformers.utils.chat_parsing import parse_response as tparse
    from transformers.utils.chat_parsing.response_templates import load_response_template

    template = load_response_template(chatformats.get_format(name).response_template)
    if not stream:
        return {"chatformats": lambda: parse_response(name, text, prefix=prefix, tools=TOOLS),
                "transformers": lambda: tparse(text, template, prefix=prefix, tools=TOOLS)}
    chunks = [text[i:i + 16] for i in range(0, len(text), 16)]

    def ours() -> Any:
        parser = ResponseParser(name, prefix=prefix, tools=TOOLS)
        for chunk in chunks:
            parser.feed(chunk)
        return parser.close()

    def theirs() -> Any:
        parser = TParser(template, prefix=prefix, tools=TOOLS)
        for chunk in chunks:
            parser.feed(chunk)
        return parser.finalize()[0]

    return {"chatformats": ours, "transformers": theirs}


_RENDERERS: dict[str, Any] = {}

#: The renderers parser of each grammar whose models it has (benchmarks/renderers_compare.py's
#: MAPPING: Qwen3, Llama 3, DeepSeek-V3/R1, GLM-4.5, Kimi-K2; it routes the R1 distills to
#: their base models' renderers, no Qwen2.5, Qwen3-Coder or DeepSeek-V3.1 format is mapped to
#: it, and its gpt-oss parser needs the harmony encoding, which it downloads), and the control
#: tokens its tokenizer needs.
_QWEN3 = ("qwen3", ("<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<tool_call>",
                    "</tool_call>"))
_LLAMA3 = ("llama_3", ("<|eot_id|>", "<|eom_id|>", "<|start_header_id|>", "<|end_header_id|>"))
_DEEPSEEK_V3 = ("deepseek_v3", ("<｜end▁of▁sentence｜>", "<｜tool▁calls▁begin｜>",
                                "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>",
                                "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"))
RENDERERS = {
    "qwen3_tool_agent": _QWEN3,  # qwen3, qwen3-2025-04, the 2507 texts, the tool agent
    "qwen3_instruct_2507": _QWEN3,
    "llama3_2_vision": _LLAMA3,  # llama-3.2 and the Vision texts
    "llama3_1": _LLAMA3,
    "deepseek_v3": _DEEPSEEK_V3,
    "deepseek_r1": _DEEPSEEK_V3,  # DeepSeekR1Renderer reads with parse_deepseek_v3
    "glm4_5": ("glm", ("<|endoftext|>", "<|user|>", "<|observation|>", "<think>", "</think>",
                       "<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>",
                       "</arg_value>")),
    "kimi_k2": ("kimi_k2", ("<|im_end|>", "<|tool_calls_section_begin|>",
                            "<|tool_calls_section_end|>", "<|tool_call_begin|>",
                            "<|tool_call_argument_begin|>", "<|tool_call_end|>")),
}


def _byte_tokenizer(specials: tuple[str, ...]) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    backend = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(alphabet)}, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    backend.add_special_tokens(list(specials))
    return PreTrainedTokenizerFast(tokenizer_object=backend)


def renderers_engine(name: str, text: str,
                     prefix: str) -> tuple[Callable[[], Any], Callable[[Any], Any]] | None:
    """``(parse, view)``: renderers' parse of ``text``'s ids, and what of its result is compared
    (None: renderers has no parser for this format, or is not installed)."""
    kind = RENDERERS.get(family(name))
    if kind is None:
        return None
    try:
        from renderers import parsing as rparsing
    except ImportError:
        return None
    parser, specials = kind
    tok = _RENDERERS.get(parser)
    if tok is None:
        tok = _RENDERERS[parser] = _byte_tokenizer(specials)
    ids = tok.encode(text, add_special_tokens=False)
    assert tok.decode(ids, skip_special_tokens=False) == text
    cid = tok.convert_tokens_to_ids
    prefilled = prefix.endswith(("<think>", "<think>\n"))  # the prompt opened the block
    if parser == "qwen3":
        stops = {cid("<|im_end|>"), cid("<|endoftext|>")}

        def parse() -> Any:
            return rparsing.parse_qwen3(tok, ids, stop_ids=stops, tool_call_id=cid("<tool_call>"),
                                        tool_call_end_id=cid("</tool_call>"),
                                        reasoning_end_id=cid("</think>"),
                                        prefilled_thinking=prefilled)
    elif parser == "deepseek_v3":
        def parse() -> Any:
            return rparsing.parse_deepseek_v3(
                tok, ids, stop_ids={cid("<｜end▁of▁sentence｜>")},
                tool_calls_begin_id=cid("<｜tool▁calls▁begin｜>"),
                tool_calls_end_id=cid("<｜tool▁calls▁end｜>"),
                tool_call_begin_id=cid("<｜tool▁call▁begin｜>"),
                tool_call_end_id=cid("<｜tool▁call▁end｜>"), tool_sep_id=cid("<｜tool▁sep｜>"),
                prefilled_thinking=prefilled)
    elif parser == "glm":
        def parse() -> Any:
            return rparsing.parse_glm(
                tok, ids, stop_ids={cid("<|endoftext|>"), cid("<|user|>"), cid("<|observation|>")},
                think_id=cid("<think>"), think_end_id=cid("</think>"),
                tool_call_id=cid("<tool_call>"), tool_call_end_id=cid("</tool_call>"),
                arg_key_id=cid("<arg_key>"), arg_key_end_id=cid("</arg_key>"),
                arg_value_id=cid("<arg_value>"), arg_value_end_id=cid("</arg_value>"),
                tools=TOOLS, prefilled_thinking=prefilled)
    elif parser == "kimi_k2":
        def parse() -> Any:
            return rparsing.parse_kimi_k2(
                tok, ids, stop_ids={cid("<|im_end|>")},
                tool_calls_section_begin_id=cid("<|tool_calls_section_begin|>"),
                tool_calls_section_end_id=cid("<|tool_calls_section_end|>"),
                tool_call_begin_id=cid("<|tool_call_begin|>"),
                tool_call_argument_begin_id=cid("<|tool_call_argument_begin|>"),
                tool_call_end_id=cid("<|tool_call_end|>"), prefilled_thinking=prefilled)
    else:
        stops = {cid("<|eot_id|>"), cid("<|eom_id|>")}

        def parse() -> Any:
            return rparsing.parse_llama_3(tok, ids, stop_ids=stops)

    def view(r: Any) -> Any:  # (GLM's content keeps the newlines after </think>: stripped)
        return (r.content.strip(), (r.reasoning_content or "").strip(),
                [(c.name, c.arguments) for c in r.tool_calls])

    return parse, view


def _ours_viewed(message: dict[str, Any]) -> Any:
    """chatformats' message as renderers' is compared: content and reasoning stripped (renderers
    strips them), each call's name and arguments, a string of arguments decoded (the DeepSeek
    grammars keep the string the template wrote, renderers decodes it)."""
    return (message["content"].strip(), message.get("reasoning_content", "").strip(),
            [(c["function"]["name"], json.loads(c["function"]["arguments"])
              if isinstance(c["function"]["arguments"], str) else c["function"]["arguments"])
             for c in message.get("tool_calls", [])])


def _time(fn: Callable[[], Any], budget: float) -> float:
    """Seconds per call: a batch sized to take about ``budget`` CPU seconds."""
    n = 1
    while True:
        gc.disable()
        start = time.process_time()
        for _ in range(n):
            fn()
        elapsed = time.process_time() - start
        gc.enable()
        if elapsed >= budget or n >= 1 << 20:
            return elapsed / n
        n = n * 2 if elapsed < budget / 8 else max(n + 1, int(n * budget / max(elapsed, 1e-9)))


def compare(name: str, rounds: int, budget: float, long_chars: int,
            with_renderers: bool = True) -> list[dict[str, Any]]:
    rows = []
    for workload, (prefix, text) in workloads(name, long_chars).items():
        for stream in (False, True) if workload == "long" else (False,):
            engines = _engines(name, prefix, text, stream)
            results = {k: fn() for k, fn in engines.items()}
            if family(name) == "cogito":
                for call in results["chatformats"].get("tool_calls", []):
                    call.pop("id", None)
            if results["chatformats"] != results["transformers"]:
                raise SystemExit(f"{name}/{workload}: the parsers disagree:\n{results}")
            renderers_us = None
            if not stream:
                engines["strict"] = (lambda n=name, t=text, p=prefix:
                                     parse_response(n, t, prefix=p, tools=TOOLS, strict=True))
                r = renderers_engine(name, text, prefix) if with_renderers else None
                if r is not None:
                    rparse, view = r
                    ours = _ours_viewed(results["chatformats"])
                    if view(rparse()) != ours:
                        raise SystemExit(f"{name}/{workload}: renderers disagrees:\n"
                                         f"{view(rparse())}\n{ours}")
                    engines["renderers"] = rparse
            times: dict[str, list[float]] = {k: [] for k in engines}
            for _ in range(rounds):
                for k, fn in engines.items():
                    times[k].append(_time(fn, budget))
            ratio = statistics.median(t / c for t, c in zip(times["transformers"], times["chatformats"]))
            rows.append({"format": name, "workload": workload + (" (16-char chunks)" if stream else ""),
                         "chars": len(text),
                         "chatformats_us": statistics.median(times["chatformats"]) * 1e6,
                         "transformers_us": statistics.median(times["transformers"]) * 1e6,
                         "strict_us": (statistics.median(times["strict"]) * 1e6
                                       if "strict" in times else None),
                         "renderers_us": (statistics.median(times["renderers"]) * 1e6
                                          if "renderers" in times else None),
                         "speedup": ratio})
    return rows


#: Adversarial completions of about n characters: what the recovering reading must not make
#: quadratic (call openers whose JSON never decodes, near-miss openers, unclosed blocks).
ADVERSARIAL = {
    "long": None,
    "openers": '{"name": [<tool_call>{"name"<function=<parameter=a>[{"name": "',
    "near misses": "\n<thi <tool_ <|python_ta {\"nam <|im_en ",
}


def _shape(name: str, shape: str, n: int) -> tuple[str, str]:
    unit = ADVERSARIAL[shape]
    if unit is None:
        return workloads(name, n)["long"]
    return "", (unit * (n // len(unit) + 1))[:n]


def scaling(name: str, rounds: int, budget: float, n: int, shape: str = "long",
            strict: bool = False) -> dict[str, Any]:
    small = _shape(name, shape, n)
    large = _shape(name, shape, 10 * n)

    def run(case: tuple[str, str]) -> Any:
        try:
            return parse_response(name, case[1], prefix=case[0], strict=strict)
        except chatformats.ParseError:
            return None

    ratios = []
    for _ in range(rounds):
        a = _time(lambda: run(small), budget)
        b = _time(lambda: run(large), budget)
        ratios.append(b / a)
    return {"format": name, "n": n, "shape": shape, "strict": strict,
            "ratio": statistics.median(ratios)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.parse", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small inputs, one short round, print only")
    ap.add_argument("--out", default="benchmarks/results/parse.md", help="where to write the table")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per measurement (default 3)")
    ap.add_argument("--budget", type=float, default=0.1,
                    help="CPU seconds per timed batch (default 0.1)")
    ap.add_argument("--formats", nargs="+", metavar="NAME",
                    help="only these formats (default: every format with a parser)")
    args = ap.parse_args(argv)
    rounds, budget, long_chars, n = (1, 0.02, 2000, 2000) if args.quick else (args.rounds, args.budget, 20_000, 20_000)
    rows, scale = [], []
    for name in args.formats or chatformats.formats():
        if not chatformats.get_format(name).grammar:  # no parser yet
            continue
        print(f"{name} ...", file=sys.stderr, flush=True)
        rows += compare(name, rounds, budget, long_chars)
        for shape in ADVERSARIAL:
            for strict in (False, True):
                scale.append(scaling(name, rounds, budget, n, shape, strict))
    lines = ["# Parse throughput", "",
             "`python -m benchmarks.parse`: `chatformats.parse_response` against transformers "
             f"{_transformers_version()} `parse_response` with the same `response_template` "
             "(CPU time per completion, median of rounds; speedup = transformers / chatformats).", "",
             "chatformats is the default (recovering) reading; strict is the exact one on the same "
             "text.", "",
             "renderers: its token-id parser where it has the model (see the module docstring: an "
             "in-process byte-level tokenizer, so an upper bound).", "",
             "| format | workload | chars | chatformats (µs) | strict (µs) | transformers (µs) | speedup | renderers (µs) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        strict_us = f"{r['strict_us']:.1f}" if r["strict_us"] is not None else "-"
        rend_us = f"{r['renderers_us']:.1f}" if r.get("renderers_us") is not None else "-"
        lines.append(f"| {r['format']} | {r['workload']} | {r['chars']} | {r['chatformats_us']:.1f} | "
                     f"{strict_us} | {r['transformers_us']:.1f} | {r['speedup']:.1f}x | {rend_us} |")
    lines += ["", f"Scaling: time(10n) / time(n), n = {n} characters (linear is 10; the bound is "
                  "12): the `long` completion and the adversarial shapes of `ADVERSARIAL`, in "
                  "both readings.", "", "| format | shape | recovering | strict |", "|---|---|---:|---:|"]
    for k in range(0, len(scale), 2):
        a, b = scale[k], scale[k + 1]
        lines.append(f"| {a['format']} | {a['shape']} | {a['ratio']:.2f} | {b['ratio']:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.quick:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
    return 0


def _transformers_version() -> str:
    import transformers

    return transformers.__version__


if __name__ == "__main__":
    raise SystemExit(main())
