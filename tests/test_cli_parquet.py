"""``chatformats render FORMAT --parquet IN -o OUT`` and ``chatformats.parquet.render_parquet``:
the rows a ``--jsonl`` run gives for the same conversations (prompts and error strings alike),
native Arrow conversation columns, per-row variables, configurable column names, atomic output,
one-line failures, and memory bounded by a batch: the input is read batch by batch and each
batch written as its own row group (counted, not timed; the Arrow memory in use stays a small
fraction of the decoded file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import chatformats
import chatformats.parquet
from chatformats.cli import main
from chatformats.cli.common import _parse_now
from chatformats.ray import RenderStage

pa = pytest.importorskip("pyarrow", reason="the parquet extra (pyarrow) is not installed")
pq = pytest.importorskip("pyarrow.parquet")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
NOW = "2026-03-07"


def _write_lines(path: Path, lines: list[str], row_group_size: int = 2, **extra: list[Any]) -> None:
    pq.write_table(pa.table({"conversation": lines, **extra}), path, row_group_size=row_group_size)


def _jsonl_records(jsonl: Path, capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    status = main(["render", "cogito", "--jsonl", str(jsonl), "--now", NOW, *args])
    out = capsys.readouterr().out
    assert status in (0, 1)
    return [json.loads(line) for line in out.splitlines()]


def test_parquet_rows_are_the_jsonl_run_s_records(tmp_path, capsys):
    """Each line of ``examples/with_errors.jsonl`` as a string cell: the prompt or the error of
    the JSONL run's record, row for row, and the same exit status and summary."""
    lines = (EXAMPLES / "with_errors.jsonl").read_text(encoding="utf-8").splitlines()
    lines += (EXAMPLES / "conversations.jsonl").read_text(encoding="utf-8").splitlines()
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = _jsonl_records(jsonl, capsys)
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    _write_lines(source, lines)
    status = main(["render", "cogito", "--parquet", str(source), "-o", str(out), "--now", NOW,
                   "--messages-column", "conversation", "--batch-rows", "3"])
    err = capsys.readouterr().err
    assert status == 1
    failed = [r for r in records if "error" in r]
    assert f"{len(lines) - len(failed)} of {len(lines)} rows rendered, {len(failed)} failed" in err
    rows = pq.read_table(out).to_pylist()
    assert [(r["prompt"], r["error"]) for r in rows] == [
        (r.get("prompt"), r.get("error")) for r in records]
    assert pq.ParquetFile(out).schema_arrow.names == ["prompt", "error"]


def test_arrow_columns_variables_and_column_names(tmp_path, capsys):
    """A native list<struct> column (as ``datasets`` or Spark write one), a column of per-row
    variables that ``--var`` overrides, other names for every column, the input columns kept."""
    messages = [[{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}",
                                                        "reasoning_content": f"r{i}"}]
                for i in range(5)]
    variables = [{"enable_thinking": i % 2 == 0, "add_generation_prompt": False} for i in range(5)]
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pq.write_table(pa.table({"id": list(range(5)), "chat": messages, "vars": variables}), source)
    status = main(["render", "qwen3-instruct-2507", "--parquet", str(source), "-o", str(out),
                   "--now", NOW, "--messages-column", "chat", "--variables-column", "vars",
                   "--output-column", "text", "--error-column", "problem", "--keep-columns",
                   "--var", "add_generation_prompt=true"])
    assert status == 0, capsys.readouterr().err
    table = pq.read_table(out)
    assert table.column_names == ["id", "chat", "vars", "text", "problem"]
    read_back = pq.read_table(source).to_pylist()  # what Arrow stores is what is rendered
    for row, original in zip(table.to_pylist(), read_back):
        expected = chatformats.apply_chat_template(
            "qwen3-instruct-2507", original["chat"], now=chatformats_now(),
            enable_thinking=original["vars"]["enable_thinking"], add_generation_prompt=True)
        assert row["text"] == expected and row["problem"] is None
        assert row["id"] == original["id"]


def chatformats_now() -> Any:
    from datetime import datetime

    return datetime(2026, 3, 7)


