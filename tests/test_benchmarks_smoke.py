"""The benchmark harness imports, its workloads are the ones the manifest records, and its
correctness pre-check passes on the smallest workloads: every engine's output equals the
reference (jinja2 in transformers' environment).  No timing is asserted."""

from __future__ import annotations

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("transformers")

from benchmarks import run as R  # noqa: E402
from benchmarks import workloads as W  # noqa: E402


def test_workloads_match_the_manifest():
    formats, _ = R.ported_formats(None)
    assert R.verify_workloads(formats, ["short_chat", "tool_agent", "chat_10", "chat_100"]) == []


def test_saved_workloads_are_the_generated_ones():
    import json

    formats, _ = R.ported_formats(None)
    for fmt in formats:
        for wl in W.SAVED_WORKLOADS:
            path = R.HERE / "workloads" / fmt / f"{wl}.json"
            assert json.loads(path.read_text(encoding="utf-8")) == W.generate(wl, fmt)


def test_pre_check_passes_on_the_smallest_workloads():
    engines = ["chatformats", "chatformats.apply", "jinja2", "transformers"]
    try:
        import minijinja  # noqa: F401

        engines.append("minijinja")
    except ImportError:
        pass
    report = R.run(["--quick", "--workloads", "short_chat", "tool_agent", "chat_10", "--rounds", "1",
                    "--batch", "0.0001", "--engines", *engines])
    assert report["results"], "no format was benchmarked"
    for result in report["results"]:
        assert "warning" not in result, result
        assert result["reference"] == "jinja2"
        for engine, info in result["engines"].items():
            assert info["status"] == "ok", (result["format"], result["workload"], engine, info)
            assert info["samples"] >= 1
