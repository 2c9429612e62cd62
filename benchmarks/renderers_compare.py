"""The ``renderers`` package (0.1.12), compared: how often it writes what the template writes, and
how fast it produces the ids.

``python -m benchmarks.renderers_compare`` (the ``bench`` extra installed; not part of the test
run) writes ``benchmarks/results/renderers.md``; ``--quick`` (two formats, a few conversations, one
round) writes nothing, and ``tests/test_benchmarks_smoke.py`` runs it.

**What is mapped.** ``renderers`` ships hand-written renderers; each chatformats format whose model
it names in its ``MODEL_RENDERER_MAP`` (or, for an earlier revision of a template, whose model it
names: the snapshot a user holds) is compared with that renderer and its default config, the
template's own variables set the same way on both sides (``MAPPING`` below: the format, the
renderer, the config, and the variable settings compared).  Formats whose models renderers does
not name are not compared (``UNMAPPED`` says why for each family it comes close to).

**Agreement.** A seeded generator (``conversations``; the benchmark does not import the tests)
writes the same conversations for every format, in ``KINDS``: plain chats, system messages,
multi-turn chats with reasoning in the history (in the field the format's spec names), reasoning
written inline as ``<think>...</think>`` in the content, tool calls with mapping arguments (their
JSON text for a format whose template concatenates them, the spec's ``call_arguments``) and their
results, two calls in one turn, tools given with a plain chat, and the generation prompt on (the
conversation ends with a user or tool message) or off (it ends with an assistant message).  Each
is rendered by ``chatformats.apply_chat_template`` and by the renderer's ``render_ids`` (it has no
text API), whose ids are decoded by the same tokenizer.  Before anything is compared,
chatformats' text is checked to be transformers' ``apply_chat_template(tokenize=False)`` with the
model's template for every conversation, and the tokenizer to decode the template's own text's ids
back to that text.  A conversation is *byte-identical* when the decoded text is the template's;
*ids equal* when renderers' ids are also chatformats' ``apply_chat_template(tokenize=True)`` ids
(renderers encodes the text between control tokens piece by piece, so BPE merges across a piece
boundary can differ while the text is the same).  A conversation the template refuses (a
``ChatFormatError``) and renderers renders, and one renderers refuses (any exception) that the
template renders, are counted apart.  Each differing conversation is classed by its first
difference (the first differing stretch after the common prefix, what the template writes against
what renderers writes); the report shows each class with its count, the kinds of conversation it
occurs in and one excerpt.

**The tokenizer.** No model tokenizer is downloaded: a byte-level BPE (vocabulary 4,000) is
trained in memory on the template's renderings of the conversations (control strings removed), and
the format's control strings are added as special tokens, with the few more the renderer looks up
(``EXTRA_TOKENS``).  renderers reads ids of control strings with ``convert_tokens_to_ids`` and
encodes the rest; the vocabulary is not the model's, so token counts (and encode times) are not the
model's, but the text comparison does not depend on it.

**Speed.** Per mapped format (the default variables), on the conversations both render and on the
standard workloads (``benchmarks/workloads.py``: short chat, tool agent, 100- and 1,000-message
chats) where renderers renders them: renderers' ``render_ids``; chatformats'
``apply_chat_template(..., tokenize=True, tokenizer=...)``; chatformats' ``render`` (the template
layer, with the variables transformers passes) followed by the tokenizer's own ``encode``; and
transformers' ``apply_chat_template(tokenize=True)`` for reference.  CPU time
(``time.process_time``) of batches, ``gc`` off during a batch, the engines interleaved round after
round (the order rotated each round), every ratio the median of the ratios measured in the same
round (the method of ``benchmarks/README.md``).  Ratios are renderers' time over the engine's:
above 1, the engine is faster.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import json
import random
import re
import statistics
import time
from datetime import datetime
from typing import Any, Callable, Dict, List, Optional, Tuple, cast

import chatformats

from . import common, timing
from . import workloads as W

NOW = datetime(2026, 3, 7, 14, 5, 9)
SEED = 20261201
DATE = NOW.strftime("%d %b %Y")

#: chatformats format -> (renderer module, class, config class, [(label, template variables,
#: config fields)], note).  The first setting is the default one (the speed rows use it).
MAPPING: Dict[str, Tuple[str, str, str, List[Tuple[str, Dict[str, Any], Dict[str, Any]]], str]] = {
    "qwen3": ("renderers.qwen3", "Qwen3Renderer", "Qwen3RendererConfig",
              [("default", {}, {}),
               ("enable_thinking=False", {"enable_thinking": False}, {"enable_thinking": False})],
              "Qwen3-0.6B/8B/30B-A3B: renderers maps them to `qwen3`"),
    "qwen3-2025-04": ("renderers.qwen3", "Qwen3Renderer", "Qwen3RendererConfig",
                      [("default", {}, {}),
                       ("enable_thinking=False", {"enable_thinking": False}, {"enable_thinking": False})],
                      "the Qwen3 text of April 2025 (an earlier snapshot of the same models)"),
    "qwen3-instruct-2507": ("renderers.qwen3", "Qwen3Renderer", "Qwen3RendererConfig",
                            [("default", {}, {})],
                            "Qwen3-4B/30B-A3B-Instruct-2507: renderers maps them to `qwen3`"),
    "qwen3-instruct-2507-2025-07": ("renderers.qwen3", "Qwen3Renderer", "Qwen3RendererConfig",
                                    [("default", {}, {})],
                                    "the Instruct-2507 models' first text (July 2025)"),
    "qwen3-thinking-2507": ("renderers.qwen3", "Qwen3Renderer", "Qwen3RendererConfig",
                            [("default", {}, {})],
                            "Qwen3-4B/30B-A3B-Thinking-2507: renderers maps them to `qwen3`"),
    "deepseek-v3": ("renderers.deepseek_v3", "DeepSeekV3Renderer", "DeepSeekV3RendererConfig",
                    [("default", {}, {})], "DeepSeek-V3: renderers maps it to `deepseek-v3`"),
    "deepseek-r1": ("renderers.deepseek_r1", "DeepSeekR1Renderer", "DeepSeekR1RendererConfig",
                    [("default", {}, {})], "DeepSeek-R1: renderers maps it to `deepseek-r1`"),
    "deepseek-r1-2025-01": ("renderers.deepseek_r1", "DeepSeekR1Renderer", "DeepSeekR1RendererConfig",
                            [("default", {}, {})], "DeepSeek-R1's January 2025 text"),
    "glm-4.5": ("renderers.glm45", "GLM45Renderer", "GLM45RendererConfig",
                [("default", {}, {}),
                 ("enable_thinking=False", {"enable_thinking": False}, {"enable_thinking": False})],
                "GLM-4.5: renderers maps GLM-4.5-Air to `glm-4.5` (the Air's text is not pinned here)"),
    "kimi-k2": ("renderers.kimi_k2", "KimiK2Renderer", "KimiK2RendererConfig",
                [("default", {}, {})], "Kimi-K2-Instruct: renderers maps it to `kimi-k2`"),
    "llama-3.2": ("renderers.llama_3", "Llama3Renderer", "Llama3RendererConfig",
                  [("default", {"date_string": DATE}, {"date_string": DATE}),
                   ("tools_in_user_message=False", {"date_string": DATE, "tools_in_user_message": False},
                    {"date_string": DATE, "tools_in_user_message": False})],
                  "Llama-3.2-1B/3B-Instruct: renderers maps them to `llama-3`; `date_string` set to "
                  "the clock's date on both sides (renderers' default is the template's fallback)"),
}

#: Families renderers comes close to but whose chatformats formats it does not name.
UNMAPPED = {
    "deepseek-v3.1": "no renderer for V3.1 (its `deepseek-v3` renderer names V3 and V3-Base only)",
    "deepseek-r1-distill, deepseek-r1-0528-qwen3": "renderers routes the distills to their base "
    "models' renderers, whose templates are not the distills'",
    "llama-3.1, llama-3.2-vision-*": "`Llama3Renderer` names Llama-3.2-1B/3B only (\"other Llama-3.x "
    "sizes ship slightly different templates\")",
    "qwen2.5-instruct": "no Qwen2.5 renderer",
    "gpt-oss": "`GptOssRenderer` renders through openai-harmony, whose `load_harmony_encoding` "
    "downloads the o200k vocabulary (no network here: it fails before rendering)",
    "(prime-qwen3)": "`PrimeQwen3Renderer` is PrimeIntellect's Qwen3-Coder-style text; no chatformats format",
}

#: Tokens a renderer looks up that are not among the format's control strings.
EXTRA_TOKENS = {"glm-4.5": ("[gMASK]", "<sop>")}

KINDS = ("plain", "system", "reasoning_history", "inline_think", "tool_calls", "parallel_calls",
         "tools_given")
QUICK_FORMATS = ("qwen3", "deepseek-r1")
SPEED_WORKLOADS = ("short_chat", "tool_agent", "chat_100", "chat_1000")
QUICK_SPEED_WORKLOADS = ("short_chat",)

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Get the current weather in a city.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "The city."},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "search", "description": "Search the web.",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["query"]}}},
]

_WORDS = ("the", "model", "answer", "city", "weather", "today", "plan", "a", "list", "of", "steps",
          "café", "naïve", "数据", "Lisbon", "rain", "42", "is", "not", "quite", "right", "check",
          "again", "please", "summary", "with", "three", "points", "—", "code:", "`x = 1`")


class Conversation:
    """One generated conversation: its kind, messages, tools and generation-prompt flag."""

    __slots__ = ("kind", "messages", "tools", "add_generation_prompt")

    def __init__(self, kind: str, messages: List[Dict[str, Any]], tools: Optional[List[Any]],
                 add_generation_prompt: bool) -> None:
        self.kind, self.messages, self.tools = kind, messages, tools
        self.add_generation_prompt = add_generation_prompt


def _text(rng: random.Random, low: int, high: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(low, high))]
    text = " ".join(words)
    if rng.randrange(8) == 0:
        text = text.replace(" steps ", " steps:\n\n1. ")
    return text[:1].upper() + text[1:] + rng.choice((".", "?", "!", ""))


def _arguments(rng: random.Random, name: str, fmt: str) -> Any:
    if name == "get_weather":
        args: Dict[str, Any] = {"city": rng.choice(("Lisbon", "Paris", "Tōkyō"))}
        if rng.randrange(2):
            args["unit"] = "celsius"
    else:
        args = {"query": _text(rng, 2, 6), "limit": rng.randint(1, 10)}
    if chatformats.get_format(fmt).call_arguments == "string":
        return json.dumps(args, ensure_ascii=False)
    return args


def _calls(rng: random.Random, fmt: str, turn: int, count: int) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    calls, results = [], []
    for k in range(count):
        name = rng.choice(("get_weather", "search"))
        call_id = f"call_{turn}_{k}"
        calls.append({"id": call_id, "type": "function",
                      "function": {"name": name, "arguments": _arguments(rng, name, fmt)}})
        results.append({"role": "tool", "tool_call_id": call_id, "name": name,
                        "content": json.dumps({"result": _text(rng, 3, 12)}, ensure_ascii=False)})
    message = {"role": "assistant", "content": "" if rng.randrange(2) else _text(rng, 3, 10),
               "tool_calls": calls}
    return message, results


def _conversation(rng: random.Random, fmt: str, kind: str) -> Conversation:
    field = chatformats.get_format(fmt).reasoning_field
    generation = bool(rng.randrange(2))
    messages: List[Dict[str, Any]] = []
    tools: Optional[List[Any]] = None
    if kind in ("system", "reasoning_history", "tool_calls") and rng.randrange(3):
        messages.append({"role": "system", "content": _text(rng, 4, 20)})
    if kind == "system":
        messages[:] = [{"role": "system", "content": _text(rng, 4, 20)}]
    turns = rng.randint(1, 3)
    for turn in range(turns):
        messages.append({"role": "user", "content": _text(rng, 3, 25)})
        last = turn == turns - 1
        if kind in ("tool_calls", "parallel_calls") and (last or rng.randrange(2)):
            call, results = _calls(rng, fmt, turn, 2 if kind == "parallel_calls" else 1)
            if kind == "tool_calls" and rng.randrange(2):
                call[field] = _text(rng, 5, 15)
            messages.append(call)
            messages.extend(results)
            tools = TOOLS if (kind == "parallel_calls" or rng.randrange(4)) else None
            if last and generation:
                break
        if last and generation:
            break
        answer: Dict[str, Any] = {"role": "assistant", "content": _text(rng, 5, 30)}
        if kind == "reasoning_history":
            answer[field] = _text(rng, 5, 30)
        elif kind == "inline_think":
            answer["content"] = f"<think>\n{_text(rng, 5, 20)}\n</think>\n\n{answer['content']}"
        messages.append(answer)
    if kind == "tools_given":
        tools = TOOLS
    return Conversation(kind, messages, tools, generation)


def conversations(fmt: str, per_kind: int, seed: int = SEED) -> List[Conversation]:
    """``per_kind`` conversations of every kind in ``KINDS``, the same for every format (the
    format only decides the reasoning field and the arguments' shape)."""
    rng = random.Random(seed)
    return [_conversation(rng, fmt, kind) for _ in range(per_kind) for kind in KINDS]


# --------------------------------------------------------------------------------------------
# The tokenizer, the two renderers and the reference check

def build_tokenizer(fmt: str, texts: List[str]) -> Any:
    """A byte-level BPE trained on ``texts`` with the format's control strings as special
    tokens (and the renderer's ``EXTRA_TOKENS``): the same object for every engine."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    spec = chatformats.get_format(fmt)
    controls = list(dict.fromkeys([*spec.control_strings, *EXTRA_TOKENS.get(fmt, ())]))
    corpus = []
    for text in texts:
        for control in sorted(controls, key=len, reverse=True):
            text = text.replace(control, "")
        corpus.append(text)
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=4000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    backend.add_special_tokens([AddedToken(c, special=True, normalized=False) for c in controls])
    tokenizer_class: Any = PreTrainedTokenizerFast
    return tokenizer_class(tokenizer_object=backend, chat_template=spec.template_source(),
                           **spec.special_tokens)


def decode(tokenizer: Any, ids: List[int]) -> str:
    return tokenizer.backend_tokenizer.decode(ids, skip_special_tokens=False)  # type: ignore[no-any-return]


def make_renderer(fmt: str, setting: int, tokenizer: Any) -> Any:
    import importlib

    module, cls, config_cls, settings, _ = MAPPING[fmt]
    mod = importlib.import_module(module)
    configs = importlib.import_module("renderers.configs")
    return getattr(mod, cls)(tokenizer, getattr(configs, config_cls)(**settings[setting][2]))


def template_text(fmt: str, conv: Conversation, variables: Dict[str, Any]) -> Optional[str]:
    try:
        return chatformats.apply_chat_template(fmt, conv.messages, tools=conv.tools,
                                               add_generation_prompt=conv.add_generation_prompt,
                                               now=NOW, **variables)
    except chatformats.ChatFormatError:
        return None


def transformers_text(tokenizer: Any, conv: Conversation, variables: Dict[str, Any]) -> Optional[str]:
    try:
        return tokenizer.apply_chat_template(  # type: ignore[no-any-return]
            copy.deepcopy(conv.messages), tools=conv.tools,
            add_generation_prompt=conv.add_generation_prompt, tokenize=False, **variables)
    except Exception:  # noqa: BLE001 — the template's own failure (jinja2 raises several kinds)
        return None


# --------------------------------------------------------------------------------------------
# Agreement

def first_difference(expected: str, got: str) -> Tuple[int, str, str]:
    """``(offset, template's stretch, renderers' stretch)``: the first stretch after the common
    prefix where the two differ (difflib's first non-equal opcode, over the next 600 characters)."""
    i = 0
    limit = min(len(expected), len(got))
    while i < limit and expected[i] == got[i]:
        i += 1
    a, b = expected[i:i + 600], got[i:i + 600]
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            return i + a1, a[a1:a2], b[b1:b2]
    return i, a, b


def _short(text: str, n: int = 48) -> str:
    return text if len(text) <= n else text[:n] + "…"


def difference_class(expected: str, got: str) -> Tuple[str, str]:
    """The class of a difference: the differing stretches reduced to their control strings (anything
    in angle brackets) and newlines, every other run of text written "…" (so the same structural
    difference in two conversations is one class whatever the generated words)."""
    _, a, b = first_difference(expected, got)

    def shape(s: str) -> str:
        pieces = _TAG.split(s)
        for k in range(0, len(pieces), 2):  # between tags, each run of characters other than a newline is "…"
            pieces[k] = _RUN.sub("…", pieces[k])
        return _short("".join(pieces), 60)

    return shape(a), shape(b)


_TAG = re.compile(r"(<[^<>\s]{1,40}>)")
_RUN = re.compile(r"[^\n]+")


def excerpt(expected: str, got: str, context: int = 40) -> Tuple[str, str]:
    """A readable excerpt around the first difference: ``(template, renderers)``."""
    offset, a, b = first_difference(expected, got)
    start = max(0, offset - context)
    return (expected[start:offset + max(len(a), 1) + 20], got[start:offset + max(len(b), 1) + 20])


def agreement(fmt: str, setting: int, convs: List[Conversation], tokenizer: Any) -> Dict[str, Any]:
    label, variables = MAPPING[fmt][3][setting][:2]
    renderer = make_renderer(fmt, setting, tokenizer)
    row: Dict[str, Any] = {"format": fmt, "setting": label, "renderer": MAPPING[fmt][1],
                           "conversations": len(convs), "compared": 0, "identical": 0, "ids_equal": 0,
                           "both_refuse": 0, "template_refuses": [], "renderers_refuses": [],
                           "classes": {}, "by_kind": {k: [0, 0] for k in KINDS}, "reference_mismatch": 0,
                           "round_trip_failures": 0}
    for conv in convs:
        expected = template_text(fmt, conv, variables)
        reference = transformers_text(tokenizer, conv, variables)
        if expected != reference:
            row["reference_mismatch"] += 1
            continue
        try:
            ids = renderer.render_ids(copy.deepcopy(conv.messages), tools=copy.deepcopy(conv.tools),
                                      add_generation_prompt=conv.add_generation_prompt)
            got: Optional[str] = decode(tokenizer, ids)
            error = ""
        except Exception as exc:  # noqa: BLE001 — a refusal is a result
            got, error = None, f"{type(exc).__name__}: {exc}"
        if expected is None and got is None:
            row["both_refuse"] += 1
            continue
        if expected is None:
            row["template_refuses"].append(conv.kind)
            continue
        if got is None:
            row["renderers_refuses"].append((conv.kind, _short(error.splitlines()[0], 120)))
            continue
        if decode(tokenizer, tokenizer.encode(expected, add_special_tokens=False)) != expected:
            row["round_trip_failures"] += 1
            continue
        row["compared"] += 1
        row["by_kind"][conv.kind][0] += 1
        if got == expected:
            row["identical"] += 1
            row["by_kind"][conv.kind][1] += 1
            cf_ids = chatformats.apply_chat_template(
                fmt, conv.messages, tools=conv.tools, add_generation_prompt=conv.add_generation_prompt,
                now=NOW, tokenize=True, tokenizer=tokenizer, return_dict=False, **variables)
            row["ids_equal"] += list(cf_ids) == list(ids)
            continue
        key = difference_class(expected, got)
        entry = row["classes"].setdefault(key, {"count": 0, "kinds": [], "excerpt": excerpt(expected, got)})
        entry["count"] += 1
        if conv.kind not in entry["kinds"]:
            entry["kinds"].append(conv.kind)
    return row


# --------------------------------------------------------------------------------------------
# Speed

Engine = Callable[[Any], Any]


def speed_engines(fmt: str, tokenizer: Any) -> Dict[str, Engine]:
    """The engines, each taking a list of ``Conversation`` and producing every one's ids."""
    variables = dict(MAPPING[fmt][3][0][1])
    renderer = make_renderer(fmt, 0, tokenizer)
    spec_tokens: Dict[str, Any] = dict(chatformats.get_format(fmt).special_tokens)
    render, apply = chatformats.render, chatformats.apply_chat_template

    def renderers_ids(convs: List[Conversation]) -> Any:
        return [renderer.render_ids(c.messages, tools=c.tools, add_generation_prompt=c.add_generation_prompt)
                for c in convs]

    def chatformats_ids(convs: List[Conversation]) -> Any:
        return [apply(fmt, c.messages, tools=c.tools, add_generation_prompt=c.add_generation_prompt, now=NOW,
                      tokenize=True, tokenizer=tokenizer, return_dict=False, **variables) for c in convs]

    def render_encode(convs: List[Conversation]) -> Any:
        encode = tokenizer.encode
        return [encode(render(fmt, c.messages, now=NOW, tools=c.tools, documents=None,
                              add_generation_prompt=c.add_generation_prompt, **spec_tokens, **variables),
                       add_special_tokens=False) for c in convs]

    texts: Dict[int, str] = {}

    def encode_only(convs: List[Conversation]) -> Any:
        encode = tokenizer.encode
        out = []
        for c in convs:
            text = texts.get(id(c))
            if text is None:
                text = texts[id(c)] = apply(fmt, c.messages, tools=c.tools,
                                            add_generation_prompt=c.add_generation_prompt, now=NOW, **variables)
            out.append(encode(text, add_special_tokens=False))
        return out

    def transformers_ids(convs: List[Conversation]) -> Any:
        return [tokenizer.apply_chat_template(c.messages, tools=c.tools,
                                              add_generation_prompt=c.add_generation_prompt, tokenize=True,
                                              return_dict=False, **variables) for c in convs]

    return {"renderers.render_ids": renderers_ids, "chatformats.apply(tokenize=True)": chatformats_ids,
            "chatformats.render+encode": render_encode, "transformers(tokenize=True)": transformers_ids,
            "encode alone": encode_only}


def time_engines(engines: Dict[str, Engine], convs: List[Conversation], rounds: int,
                 batch_s: float) -> Dict[str, Any]:
    """Interleaved rounds (the order rotated each round); per engine the median time of the set,
    and per engine the median of the same-round ratios renderers / engine."""
    names = list(engines)
    counts = {}
    for name in names:  # calibrate: enough repetitions for about ``batch_s`` of CPU per batch
        t = timing.batch(engines[name], cast(Any, convs), 1)
        counts[name] = max(1, int(batch_s / max(t, 1e-6)))
    times: Dict[str, List[float]] = {n: [] for n in names}
    ratios: Dict[str, List[float]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        measured = {n: timing.batch(engines[n], cast(Any, convs), counts[n]) for n in order}
        for n in names:
            times[n].append(measured[n])
            ratios[n].append(measured["renderers.render_ids"] / measured[n])
    return {n: {"median_s": statistics.median(times[n]), "ratio": statistics.median(ratios[n])}
            for n in names}


def speed(fmt: str, convs: List[Conversation], tokenizer: Any, workloads: Tuple[str, ...], rounds: int,
          batch_s: float) -> List[Dict[str, Any]]:
    variables = dict(MAPPING[fmt][3][0][1])
    engines = speed_engines(fmt, tokenizer)
    rows = []
    sets: List[Tuple[str, List[Conversation]]] = []
    both = [c for c in convs if template_text(fmt, c, variables) is not None and _renders(engines, c)]
    sets.append((f"the {len(both)} conversations", both))
    for wl in workloads:
        data = W.generate(wl, fmt)
        conv = Conversation(wl, data["messages"], data.get("tools"), True)
        if template_text(fmt, conv, variables) is None or not _renders(engines, conv):
            rows.append({"format": fmt, "workload": wl, "refused": True})
            continue
        sets.append((wl, [conv]))
    for label, group in sets:
        ids = engines["chatformats.apply(tokenize=True)"](group)
        assert ids == engines["transformers(tokenize=True)"](group), (fmt, label)
        assert ids == engines["chatformats.render+encode"](group) == engines["encode alone"](group), (fmt, label)
        rows.append({"format": fmt, "workload": label, "engines": time_engines(engines, group, rounds, batch_s)})
    return rows


def _renders(engines: Dict[str, Engine], conv: Conversation) -> bool:
    try:
        engines["renderers.render_ids"]([conv])
        return True
    except Exception:  # noqa: BLE001
        return False


# --------------------------------------------------------------------------------------------
# The report

def _fence(text: str) -> str:
    """``text`` JSON-escaped in a Markdown code span (a backtick written ``'``, so the span holds)."""
    return "`` " + json.dumps(text, ensure_ascii=False)[1:-1].replace("`", "'") + " ``"


def report(result: Dict[str, Any]) -> str:
    import renderers  # type: ignore[import-untyped]

    out = ["# `renderers` compared", "",
           f"Generated by `python -m benchmarks.renderers_compare` (renderers {renderers.__version__}, "
           f"{result['per_kind']} conversations of each of {len(KINDS)} kinds per format and setting, seed "
           f"{SEED}; {result['machine']}). The method is in the module's docstring; the tokenizer is an "
           "in-process byte-level BPE with the format's control strings as special tokens (no model "
           "tokenizer downloaded).", "",
           "## Agreement with the template", "",
           "chatformats' text is transformers' `apply_chat_template` with the model's template for every "
           "conversation below (checked in the run). *Compared*: both render; *identical*: renderers' ids "
           "decode to the template's exact text; *ids equal*: and they are chatformats' (= transformers') "
           "ids for the same tokenizer.", "",
           "| format | renderer (config) | compared | identical | rate | ids equal | renderers refuses | "
           "template refuses, renderers renders | both refuse |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in result["agreement"]:
        rate = row["identical"] / row["compared"] if row["compared"] else 0.0
        out.append(f"| {row['format']} | `{row['renderer']}` ({row['setting']}) | {row['compared']} | "
                   f"{row['identical']} | {rate:.0%} | {row['ids_equal']} | {len(row['renderers_refuses'])} | "
                   f"{len(row['template_refuses'])} | {row['both_refuse']} |")
    out += ["", "Per kind of conversation (identical / compared):", "",
            "| format (setting) | " + " | ".join(KINDS) + " |", "|---|" + "---:|" * len(KINDS)]
    for row in result["agreement"]:
        out.append(f"| {row['format']} ({row['setting']}) | " + " | ".join(
            f"{row['by_kind'][k][1]}/{row['by_kind'][k][0]}" for k in KINDS) + " |")
    out += ["", "## Classes of difference", "",
            "Each differing conversation is classed by its first difference; one excerpt per class "
            "(JSON-escaped; the template's text first, renderers' second).", ""]
    for row in result["agreement"]:
        if not row["classes"] and not row["renderers_refuses"] and not row["template_refuses"]:
            continue
        out += [f"### {row['format']} ({row['setting']})", ""]
        for (a, b), entry in sorted(row["classes"].items(), key=lambda kv: -kv[1]["count"]):
            tmpl, rend = entry["excerpt"]
            out += [f"- {entry['count']} conversation(s) ({', '.join(entry['kinds'])}): the template writes "
                    f"{_fence(a)} where renderers writes {_fence(b)}",
                    f"  - template: {_fence(tmpl)}", f"  - renderers: {_fence(rend)}"]
        refusals: Dict[str, List[str]] = {}
        for kind, message in row["renderers_refuses"]:
            refusals.setdefault(message, []).append(kind)
        for message, kinds in refusals.items():
            out.append(f"- renderers refuses {len(kinds)} conversation(s) ({', '.join(sorted(set(kinds)))}) "
                       f"the template renders: {_fence(message)}")
        if row["template_refuses"]:
            kinds = sorted(set(row["template_refuses"]))
            out.append(f"- the template refuses {len(row['template_refuses'])} conversation(s) "
                       f"({', '.join(kinds)}) that renderers renders")
        out.append("")
    out += ["## Not compared", "", "| chatformats formats | why |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in UNMAPPED.items()]
    out += [f"| {k} | no chatformats format yet |" for k in result["missing"]]
    out += ["", "## Speed", "",
            "CPU time per set, median of interleaved rounds; each ratio is renderers' `render_ids` time "
            "over the engine's, the median of same-round ratios (above 1: faster than renderers). The ids of "
            "the chatformats and transformers engines are checked equal before timing. *encode alone*: the "
            "tokenizer's `encode` of the template's text, rendered beforehand (the floor of every engine that "
            "encodes the whole text in one call).", "",
            "| format | workload | renderers.render_ids (ms) | chatformats.apply(tokenize=True) | "
            "chatformats.render+encode | transformers(tokenize=True) | encode alone |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for row in result["speed"]:
        if row.get("refused"):
            out.append(f"| {row['format']} | {row['workload']} | renderers or the template refuses | | | | |")
            continue
        e = row["engines"]
        r = e["renderers.render_ids"]["median_s"] * 1e3
        cells = [f"{e[n]['ratio']:.2f}× ({e[n]['median_s'] * 1e3:.3g} ms)" for n in
                 ("chatformats.apply(tokenize=True)", "chatformats.render+encode", "transformers(tokenize=True)",
                  "encode alone")]
        out.append(f"| {row['format']} | {row['workload']} | {r:.3g} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def run(argv: Optional[List[str]] = None) -> Dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two formats, few conversations, writes nothing")
    parser.add_argument("--formats", nargs="*", default=None)
    parser.add_argument("--per-kind", type=int, default=None, help="conversations of each kind (default 20)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved timing rounds (default 7)")
    parser.add_argument("--batch", type=float, default=None, help="CPU seconds per timed batch (default 0.05)")
    args = parser.parse_args(argv)
    quick = args.quick
    formats = args.formats or [f for f in (QUICK_FORMATS if quick else MAPPING) if f in chatformats.formats()]
    per_kind = args.per_kind or (2 if quick else 20)
    rounds = args.rounds or (1 if quick else 7)
    batch_s = args.batch if args.batch is not None else (0.002 if quick else 0.05)
    from . import engines as E
    from . import machine

    E.fix_clock()
    result: Dict[str, Any] = {"per_kind": per_kind, "agreement": [], "speed": [],
                              "missing": [f for f in MAPPING if f not in chatformats.formats()]}
    info = machine.machine()
    result["machine"] = (f"{info.get('cpu', 'unknown CPU')}, {info['cpus']} CPUs, Python {info['python']}, "
                         f"tokenizers {info['versions'].get('tokenizers')}, "
                         f"transformers {info['versions'].get('transformers')}")
    for fmt in formats:
        started = time.process_time()
        convs = conversations(fmt, per_kind)
        texts = []
        for _label, setting_variables, _fields in MAPPING[fmt][3]:
            texts += [t for t in (template_text(fmt, c, setting_variables) for c in convs) if t]
        tokenizer = build_tokenizer(fmt, texts)
        for setting in range(len(MAPPING[fmt][3])):
            row = agreement(fmt, setting, convs, tokenizer)
            if row["reference_mismatch"] or row["round_trip_failures"]:
                raise SystemExit(f"{fmt}: {row['reference_mismatch']} conversations where chatformats is not "
                                 f"transformers, {row['round_trip_failures']} the tokenizer does not round-trip")
            result["agreement"].append(row)
        result["speed"] += speed(fmt, convs, tokenizer, QUICK_SPEED_WORKLOADS if quick else SPEED_WORKLOADS,
                                 rounds, batch_s)
        common.log(f"{fmt}: {time.process_time() - started:.1f} s")
    if not quick:
        (common.RESULTS / "renderers.md").write_text(report(result), encoding="utf-8")
    return result


def main(argv: Optional[List[str]] = None) -> None:
    result = run(argv)
    print(report(result))


if __name__ == "__main__":
    main()
