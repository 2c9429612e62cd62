"""The benchmark harness imports (a package of modules without import cycles), its workloads are
the ones the manifest records, and its correctness pre-check passes on the smallest workloads:
every engine's output equals the reference (jinja2 in transformers' environment).  No timing is
asserted."""

from __future__ import annotations

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("transformers")

from benchmarks import common, manifest, measure, summary, timing  # noqa: E402
from benchmarks import run as R  # noqa: E402
from benchmarks import workloads as W  # noqa: E402


@pytest.fixture(autouse=True)
def _transformers_clock_restored():
    """``benchmarks.run`` fixes transformers' clock for the rest of its process
    (``engines.fix_clock``); here it runs inside the test process, so the clock is put back after
    each test (a later test in this worker compares with transformers at the real time)."""
    try:
        from transformers.utils import chat_template_utils as tcu
    except ImportError:
        yield
        return
    saved = tcu.datetime
    try:
        yield
    finally:
        tcu.datetime = saved


def test_workloads_match_the_manifest():
    formats, _ = R.ported_formats(None)
    assert manifest.verify_workloads(formats, ["short_chat", "tool_agent", "chat_10", "chat_100"]) == []


def test_saved_workloads_are_the_generated_ones():
    import json

    formats, _ = R.ported_formats(None)
    for fmt in formats:
        for wl in W.SAVED_WORKLOADS:
            path = common.HERE / "workloads" / fmt / f"{wl}.json"
            assert json.loads(path.read_text(encoding="utf-8")) == W.generate(wl, fmt)


def test_pre_check_passes_on_the_smallest_workloads():
    engines = ["chatformats", "chatformats.apply", "chatformats.spans", "chatformats.apply_spans",
               "chatformats.nospans", "jinja2", "transformers"]
    try:
        import minijinja  # noqa: F401

        engines.append("minijinja")
    except ImportError:
        pass
    report = R.run(["--quick", "--workloads", "short_chat", "tool_agent", "chat_10", "--rounds", "1",
                    "--batch", "0.0001", "--spans-off-rounds", "1", "--engines", *engines])
    assert report["results"], "no format was benchmarked"
    for result in report["results"]:
        assert "warning" not in result, result
        assert result["ratios"]["spans_off/no_spans_code"] > 0  # the copy rendered the same bytes
        assert result["reference"] == "jinja2"
        for engine, info in result["engines"].items():
            if engine == "minijinja" and info["status"] == "error":
                # the engine's own limit, reported by the benchmark as an error row
                assert MINIJINJA_CANNOT.get(result["format"], "\0") in info["why"], (result, info)
                continue
            assert info["status"] == "ok", (result["format"], result["workload"], engine, info)
            assert info["samples"] >= 1


#: Templates minijinja 3.1.0 (the ``bench`` extra's pin) does not render as jinja2 does: the
#: Qwen3-Coder texts test ``tools is iterable and tools | length > 0``, and with ``tools=None``
#: jinja2's ``is iterable`` is false where minijinja's goes on to ``length`` (``cannot calculate
#: length of value of type none``): their chats without tools.
MINIJINJA_CANNOT = {name: "cannot calculate length of value of type none"
                    for name in ("qwen3-coder", "qwen3-coder-2025-07", "qwen3-coder-6211")}


def test_the_spans_off_copies_have_no_spans_code():
    """The ``chatformats.nospans`` engine's ports (their output is checked above) name ``spans``
    nowhere: no test, no parameter, no argument."""
    import sys
    import types

    import chatformats
    from benchmarks import nospans

    formats, _ = R.ported_formats(None)
    for fmt in formats:
        nospans.register(fmt)
    copies = [m for name, m in sys.modules.items() if name.endswith(nospans.SUFFIX)]
    assert {m.__name__ for m in copies} >= {
        f"chatformats.ports.{chatformats.get_format(f).module}{nospans.SUFFIX}" for f in formats}

    def codes(code: types.CodeType):
        yield code
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                yield from codes(const)

    for module in copies:
        for value in vars(module).values():
            functions = [value] if isinstance(value, types.FunctionType) else [
                v for v in vars(value).values() if isinstance(v, types.FunctionType)] if isinstance(value, type) else []
            for function in functions:
                if function.__module__ != module.__name__:
                    continue
                for code in codes(function.__code__):
                    assert "spans" not in code.co_varnames + code.co_names, (module.__name__, code.co_name)


