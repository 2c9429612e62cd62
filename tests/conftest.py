"""Hypothesis profiles and the template-line coverage summary.

Profiles (``--hypothesis-profile NAME`` or ``HYPOTHESIS_PROFILE``):
- ``ci`` (default): 2,000 examples per property, derandomized, so a run is reproducible;
- ``dev``: 200 random examples, for quick local iteration;
- ``deep``: 100,000 random examples per property, for long bug hunts (see README).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("ci", max_examples=2000, derandomize=True, deadline=None, database=None,
                          suppress_health_check=_SLOW_OK, print_blob=True)
settings.register_profile("dev", max_examples=200, deadline=None, suppress_health_check=_SLOW_OK,
                          print_blob=True)
settings.register_profile("deep", max_examples=100_000, deadline=None, suppress_health_check=_SLOW_OK,
                          print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    # The template-line coverage checks read what every parity test recorded: run them last.
    items.sort(key=lambda item: item.name.startswith("test_template_lines_exercised"))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    from . import oracle

    import chatformats

    lines = []
    for name in chatformats.formats():
        if oracle.coverage_renders(name):
            exercised, total, missed = oracle.coverage_report(name)
            lines.append(f"{name}: lines exercised {exercised}/{total}"
                         + (f" (never: {missed})" if missed else ""))
    if lines:
        terminalreporter.section("template lines exercised by the oracle")
        for line in lines:
            terminalreporter.write_line(line)
