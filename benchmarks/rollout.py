"""A tool-agent rollout, turn by turn: the total cost of producing every turn's prompt ids.

``python -m benchmarks.rollout`` (the ``bench`` extra installed; not part of the test run).  A
rollout of N turns (8, 32, 128): a user question, then N - 1 times an assistant tool call (with
reasoning) and its tool result; every turn's prompt is what the model samples from next.  Per
format, the engines produce the ids of all N prompts:

- ``transformers``: ``tokenizer.apply_chat_template(messages, tools=..., add_generation_prompt=True,
  tokenize=True, return_dict=False)`` per turn (the whole history rendered and encoded each time);
- ``chatformats.full``: ``chatformats.apply_chat_template(..., tokenize=True, tokenizer=...)`` per
  turn (the same, chatformats' render, the same encoding);
- ``chatformats.bridge``: ``chatformats.start`` once, then ``chatformats.bridge(name, prompt,
  completion_ids, new_messages, tokenizer=...)`` per turn: the sampled ids kept, only the new
  text encoded; every turn's ``ids`` read (a fresh list per prompt, as the other engines give);
- ``bridge, on demand``: the same bridge, only the last prompt's ``ids`` read (the bridge's own
  work: a turn's ids are joined when first read, and a list of every prompt's ids is, summed
  over the turns, quadratic in the rollout's length whoever builds it);
- ``renderers.bridge``: for the models ``renderers`` (0.1.12) has a renderer for (the formats of
  ``benchmarks.renderers_compare.MAPPING``, with the same renderer and configuration),
  ``render_ids`` once, then ``bridge_to_next_turn(prompt_ids, completion_ids, new_messages,
  tools=...)`` per turn (``render_ids`` of the whole history where it answers ``None``; counted).
  Its ids are compared with transformers' at every turn; a rollout where they differ is marked
  (``ids differ from turn N``).  ``--shared`` runs every such format (``gpt-oss`` excepted: its
  renderer needs a download).

The tool-call turns reason where the model does (the ``-thinking`` formats, the hybrid Qwen3
texts, GLM-4.5, DeepSeek-R1).  Where the template rewrites every sampled turn (``prefix_stable``
calls the sampling step unstable: DeepSeek-R1's texts drop each turn's reasoning), the
``"template"`` policy answers ``None`` on every turn, so the bridge runs under ``"sampled"``
(what was sampled kept verbatim, checked); its ids are then not transformers' (the template's
history), by design.

The tokenizer is a byte-level BPE (vocabulary 4,000) trained in memory on the rollout's own text,
with the format's control strings added (no download); the same object for every engine.  Each
completion is the text the format's spans say the model generates for its assistant message; its
ids are encoded beforehand (a sampler returns them).  Before timing, the bridge's text is checked
to be the full render at every turn, and ``chatformats.full``'s ids to be transformers'.

The ratios are to ``transformers`` in the same run; ``--rounds`` (default 3) repeats each total
and keeps the fastest (CPU time of this process); the last column is the on-demand total per
turn.  Rollouts longer than ``--reference-max`` turns (default 128) time the
chatformats bridge and ``renderers`` only (transformers' re-rendering grows quadratically).  A
second table gives each engine's growth: its total at each length over its total at the
previous length (4.0 is linear for lengths four times apart).
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import datetime
from typing import Any

import chatformats

NOW = datetime(2026, 3, 7, 14, 5, 9)
TOOL = {"type": "function", "function": {
    "name": "search", "description": "Search the web.",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}}
LENGTHS = (8, 32, 128, 512)
FORMATS = ("qwen3-thinking-2507", "qwen3-instruct-2507", "llama-3.2-vision-2024-12", "cogito")


def shared_formats() -> list[str]:
    """The formats ``renderers`` has a renderer for (``renderers_compare.MAPPING``), in its order."""
    from .renderers_compare import MAPPING

    return [name for name in MAPPING if name in chatformats.formats()]


def call(i: int, reasoning: bool, text_arguments: bool = False) -> dict[str, Any]:
    """The ``i``-th tool call; with ``text_arguments`` its arguments are JSON text (the DeepSeek
    templates concatenate them to a string)."""
    arguments: Any = {"query": f"step {i} of the plan"}
    if text_arguments:
        arguments = json.dumps(arguments)
    message: dict[str, Any] = {"role": "assistant", "content": "", "tool_calls": [{
        "id": f"call_{i}", "type": "function",
        "function": {"name": "search", "arguments": arguments}}]}
    if reasoning:
        message["reasoning_content"] = f"Step {i}: I should search for more about the topic."
    return message


def result(i: int) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"call_{i}", "name": "search",
            "content": f"Result {i}: a paragraph of search results about the topic, " * 3}


#: Formats whose rollout's tool-call turns reason besides the ``-thinking`` ones: the hybrid Qwen3
#: texts (thinking by default; their templates write an empty think block for the last turn and
#: drop it once a message follows, so a turn without reasoning is never an extension) and GLM-4.5
#: (thinking by default).
REASONING = ("qwen3", "qwen3-2025-04", "qwen3-instruct-2507-2025-07", "glm-4.5")


def rollout(name: str, turns: int) -> tuple[list[Any], list[dict[str, Any]], list[list[Any]]]:
    """``(first messages, sampled messages, new messages after each)`` for ``turns`` prompts."""
    reasoning = "thinking" in name or name in REASONING or sampled_policy(name)
    first = [{"role": "system", "content": "You are a research agent."},
             {"role": "user", "content": "Find out about the topic, step by step."}]
    sampled = [call(i, reasoning, name.startswith("deepseek")) for i in range(turns - 1)]
    new = [[result(i)] for i in range(turns - 1)]
    return first, sampled, new


def completion_text(name: str, history: list[Any], message: dict[str, Any]) -> str:
    """What the model samples for ``message`` after ``history``'s prompt: the text the format's
    spans say it generates (its assistant range).  For a format whose template rewrites the
    sampled turn (:func:`sampled_policy`: DeepSeek-R1 drops every turn's reasoning), the think
    block the model writes, then the turn as rendered after the first prompt."""
    if not sampled_policy(name):
        rendering = chatformats.apply_chat_template_spans(name, [*history, message], tools=[TOOL], now=NOW)
        start, end = rendering.assistant_spans[-1]
        return rendering.text[start:end]
    rendering = chatformats.apply_chat_template_spans(name, [*history[:2], message], tools=[TOOL], now=NOW)
    start, end = rendering.assistant_spans[-1]
    prompt = chatformats.apply_chat_template(name, history, tools=[TOOL], add_generation_prompt=True, now=NOW)
    think = f"{message['reasoning_content']}\n</think>\n\n"
    return ("" if prompt.endswith("<think>\n") else "<think>\n") + think + rendering.text[start:end]


def sampled_policy(name: str) -> bool:
    """Whether the rollout is bridged under ``policy="sampled"``: the format's template does not
    keep the sampled turn as it was sampled (``prefix_stable``'s ``assistant`` append), so the
    ``"template"`` policy answers ``None`` on every turn; ``renderers``' bridge keeps what was
    sampled too."""
    return chatformats.prefix_stable(name)["assistant"] is not None


def build_tokenizer(name: str) -> Any:
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    fmt = chatformats.get_format(name)
    first, sampled, new = rollout(name, 16)
    messages = [*first]
    for message, more in zip(sampled, new):
        messages += [message, *more]
    text = chatformats.apply_chat_template(name, messages, tools=[TOOL], now=NOW)
    for control in sorted(fmt.control_strings, key=len, reverse=True):
        text = text.replace(control, "")
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.train_from_iterator([text] * 4, trainers.BpeTrainer(
        vocab_size=4000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    from .renderers_compare import EXTRA_TOKENS

    backend.add_tokens([AddedToken(c, special=c.startswith("<|"), normalized=False)
                        for c in (*fmt.control_strings, *EXTRA_TOKENS.get(name, ()))])
    tokenizer_class: Any = PreTrainedTokenizerFast
    return tokenizer_class(tokenizer_object=backend, chat_template=fmt.template_source(),
                           **fmt.special_tokens)


class Case:
    """One format's rollout of ``turns`` prompts, with everything the engines take."""

    def __init__(self, name: str, turns: int, tokenizer: Any) -> None:
        self.name, self.turns, self.tokenizer = name, turns, tokenizer
        self.sampled_policy = sampled_policy(name)
        self.first, self.sampled, self.new = rollout(name, turns)
        self.histories = [list(self.first)]
        self.completions, self.completion_ids = [], []
        for message, more in zip(self.sampled, self.new):
            text = completion_text(name, self.histories[-1], message)
            self.completions.append(text)
            self.completion_ids.append(tokenizer.backend_tokenizer.encode(text, add_special_tokens=False).ids)
            self.histories.append([*self.histories[-1], message, *more])


def transformers_engine(case: Case) -> list[list[int]]:
    from transformers.utils import chat_template_utils as ctu

    real = ctu.datetime

    class Clock(real):  # type: ignore[misc, valid-type]
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return NOW

    ctu.datetime = Clock
    try:
        return [case.tokenizer.apply_chat_template(h, tools=[TOOL], add_generation_prompt=True,
                                                   tokenize=True, return_dict=False)
                for h in case.histories]
    finally:
        ctu.datetime = real


def full_engine(case: Case) -> list[list[int]]:
    return [chatformats.apply_chat_template(case.name, h, tools=[TOOL], add_generation_prompt=True,
                                            tokenize=True, tokenizer=case.tokenizer, return_dict=False,
                                            now=NOW)
            for h in case.histories]


def bridge_engine(case: Case, check: bool = False, every: bool = True) -> list[list[int]]:
    given = None if _has_parser(case.name) else True
    policy = "sampled" if case.sampled_policy else "template"
    turn = chatformats.start(case.name, case.first, tokenizer=case.tokenizer, tools=[TOOL], now=NOW)
    out = [turn.ids]
    for i, (ids, more) in enumerate(zip(case.completion_ids, case.new)):
        nxt = chatformats.bridge(case.name, turn, ids, more, tokenizer=case.tokenizer, policy=policy,
                                 message=case.sampled[i] if given else None)
        if nxt is None:
            raise AssertionError(f"{case.name}: the bridge gave no answer at turn {i + 1}")
        if check and case.sampled_policy:  # what was sampled kept verbatim, the rewrite said
            assert nxt.rewritten is not None and nxt.text.startswith(turn.text + case.completions[i])
            assert nxt.ids[:len(turn.ids) + len(ids)] == turn.ids + ids, (case.name, i)
        elif check:
            full = chatformats.apply_chat_template(case.name, case.histories[i + 1], tools=[TOOL],
                                                   add_generation_prompt=True, now=NOW)
            assert nxt.text == full, (case.name, i)
        turn = nxt
        if every:
            out.append(turn.ids)
    return out if every else [turn.ids]


def on_demand_engine(case: Case) -> list[list[int]]:
    return bridge_engine(case, every=False)


def _has_parser(name: str) -> bool:
    from chatformats.parsing import family

    try:
        family(name)
        return True
    except chatformats.ChatFormatError:
        return False


class RenderersEngine:
    def __init__(self, case: Case) -> None:
        from .renderers_compare import make_renderer

        self.renderer = make_renderer(case.name, 0, case.tokenizer)
        self.fallbacks = 0

    def __call__(self, case: Case) -> list[list[int]]:
        renderer = self.renderer
        ids = renderer.render_ids(case.first, tools=[TOOL], add_generation_prompt=True)
        out = [ids]
        self.fallbacks = 0
        for i, (completion, more) in enumerate(zip(case.completion_ids, case.new)):
            bridged = renderer.bridge_to_next_turn(ids, completion, more, tools=[TOOL])
            if bridged is None:
                self.fallbacks += 1
                ids = renderer.render_ids(case.histories[i + 1], tools=[TOOL], add_generation_prompt=True)
            else:
                ids = list(bridged.token_ids)
            out.append(ids)
        return out


def best(engine: Any, case: Case, rounds: int) -> float:
    """The fastest of ``rounds`` totals, in this process's CPU time (``time.process_time``: on a
    machine shared with other work, their load is not counted; the tokenizer's threads are)."""
    times = []
    for _ in range(rounds):
        t = time.process_time()
        engine(case)
        times.append(time.process_time() - t)
    return min(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--formats", nargs="*", default=list(FORMATS))
    parser.add_argument("--shared", action="store_true",
                        help="every format renderers has a renderer for, instead of --formats")
    parser.add_argument("--lengths", nargs="*", type=int, default=list(LENGTHS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reference-max", type=int, default=128)
    args = parser.parse_args(argv)
    formats = shared_formats() if args.shared else args.formats
    mapped = set(shared_formats())
    print("| format | turns | transformers (ms) | chatformats.full | chatformats.bridge | "
          "bridge, on demand | renderers.bridge | bridge per turn (µs) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    totals: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for name in formats:
        tokenizer = build_tokenizer(name)
        growth = totals.setdefault(name, {})
        for turns in args.lengths:
            case = Case(name, turns, tokenizer)
            reference = turns <= args.reference_max
            if reference:
                expected = transformers_engine(case)
                assert full_engine(case) == expected, name
                bridged = bridge_engine(case, check=True)
                # under the sampled policy the ids are what was sampled, not the template's render
                assert (bridged == expected) != case.sampled_policy, name
                t_tf = best(transformers_engine, case, args.rounds)
                t_full = best(full_engine, case, args.rounds)
            else:
                bridge_engine(case, check=True)
            t_bridge = best(bridge_engine, case, args.rounds)
            t_demand = best(on_demand_engine, case, args.rounds)
            growth.setdefault("chatformats.bridge", []).append((turns, t_bridge))
            growth.setdefault("bridge, on demand", []).append((turns, t_demand))
            renderers_cell = "—"
            if name in mapped:
                try:
                    engine = RenderersEngine(case)
                    note = ""
                    if reference:
                        differ = [i for i, (a, b) in enumerate(zip(engine(case), expected)) if a != b]
                        note = f", ids differ from turn {differ[0] + 1}" if differ else ""
                    t_r = best(engine, case, args.rounds)
                    note += f", {engine.fallbacks} re-renders" if engine.fallbacks else ""
                    ratio = f"{t_tf / t_r:.1f}× " if reference else ""
                    renderers_cell = f"{ratio}({t_r * 1e3:.2f} ms{note})"
                    growth.setdefault("renderers.bridge", []).append((turns, t_r))
                except ImportError:
                    renderers_cell = "not installed"
            if reference:
                growth.setdefault("transformers", []).append((turns, t_tf))
                cells = (f"{t_tf * 1e3:.1f} | {t_tf / t_full:.1f}× | "
                         f"{t_tf / t_bridge:.1f}× ({t_bridge * 1e3:.2f} ms) | "
                         f"{t_tf / t_demand:.1f}× ({t_demand * 1e3:.2f} ms)")
            else:
                cells = f"— | — | ({t_bridge * 1e3:.2f} ms) | ({t_demand * 1e3:.2f} ms)"
            print(f"| {name} | {turns} | {cells} | {renderers_cell} | "
                  f"{t_demand / turns * 1e6:.0f} |", flush=True)
    print()
    print("| format | engine | growth of the total, length over length |")
    print("|---|---|---|")
    for name, engines in totals.items():
        for engine, points in engines.items():
            steps = ", ".join(f"{b[0]}/{a[0]}: {b[1] / a[1]:.1f}×" for a, b in zip(points, points[1:]))
            print(f"| {name} | {engine} | {steps} |")


if __name__ == "__main__":
    main()
