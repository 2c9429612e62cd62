"""Never fails badly: deep nesting fails cleanly at a documented depth; large inputs render in
memory proportional to the output; renders are deterministic across TZ, LC_ALL, PYTHONHASHSEED
and threads, and leave no state behind.  (Any input gives a text or a ChatFormatError:
``tests/test_fuzz.py``.)

Every test covers every ported format (``chatformats.get_format(name).status == "ported"``).
"""

from __future__ import annotations

import gc
import json
import os
import random
import shutil
import subprocess
import sys
import threading
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from chatformats import ChatFormatError

from . import golden
from .test_fuzz import render_any
from .test_runtimes import ROOT, assert_same_results, run_script

PORTED = golden.ported_formats()

# ---------------------------------------------------------------- deep nesting


def _deep_report(name: str) -> Any:
    """The deep-nesting battery of format ``name`` in its own subprocess (a crash shows as the
    exit status): its problems and summary, or what the crash said.

    One subprocess per test, not a module fixture running every format's: under pytest-xdist a
    module fixture runs in each worker that runs one of the module's tests, so the battery of
    every format ran once per worker (twice under ``-n 2``)."""
    command = [sys.executable, "-c", "from tests.fuzz import deep_battery_main; deep_battery_main()", name]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=900)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-3:]
        return f"exit status {proc.returncode} (negative: killed by that signal); last lines:\n" + "\n".join(last)
    return json.loads(proc.stdout)


@pytest.mark.parametrize("name", PORTED)
def test_deep_nesting_fails_cleanly_at_the_documented_depth(name: str) -> None:
    """A value nested 500, 1,000, 2,000 and 20,000 levels deep (lists, dicts, tuples, mixed) in every
    message field the templates read, in a tool schema and in each template variable, and a
    200,000-deep tuple where a port might hash it: the port renders exactly what the oracle
    renders where the oracle renders, raises ``NestingTooDeep`` exactly where the oracle's
    ``json.dumps``/``repr`` hits ``RecursionError``, never ``NestingTooDeep`` at 500 levels or
    less, never another exception, never a crash."""
    report = _deep_report(name)
    assert not isinstance(report, str), f"{name}: the deep-nesting subprocess crashed: {report}"
    *problems, summary = report
    assert summary["renders"] > 100
    assert not problems, f"{name}: {len(problems)} problem(s); first ones:\n" + "\n".join(
        json.dumps(p) for p in problems[:10])


# ---------------------------------------------------------------- large inputs

#: Peak memory allowed, as a multiple of the output's own size (``sys.getsizeof``).
LARGE_MESSAGE_FACTOR = 3
MANY_MESSAGES_FACTOR = 4


def _peak_render(name: str, messages: Any, variables: dict[str, Any]) -> tuple[str | ChatFormatError, int]:
    gc.collect()
    tracemalloc.start()
    try:
        outcome = render_any(name, messages, variables)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return outcome, peak


def _input_size(messages: list[dict[str, Any]]) -> int:
    return sum(sys.getsizeof(v) for m in messages for v in m.values())


@pytest.mark.parametrize("name", PORTED)
def test_ten_megabyte_message(name: str) -> None:
    """A conversation holding a 10 MB user message twice renders (or fails cleanly) with peak
    memory within ``LARGE_MESSAGE_FACTOR`` times the output (the input itself not counted)."""
    big = ("The quick brown fox jumps over the lazy dog. " * 240_000)[:10_000_000]
    messages = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": big},
                {"role": "assistant", "content": "ok"}, {"role": "user", "content": big}]
    outcome, peak = _peak_render(name, messages, {"add_generation_prompt": True})
    size = sys.getsizeof(outcome) if isinstance(outcome, str) else _input_size(messages)
    if isinstance(outcome, str):
        assert len(outcome) > 20_000_000
    assert peak <= LARGE_MESSAGE_FACTOR * size, (
        f"{name}: peak {peak / 1e6:.1f} MB for {size / 1e6:.1f} MB of output ({peak / size:.2f}x)")


@pytest.mark.parametrize("name", PORTED)
def test_hundred_thousand_messages(name: str) -> None:
    """A 100,000-message conversation renders (or fails cleanly) with peak memory within
    ``MANY_MESSAGES_FACTOR`` times the output (the input itself not counted)."""
    rng = random.Random(7)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    messages = [{"role": "system", "content": "You are terse."}]
    for i in range(99_999):
        text = " ".join(rng.choice(words) for _ in range(12))
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": text})
    outcome, peak = _peak_render(name, messages, {"add_generation_prompt": True})
    size = sys.getsizeof(outcome) if isinstance(outcome, str) else _input_size(messages)
    if isinstance(outcome, str):
        assert len(outcome) > 100_000 * 60
    assert peak <= MANY_MESSAGES_FACTOR * size, (
        f"{name}: peak {peak / 1e6:.1f} MB for {size / 1e6:.1f} MB of output ({peak / size:.2f}x)")


# ---------------------------------------------------------------- determinism


@pytest.fixture(scope="module")
def cases() -> list[tuple[Any, ...]]:
    from .test_runtimes import _cases

    return _cases()


