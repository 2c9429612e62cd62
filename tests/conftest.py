"""Hypothesis profiles and the template-line coverage summary.

Profiles (``--hypothesis-profile NAME`` or ``HYPOTHESIS_PROFILE``):
- ``ci`` (default): 1,000 examples per property, derandomized, so a run is reproducible; the
  properties that run once per format (the shared parity properties, each format's own, the
  pipeline and fuzz properties) draw a format's share of a total across the formats instead,
  ``max(FLOOR, TOTAL * weight / sum of the weights)`` (``tests/budget.py``, the one place the
  rule and the totals are written).  Measured, nine formats, one process: the parity modules
  take 345 CPU-seconds (about 410 with the fixed counts before the rule); twenty formats would
  take 6-8 CPU-minutes, 3-4 minutes on two workers, the whole suite about 10-11 minutes
  (``docs/guarantees.md``, "Test budget", has the numbers per format and per property);
- ``dev``: 200 random examples, and a fifth of each format's share, for quick local iteration;
- ``deep``: 100,000 random examples per property, every per-format one included, for long bug
  hunts: ``HYPOTHESIS_PROFILE=deep python -m pytest ...`` (see docs/guarantees.md).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("ci", max_examples=1000, derandomize=True, deadline=None, database=None,
                          suppress_health_check=_SLOW_OK, print_blob=True)
settings.register_profile("dev", max_examples=200, deadline=None, suppress_health_check=_SLOW_OK,
                          print_blob=True)
settings.register_profile("deep", max_examples=100_000, deadline=None, suppress_health_check=_SLOW_OK,
                          print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def ci_profile() -> bool:
    """Whether this run uses the ``ci`` profile (``HYPOTHESIS_PROFILE`` or ``--hypothesis-profile``,
    which applies before test modules are imported): the properties sized for the suite's time
    budget ask this when their module loads."""
    return settings.default.max_examples == settings.get_profile("ci").max_examples


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    # The template-line coverage checks read what every parity test recorded: run them last.
    items.sort(key=lambda item: item.name.startswith("test_template_lines_exercised"))


def _local_coverage() -> dict[str, tuple[list[int], list[int]]]:
    """{format: (exercised template lines, template lines holding code)} from this process."""
    from . import oracle

    import chatformats

    report = {}
    for name in chatformats.formats():
        if oracle.coverage_renders(name):
            exercised, total = oracle.coverage_sets(name)
            report[name] = (sorted(exercised), sorted(total))
    return report


_merged: dict[str, tuple[set[int], set[int]]] = {}


def pytest_sessionfinish(session: pytest.Session) -> None:
    # Under pytest-xdist, each worker sends what its oracle executed to the controller.
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["template_coverage"] = _local_coverage()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # type: ignore[no-untyped-def]
    for name, (exercised, total) in getattr(node, "workeroutput", {}).get("template_coverage", {}).items():
        hit, lines = _merged.setdefault(name, (set(), set()))
        hit.update(exercised)
        lines.update(total)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    report = {name: (set(hit), set(total)) for name, (hit, total) in _local_coverage().items()}
    for name, (hit, total) in _merged.items():
        mine = report.setdefault(name, (set(), set()))
        mine[0].update(hit)
        mine[1].update(total)
    if report:
        import chatformats

        terminalreporter.section("template lines exercised by the oracle")
        terminalreporter.write_line(
            "Lines of each reference template that hold code, and how many the oracle ran. "
            "'unreachable': lines no input reaches, each proven so in the format's spec "
            "(tests.unreachable, with the reason); 'not run': lines the tests of this run did "
            "not reach (a partial run; in a full run test_template_lines_exercised fails on any).")
        for name, (hit, total) in report.items():
            missed = sorted(total - hit)
            unreachable = dict(chatformats.get_format(name).tests.unreachable)
            proven = [line for line in missed if line in unreachable]
            not_run = [line for line in missed if line not in unreachable]
            terminalreporter.write_line(
                f"{name}: lines exercised {len(hit)}/{len(total)}"
                + (f"; unreachable: {proven}" if proven else "")
                + (f"; not run: {not_run}" if not_run else ""))