def _result(fmt: str, wl: str, copy_s: float, **engines: dict) -> dict:
    ratios = {f"{name}/chatformats": engines[name]["median_s"] / engines["chatformats"]["median_s"]
              for name in ("jinja2", "minijinja") if name in engines}
    return {"format": fmt, "workload": wl, "messages": 0, "engines": engines, "output_copy_s": copy_s,
            "ratios": ratios}


def test_summary_scaling_and_reach():
    """The summary takes the scaling ratio from the paired single renders when there are some (and
    from the two sizes' medians otherwise), and names the pairs below the per-workload target
    (minijinja: 2x; jinja2 has none) and those where the reference engine takes under that many
    output copies."""
    ok = {"status": "ok"}
    results = [
        _result("f", "chat_1000", 1e-4, chatformats=dict(ok, median_s=1e-3, single_median_s=1e-3),
                jinja2=dict(ok, median_s=2e-2, single_median_s=2e-2)),
        _result("f", "chat_10000", 1e-3, chatformats=dict(ok, median_s=1.5e-2, single_median_s=1.4e-2,
                                                          scaling_paired=10.5),
                jinja2=dict(ok, median_s=2e-1, single_median_s=2.2e-1)),
        _result("f", "one_mb_message", 1e-3, chatformats=dict(ok, median_s=1.1e-3), jinja2=dict(ok, median_s=3e-3),
                minijinja=dict(ok, median_s=1.5e-3)),
    ]
    got = summary.summarise({"results": results, "formats": ["f"]})
    assert got["scaling"]["chat"]["f"] == {"chatformats": 10.5, "jinja2": pytest.approx(11.0)}
    assert got["scaling_batched"]["chat"]["f"]["chatformats"] == pytest.approx(15.0)
    assert got["targets"]["linear"]["met"] and not got["targets"]["linear_batched"]["met"]
    target = got["targets"]["jinja2/chatformats"]
    assert target["below"] == [] and target["unreachable"] == []  # no per-workload target
    assert not target["met"]  # a geometric mean under 25x
    target = got["targets"]["minijinja/chatformats"]
    assert target["below"] == ["f one_mb_message 1.4"]
    assert target["unreachable"] == ["f one_mb_message 1.5"]
    assert not target["met"]


def test_paired_scaling_alternates_the_two_sizes(monkeypatch):
    calls: list = []

    def engine(workload: dict) -> str:
        calls.append(len(workload["messages"]))
        return ""

    timings = iter([1.0, 10.0, 2.0, 22.0, 1.0, 12.0])
    monkeypatch.setattr(timing, "cold_call", lambda eng, data: (eng(data), next(timings))[1])
    opts = R.parse_args(["--single-calls", "3", "--budget", "1000"])
    big = W.generate("chat_10000", "cogito")
    result: dict = {"engines": {"chatformats": {}}}
    measure.paired_scaling("cogito", "chat", big, {"chatformats": engine}, ["chatformats"], result, opts)
    info = result["engines"]["chatformats"]
    assert calls == [1000, 10000] * 3
    assert info["scaling_paired"] == 11.0  # the median of 10, 11 and 12, not 22/2 or 12/1
    assert info["scaling_pairs"] == 3