@pytest.fixture(scope="module")
def expected(cases: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [golden.render_outcome(*case) for case in cases]


def _installed_locales() -> list[str]:
    try:
        out = subprocess.run(["locale", "-a"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return ["C", "POSIX"]
    wanted = ("C", "POSIX", "C.utf8", "C.UTF-8", "tr_TR.utf8", "tr_TR.UTF-8", "de_DE.utf8", "de_DE.UTF-8",
              "ja_JP.utf8", "ja_JP.UTF-8", "en_US.utf8", "en_US.UTF-8")
    return [loc for loc in out.split() if loc in wanted] or ["C"]


#: Locales compiled for the test when the machine has ``localedef`` and glibc's locale sources
#: but not these locales: German and Japanese month names differ from English, Turkish casing
#: differs (dotted and dotless i).
BUILT_LOCALES = ("de_DE", "tr_TR", "ja_JP")


@pytest.fixture(scope="module")
def locales(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str | None]:
    """(locale names, ``LOCPATH`` for the ones compiled here or None)."""
    names = _installed_locales()
    localedef = shutil.which("localedef")
    if localedef is None:
        return names, None
    locpath = tmp_path_factory.mktemp("locales")
    built = []
    for name in BUILT_LOCALES:
        if any(loc.startswith(name) for loc in names):
            continue
        target = locpath / f"{name}.UTF-8"
        subprocess.run([localedef, "-i", name, "-f", "UTF-8", str(target)], capture_output=True, timeout=120)
        if target.is_dir():
            built.append(target.name)
    return names + built, (str(locpath) if built else None)


def test_same_bytes_under_other_tz_locale_hashseed(cases: list[tuple[Any, ...]], expected: list[tuple[Any, ...]],
                                                  locales: tuple[list[str], str | None], tmp_path: Path) -> None:
    """The same cases and clock give the same bytes in fresh interpreters under other time
    zones, every installed locale and German, Turkish and Japanese ones (compiled with
    ``localedef`` if missing) adopted with ``setlocale(LC_ALL, "")`` as a host application may,
    and other hash seeds — and the same bytes as this process, after all its other renders."""
    names, locpath = locales
    zones = ["UTC", "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham", "Etc/GMT+12"]
    seeds = ["0", "1", "4294967295", "random"]
    failures = []
    for i in range(max(len(names), len(zones), len(seeds))):
        env = {**os.environ, "TZ": zones[i % len(zones)], "LC_ALL": names[i % len(names)],
               "LANG": names[i % len(names)], "PYTHONHASHSEED": seeds[i % len(seeds)]}
        if locpath is not None and (Path(locpath) / env["LC_ALL"]).is_dir():
            # only for a locale compiled here: with LOCPATH set glibc ignores the locale
            # archive, so an installed locale would be unsupported
            env["LOCPATH"] = locpath
        report = run_script(cases, tmp_path, "--setlocale", env=env)
        where = f"TZ={env['TZ']} LC_ALL={env['LC_ALL']} PYTHONHASHSEED={env['PYTHONHASHSEED']}"
        try:
            assert_same_results(cases, expected, report["results"], where)
        except AssertionError as exc:
            failures.append(str(exc))
    assert not failures, "\n\n".join(failures)


def test_eight_threads_render_the_same_bytes(cases: list[tuple[Any, ...]], expected: list[tuple[Any, ...]]) -> None:
    """8 threads render every case concurrently, each in its own order, three times over, with
    the interpreter switching threads as often as it can: every result is the single-threaded one."""
    order = list(range(len(cases)))
    start = threading.Barrier(8)

    def worker(seed: int) -> list[tuple[int, Any]]:
        mine = order[:]
        random.Random(seed).shuffle(mine)
        start.wait()
        return [(i, golden.render_outcome(*cases[i])) for _ in range(3) for i in mine]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(worker, range(8)))
    finally:
        sys.setswitchinterval(interval)
    for thread, got in enumerate(results):
        differ = [(cases[i][0], cases[i][1], cases[i][2]) for i, outcome in got if outcome != expected[i]]
        assert not differ, f"thread {thread}: {len(differ)} differing render(s), first: {differ[0]!r}"


def test_no_state_leaks_over_ten_thousand_renders(cases: list[tuple[Any, ...]],
                                                  expected: list[tuple[Any, ...]]) -> None:
    """10,000 renders (every case, over and over, in a shuffled order) allocate nothing that
    survives them (tracemalloc), and each gives the result it gave first."""
    order = list(range(len(cases)))
    random.Random(10).shuffle(order)
    for i in order:  # warm up: every code path once
        golden.render_outcome(*cases[i])
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        base, _ = tracemalloc.get_traced_memory()
        wrong = 0
        for n in range(10_000):
            i = order[n % len(order)]
            wrong += golden.render_outcome(*cases[i]) != expected[i]
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
        growth = after - base
        top = [str(s) for s in tracemalloc.take_snapshot().compare_to(before, "lineno")[:5]]
    finally:
        tracemalloc.stop()
    assert wrong == 0, f"{wrong} renders differed from the first render of the same case"
    assert growth < 64_000, f"{growth} bytes still allocated after 10,000 renders:\n" + "\n".join(top)