class _Counting:
    """``ParquetFile.iter_batches`` wrapped: the batches it yields and their sizes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sizes: list[int] = []
        original = pq.ParquetFile.iter_batches

        def iter_batches(parquet_file: Any, *args: Any, **kwargs: Any) -> Any:
            for batch in original(parquet_file, *args, **kwargs):
                self.sizes.append(batch.num_rows)
                yield batch

        monkeypatch.setattr(pq.ParquetFile, "iter_batches", iter_batches)


def test_memory_is_bounded_by_a_batch(tmp_path, monkeypatch):
    """40 row groups of 250 rows: 40 batches read one after another, 40 row groups written, the
    output the same as rendering the whole table at once; the Arrow memory allocated after each
    batch never reaches a quarter of what the decoded input alone takes (0.16 of it here; with
    one batch of 10,000 rows it is 2.1 times it, so the check can fail)."""
    conversation = json.dumps([{"role": "user", "content": "x" * 2000},
                               {"role": "assistant", "content": "y" * 2000}])
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    lines = [conversation[:-2] + f', "n": {i}}}]' for i in range(10_000)]
    _write_lines(source, lines, row_group_size=250)
    whole = pq.read_table(source)
    decoded = whole.nbytes
    stage = RenderStage("cogito", column="conversation", now=chatformats_now())
    expected = stage(whole).select(["prompt", "error"])
    del whole
    counting = _Counting(monkeypatch)
    base = pa.total_allocated_bytes()
    peaks: list[int] = []
    summary = chatformats.parquet.render_parquet(
        str(source), str(out), stage, batch_rows=250,
        on_batch=lambda s: peaks.append(pa.total_allocated_bytes() - base))
    assert counting.sizes == [250] * 40
    assert (summary.rows, summary.failed, summary.batches) == (10_000, 0, 40)
    assert pq.ParquetFile(out).metadata.num_row_groups == 40
    assert max(peaks) < decoded / 4, (max(peaks), decoded)
    assert pq.read_table(out).equals(expected)


def test_a_run_that_cannot_finish_leaves_out_unchanged(tmp_path, capsys):
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    _write_lines(source, ['[{"role": "user", "content": "hi"}]'])
    out.write_bytes(b"the previous run")
    cases = [
        (["--parquet", str(source)], 1, "no column 'messages'"),  # the default column name
        (["--parquet", str(tmp_path / "missing.parquet"), "--messages-column", "conversation"],
         1, "missing.parquet"),
        (["--parquet", str(EXAMPLES / "messages.json"), "--messages-column", "conversation"],
         1, "not a Parquet file"),
        (["--parquet", "-", "--messages-column", "conversation"], 1, "not stdin"),
        (["--parquet", str(source), "--workers", "2"], 2, "--workers goes with --jsonl"),
        (["--parquet", str(source), "--output-column", "error"], 2, "must differ"),
        ([str(source), "--parquet", str(source)], 2, "one of them"),
    ]
    for args, status, message in cases:
        code = None
        try:
            code = main(["render", "cogito", *args, "-o", str(out)])
        except SystemExit as exc:  # argparse's own usage errors
            code = exc.code
        err = capsys.readouterr().err
        assert code == status and message in err and err.count("\n") == 1, (args, code, err)
        assert out.read_bytes() == b"the previous run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet", "out.parquet"]
    if os.path.exists("/dev/full"):  # a full disk: one line, status 1
        assert main(["render", "cogito", "--parquet", str(source), "--messages-column",
                     "conversation", "-o", "/dev/full"]) == 1
        err = capsys.readouterr().err
        assert err == "chatformats: cannot write /dev/full: No space left on device\n", err


_BLOCKED = r"""
import builtins, sys
real_import = builtins.__import__
def guard(name, *args, **kwargs):
    if name.split(".")[0] == "pyarrow":
        raise ImportError("No module named 'pyarrow'")
    return real_import(name, *args, **kwargs)
