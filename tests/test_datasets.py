"""chatformats as a data-pipeline function: a Hugging Face ``datasets`` dataset built in memory is
formatted with ``.map(..., num_proc=2)``, the way SFT pipelines format data, and every prompt is
what transformers' own ``tokenizer.apply_chat_template`` gives for the same row (bad rows
included: both fail).  Render functions and formats pickle, so worker processes (spawned, not
forked) can run them.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
from functools import partial
from typing import Any

import datasets
import pytest

import chatformats

from . import transformers_oracle
from .oracle import FIXED_NOW

PORTED = chatformats.formats()

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]

ROWS: list[dict[str, Any]] = [
    {"messages": [{"role": "user", "content": "Hi!"},
                  {"role": "assistant", "content": "Hello! How can I help?"}], "tools": None},
    {"messages": [{"role": "system", "content": "Answer briefly."},
                  {"role": "user", "content": "2+2?"},
                  {"role": "assistant", "content": "4", "reasoning_content": "Simple arithmetic."}],
     "tools": None},
    {"messages": [{"role": "user", "content": "Weather in Seoul?"},
                  {"role": "assistant", "content": "",
                   "tool_calls": [{"id": "call_1", "type": "function",
                                   "function": {"name": "get_weather",
                                                "arguments": json.dumps({"city": "Seoul"})}}]},
                  {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp_c\": 21}"},
                  {"role": "assistant", "content": "21 °C and clear."}], "tools": TOOLS},
    {"messages": [], "tools": None},  # a bad row: an empty conversation fails in transformers too
    {"messages": [{"role": "user", "content": f"question {i}"} if i % 2 == 0 else
                  {"role": "assistant", "content": f"answer {i} <think>x</think>"} for i in range(12)],
     "tools": TOOLS},
]


def format_example(example: dict[str, Any], name: str) -> dict[str, Any]:
    """What an SFT pipeline maps over its dataset (docs/batch.md shows this function)."""
    try:
        prompt = chatformats.apply_chat_template(name, example["messages"], tools=example["tools"],
                                                 now=FIXED_NOW)
    except chatformats.ChatFormatError as exc:
        return {"prompt": None, "error": f"{type(exc).__name__}: {exc}"}
    return {"prompt": prompt, "error": None}


@pytest.fixture(scope="module")
def dataset() -> Any:
    datasets.disable_progress_bars()
    return datasets.Dataset.from_list(ROWS)


def test_arrow_fills_absent_keys_with_none(dataset):
    """Why datasets want the pipeline layer: Arrow gives every message every key, ``None`` where
    the original had none; transformers (and ``apply_chat_template``) drop ``None`` keys, the
    template layer would see them."""
    assert "tool_calls" not in ROWS[0]["messages"][0]
    assert dataset[0]["messages"][0]["tool_calls"] is None


@pytest.mark.parametrize("name", PORTED)
def test_map_with_num_proc_matches_transformers(dataset, name):
    formatted = dataset.map(format_example, fn_kwargs={"name": name}, num_proc=2,
                            load_from_cache_file=False)
    assert formatted.num_rows == len(ROWS)
    for row, got in zip(dataset, formatted):
        expected = transformers_oracle.apply(name, row["messages"], tools=row["tools"])
        if expected.ok:
            assert got["error"] is None, got["error"]
            assert got["prompt"] == expected.text
        else:
            assert got["prompt"] is None and got["error"], expected
    assert formatted[3]["error"].startswith("InvalidConversation: Cannot apply chat template to an empty")


def test_batched_map(dataset):
    """``batched=True`` hands lists of rows; the same prompts come out."""
    name = "qwen3-tool-agent"

    def format_batch(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
        results = [format_example({"messages": m, "tools": t}, name)
                   for m, t in zip(batch["messages"], batch["tools"])]
        return {"prompt": [r["prompt"] for r in results], "error": [r["error"] for r in results]}

    single = dataset.map(format_example, fn_kwargs={"name": name}, load_from_cache_file=False)
    batched = dataset.map(format_batch, batched=True, batch_size=2, num_proc=2, load_from_cache_file=False)
    assert batched["prompt"] == single["prompt"]


def test_render_functions_and_formats_pickle():
    for fn in (chatformats.render, chatformats.apply_chat_template, chatformats.get_format,
               partial(chatformats.apply_chat_template, "cogito")):
        assert pickle.loads(pickle.dumps(fn)) is fn or isinstance(fn, partial)
    for name in chatformats.formats():
        fmt = chatformats.get_format(name)
        assert pickle.loads(pickle.dumps(fmt)) is fmt
        bound = pickle.loads(pickle.dumps(fmt.render))
        assert bound.__self__ is fmt


def test_spawned_workers_render(dataset):
    """A spawned process shares nothing with this one: the function and its arguments travel
    pickled, as they do to Spark, Ray or multiprocessing on macOS and Windows."""
    name = "cogito"
    rows = [row for row in ROWS if row["messages"]]
    work = partial(chatformats.apply_chat_template, name, now=FIXED_NOW)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        got = pool.map(work, [row["messages"] for row in rows])
    assert got == [chatformats.apply_chat_template(name, row["messages"], now=FIXED_NOW) for row in rows]


# ------------------------------------------------------------------ SFT: tokens and assistant masks


def sft_example(example: dict[str, Any], name: str, tokenizer: Any) -> dict[str, Any]:
    """What an SFT pipeline maps over its dataset to train on assistant tokens only
    (docs/spans.md shows this function): the prompt's token ids and, per token, 1 where the model
    generates it."""
    try:
        rendering = chatformats.apply_chat_template_spans(name, example["messages"],
                                                          tools=example["tools"], now=FIXED_NOW)
    except chatformats.ChatFormatError as exc:
        return {"input_ids": [], "assistant_masks": [], "error": f"{type(exc).__name__}: {exc}"}
    encoding = tokenizer.encode(rendering.text, add_special_tokens=False)
    return {"input_ids": encoding.ids, "assistant_masks": rendering.assistant_mask(encoding.offsets),
            "error": None}


@pytest.mark.parametrize("name", PORTED)
def test_map_gives_transformers_assistant_masks(dataset, name):
    """``datasets.map`` with two processes and a real ``tokenizers.Tokenizer``: each row's ids and
    mask are what transformers' ``apply_chat_template(..., tokenize=True, return_dict=True,
    return_assistant_tokens_mask=True)`` gives for the same text with the same generated ranges
    in ``{% generation %}`` blocks (``tests/test_spans_masks.py``)."""
    from .test_spans_masks import backend, pieces, tokenizer

    mapped = dataset.map(sft_example, fn_kwargs={"name": name, "tokenizer": backend("bpe")},
                         num_proc=2, load_from_cache_file=False)
    marked = 0
    for row, got in zip(dataset, mapped):
        if got["error"] is not None:  # the row's own failure (an empty conversation; MiniCPM-V's
            # template reads a tool call's arguments as a mapping, and this row's are a JSON string)
            with pytest.raises(chatformats.ChatFormatError) as info:
                chatformats.apply_chat_template(name, row["messages"], tools=row["tools"], now=FIXED_NOW)
            assert got["error"] == f"{type(info.value).__name__}: {info.value}"
            continue
        rendering = chatformats.apply_chat_template_spans(name, row["messages"], tools=row["tools"],
                                                          now=FIXED_NOW)
        expected = tokenizer("bpe", False, "right").apply_chat_template(
            pieces(rendering), tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
        assert got["input_ids"] == expected["input_ids"]
        assert got["assistant_masks"] == expected["assistant_masks"]
        marked += sum(got["assistant_masks"])
    assert marked