def test_no_import_cycle_between_the_modules():
    """Each module of ``benchmarks/`` imports only modules before it in some order (the package
    is a graph without cycles; ``report`` and ``plot`` never import ``run``)."""
    import ast

    folder = common.HERE
    graph = {}
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                deps |= {node.module} if node.module else {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("benchmarks"):
                deps |= {(node.module or "").partition(".")[2] or a.name for a in node.names}
        graph[path.stem] = {d.partition(".")[0] for d in deps} - {path.stem}
    assert {"run", "report", "plot", "measure", "timing", "summary"} <= set(graph)
    assert "run" not in graph["report"] | graph["plot"]
    done: list = []
    while len(done) < len(graph):
        ready = sorted(m for m in graph if m not in done and graph[m] <= set(done))
        assert ready, f"an import cycle among {sorted(set(graph) - set(done))}: " + str(
            {m: sorted(graph[m]) for m in graph if m not in done})
        done += ready


def test_the_spans_off_copies_render_as_the_ports():
    """Each format's copy without spans code renders its covering conversations as its port
    does (a port testing ``if spans is None:`` keeps that branch's body: DeepSeek's system
    prompt was once lost, and the copy failed, on every conversation with a system message)."""
    import chatformats
    from benchmarks import nospans

    formats, _ = R.ported_formats(None)
    for name in formats:
        fmt = chatformats.get_format(name)
        copy = nospans.register(name)
        for messages, variables in fmt.tests.covering:
            try:
                expected = chatformats.render(fmt, messages, **variables)
            except chatformats.ChatFormatError:
                continue
            assert chatformats.render(copy, messages, **variables) == expected, name


def test_renderers_comparison_quick():
    """``python -m benchmarks.renderers_compare --quick``: chatformats' text is transformers' for
    every generated conversation (the run stops otherwise), every kind of conversation is compared
    for each mapped format, renderers agrees with the template on some and its ids decode to the
    template's text there, and the speed rows check the ids of the three chatformats/transformers
    engines equal before timing.  No timing is asserted."""
    pytest.importorskip("renderers")
    from benchmarks import renderers_compare as RC

    result = RC.run(["--quick"])
    rows = result["agreement"]
    assert {row["format"] for row in rows} == set(RC.QUICK_FORMATS)
    for row in rows:
        assert row["reference_mismatch"] == 0 and row["round_trip_failures"] == 0
        assert row["compared"] + len(row["renderers_refuses"]) + len(row["template_refuses"]) + \
            row["both_refuse"] == row["conversations"]
        assert all(compared > 0 for compared, _ in row["by_kind"].values()), row["by_kind"]
        assert 0 < row["identical"] <= row["compared"]
        assert row["ids_equal"] <= row["identical"]
        differing = sum(entry["count"] for entry in row["classes"].values())
        assert differing == row["compared"] - row["identical"]
    # the one deviation renderers documents (the empty thinking wrapper kept in history) is found
    off = next(row for row in rows if row["setting"] == "enable_thinking=False")
    assert any("</think>" in rend for _, rend in off["classes"]), off["classes"]
    for speed in result["speed"]:
        assert speed.get("refused") or all(e["ratio"] > 0 for e in speed["engines"].values())
    assert "## Speed" in RC.report(result)


def test_renderers_first_difference():
    from benchmarks import renderers_compare as RC

    assert RC.first_difference("ab\ncd", "ab<x>cd") == (2, "\n", "<x>")
    assert RC.first_difference("abc", "abcd") == (3, "", "d")
    tmpl, rend = RC.excerpt("x" * 100 + "A", "x" * 100 + "B", context=5)
    assert tmpl == "xxxxxA" and rend == "xxxxxB"


def test_ids_long_quick():
    """``python -m benchmarks.ids_long --quick``: every engine's ids are transformers' (checked in
    the run before timing), one row per workload and a report.  No timing is asserted."""
    pytest.importorskip("renderers")
    from benchmarks import ids_long

    rows = ids_long.run(["--quick"])
    assert [row["workload"] for row in rows] == ["chat_10"] and rows[0]["tokens"] > 0
    assert all(e["ratio"] > 0 for e in rows[0]["engines"].values())
    assert "| qwen3 | chat_10 |" in ids_long.report(rows)