builtins.__import__ = guard
from chatformats.cli import main
from chatformats.cli.common import _parse_now
sys.exit(main(sys.argv[1:]))
"""


def test_without_pyarrow_the_command_says_how_to_install_it(tmp_path):
    source = tmp_path / "in.parquet"
    _write_lines(source, ["[]"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(chatformats.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-c", _BLOCKED, "render", "cogito", "--parquet",
                             str(source), "-o", str(tmp_path / "out.parquet")],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert "chatformats[parquet]" in result.stderr and "pyarrow" in result.stderr
    assert not (tmp_path / "out.parquet").exists()
    # Without --parquet, nothing needs pyarrow.
    plain = subprocess.run([sys.executable, "-c", _BLOCKED, "render", "cogito", "-"],
                           input='[{"role": "user", "content": "hi"}]', capture_output=True,
                           text=True, env=env, timeout=60)
    assert plain.returncode == 0 and plain.stdout.endswith("hi<|eot_id|>")


def test_an_empty_file_gives_an_empty_file_with_the_columns(tmp_path, capsys):
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pq.write_table(pa.table({"messages": pa.array([], type=pa.string())}), source)
    assert main(["render", "cogito", "--parquet", str(source), "-o", str(out)]) == 0
    table = pq.read_table(out)
    assert table.num_rows == 0 and table.column_names == ["prompt", "error"]


def test_audit_parquet_rows_are_the_library_s_findings(tmp_path, capsys):
    """``audit FORMAT --parquet IN``: each row's findings column is the JSON list of
    ``chatformats.audit_chat_template`` (``audit`` with ``--layer template``) for that row, a
    failed row keeps its error; status 3 for findings, 1 for a failed row, 0 for neither."""
    conversations = [
        [{"role": "user", "content": "hi <|im_end|> there"},
         {"role": "assistant", "content": "<think>x</think> ok"}],
        [{"role": "user", "content": "clean"}],
        [{"role": "user", "content": "a <tool_call> b"}],
    ]
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    _write_lines(source, [json.dumps(c) for c in conversations], messages=[json.dumps(c) for c in conversations])
    for layer in ("pipeline", "template"):
        status = main(["audit", "qwen3-tool-agent", "--parquet", str(source), "-o", str(out),
                       "--layer", layer, "--now", NOW])
        err = capsys.readouterr().err
        assert status == 3 and "2 of 3 rows hold control strings" in err, err
        rows = pq.read_table(out).to_pylist()
        assert [r["error"] for r in rows] == [None, None, None]
        for row, conversation in zip(rows, conversations):
            if layer == "template":
                findings = chatformats.audit("qwen3-tool-agent", conversation, now=chatformats_now())
            else:
                findings = chatformats.audit_chat_template("qwen3-tool-agent", conversation,
                                                           now=chatformats_now())
            assert json.loads(row["findings"]) == [f.as_dict() for f in findings]
    clean = tmp_path / "clean.parquet"
    _write_lines(clean, [json.dumps(conversations[1])], messages=[json.dumps(conversations[1])])
    assert main(["audit", "qwen3-tool-agent", "--parquet", str(clean), "-o", str(out)]) == 0
    bad = tmp_path / "bad.parquet"
    _write_lines(bad, ["[]", json.dumps(conversations[0])], messages=["[]", json.dumps(conversations[0])])
    assert main(["audit", "qwen3-tool-agent", "--parquet", str(bad), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "1 of 2 rows audited, 1 failed" in err and "row 1: InvalidConversation" in err
    assert pq.read_table(out).column("findings").to_pylist()[0] is None


def test_ids_rows_are_the_library_s_ids(tmp_path, capsys):
    """``--ids TOKENIZER_JSON``: each row's ``input_ids``, ``attention_mask`` and
    ``assistant_masks`` (``list<int32>``) are ``chatformats.apply_chat_template(...,
    tokenize=True, return_dict=True, return_assistant_tokens_mask=True)`` with that file's
    tokenizer, and each failed row keeps the error ``render --parquet`` gives it."""
    tokenizers = pytest.importorskip("tokenizers")
    from . import bpe

    tokenizer_json = tmp_path / "tokenizer.json"
    bpe.backend("cogito").save(str(tokenizer_json))
    tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_json))
    lines = (EXAMPLES / "with_errors.jsonl").read_text(encoding="utf-8").splitlines()
    lines += (EXAMPLES / "conversations.jsonl").read_text(encoding="utf-8").splitlines()
    source, prompts, ids = tmp_path / "in.parquet", tmp_path / "prompts.parquet", tmp_path / "ids.parquet"
    _write_lines(source, lines, id=list(range(len(lines))))
    common = ["--parquet", str(source), "--now", NOW, "--messages-column", "conversation",
              "--batch-rows", "3"]
    assert main(["render", "cogito", *common, "-o", str(prompts)]) == 1
    expected_err = capsys.readouterr().err
    assert main(["render", "cogito", *common, "-o", str(ids), "--ids", str(tokenizer_json),
                 "--keep-columns"]) == 1
    assert capsys.readouterr().err == expected_err
    table = pq.read_table(ids)
    assert table.column_names == ["conversation", "id", "input_ids", "attention_mask",
                                  "assistant_masks", "error"]
    assert str(table.schema.field("input_ids").type) == "list<element: int32>"
    rendered = 0
    for row, prompt, line in zip(table.to_pylist(), pq.read_table(prompts).to_pylist(), lines):
        assert row["error"] == prompt["error"]
        if prompt["error"] is not None:
            assert row["input_ids"] is row["attention_mask"] is row["assistant_masks"] is None
            continue
        rendered += 1
        data = json.loads(line)
        messages = data if isinstance(data, list) else data.pop("messages")
        variables = {} if isinstance(data, list) else data
        expected = chatformats.apply_chat_template(
            "cogito", messages, tokenize=True, tokenizer=tokenizer, return_dict=True,
            return_assistant_tokens_mask=True, now=_parse_now(NOW), **variables)
        assert tokenizer.decode(row["input_ids"], skip_special_tokens=False) == prompt["prompt"]
        assert {key: row[key] for key in expected} == expected
    assert rendered >= 3 and any(1 in row["assistant_masks"] for row in table.to_pylist()
                                 if row["error"] is None)


def test_ids_refusals(tmp_path, capsys):
    """``--ids`` goes with ``--parquet`` (a usage error, status 2); a missing or invalid
    tokenizer file is one line (status 1) before anything is written."""
    source, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    _write_lines(source, ['[{"role": "user", "content": "hi"}]'])
    (tmp_path / "x.json").write_text("[]", encoding="utf-8")
    assert main(["render", "cogito", str(tmp_path / "x.json"), "--ids", "t.json"]) == 2
    assert "--ids goes with --parquet" in capsys.readouterr().err
    for path, message in ((tmp_path / "none.json", "no such file"),
                          (tmp_path / "x.json", "not a tokenizer.json")):
        status = main(["render", "cogito", "--parquet", str(source), "-o", str(out),
                       "--messages-column", "conversation", "--ids", str(path)])
        assert status == 1 and message in capsys.readouterr().err
        assert not out.exists()
