"""The suite's example budget: how many examples a per-format property draws for one format.

One rule, here only.  Under the ``ci`` profile each property that runs once per format (the
shared parity properties of ``test_format_parity.py``, the pipeline properties of
``test_pipeline.py``, the fuzz property of ``test_fuzz.py``) has a total budget across all the
formats, :data:`TOTALS`, and a format gets its share by its spec's ``tests.weight``::

    examples = max(FLOOR, round(TOTAL * weight / sum of every format's weight / cost))

A format's own properties (``tests/test_<format>.py``) take their share of ``TOTALS["own"]``
by the same rule, each (``@budget.own(NAME)``); ``cost`` (1 by default) divides it for a
property whose examples are several times dearer than a parity render (one that also renders a
second template, say).  So the suite's time for these properties stays about the same as
formats are added (each one's share shrinks as the sum of the weights grows) until the shares
reach ``FLOOR`` (or the property's lower floor in :data:`FLOORS`); from there each new format
adds that many examples per property.

What a format adds, measured at 29 formats (``docs/guarantees.md``, "Test budget"): nothing
for the properties whose share is above the floor (under ``ci`` at 29 formats: the three shared
parity properties, the two pipeline properties, the fuzz property and each own property, for a
weight-1 format, and every ``per_format`` property); ``FLOOR`` examples of each property already
at the floor (the two audit properties of ``test_silent.py``, and the shared parity properties of
a weight-0.5 format); 25 pipeline-layer examples (about 0.4 s); its deep-nesting battery (``test_robustness.py``,
3.7 s on average); the linear-work check of ``test_parse.py`` (5.6 s) only if it brings a grammar
of its own; and its own module's fixed cases.

Other profiles: ``dev`` (fewer examples than ``ci``) takes the same fraction of its smaller
count (200 of 1,000: a fifth of each share); ``deep`` (more than ``ci``) runs every property at
the profile's own count, 100,000 (``HYPOTHESIS_PROFILE=deep python -m pytest ...``).
``docs/guarantees.md`` ("Test budget") gives the measured times these numbers were chosen from.
"""

from __future__ import annotations

from hypothesis import settings

import chatformats

#: The least any format's property draws under ``ci``, whatever the number of formats.
FLOOR = 100

#: Lower floors, for the properties whose inputs another per-format property draws too (a
#: sub-case of a broader property, which keeps its own floor): the pipeline layer of
#: ``test_format_parity.py`` draws conversations, tools and ``add_generation_prompt``, each of
#: them also among ``test_pipeline.py``'s ``test_pipeline_parity`` arguments (with the same
#: check, ``assert_pipeline_parity``).
FLOORS = {"pipeline": 25}

#: Each shared property's examples under ``ci``, summed over every format; ``own``: each of a
#: format's own properties, summed over every format.
TOTALS = {
    # test_format_parity.py
    "realistic": 4000,
    "any_shape": 4000,
    "role_sequences": 4000,
    "pipeline": 800,
    # test_silent.py (the audit's dropped and repr findings, strict)
    "silent": 2500,
    "silent_pipeline": 1500,
    # tests/test_<format>.py, each property
    "own": 6000,
    # test_pipeline.py (700 per format across nine formats before this rule)
    "pipeline_parity": 5600,
    "continue_final_message": 5600,
    # test_fuzz.py (1,500 per format across nine before)
    "fuzz": 12000,
}


def share(name: str, kind: str, cost: float = 1, floor: int | None = None) -> int:
    """Format ``name``'s examples for a property of ``kind`` (a key of :data:`TOTALS`) under
    the ``ci`` profile; at least ``floor`` (by default the kind's :data:`FLOORS` entry, else
    :data:`FLOOR`)."""
    weights = {other: chatformats.get_format(other).tests.weight for other in chatformats.formats()}
    least = FLOORS.get(kind, FLOOR) if floor is None else floor
    return max(least, round(TOTALS[kind] * weights[name] / sum(weights.values()) / cost))


def examples(name: str, kind: str, cost: float = 1, floor: int | None = None) -> int:
    """Format ``name``'s examples for a property of ``kind`` under the profile in use: its
    :func:`share` under ``ci``, the same fraction of a smaller profile's count (``dev``), a
    larger profile's own count (``deep``)."""
    profile = settings.default.max_examples
    ci = settings.get_profile("ci").max_examples
    if profile > ci:
        return profile
    return max(1, share(name, kind, cost, floor) * profile // ci)


def own(name: str, cost: float = 1) -> settings:
    """The settings of one of format ``name``'s own properties (``@budget.own(NAME)``)."""
    return settings(max_examples=examples(name, "own", cost))


#: How many formats the fixed per-format counts of the other modules were sized for.
SIZED_FOR = 9


def per_format(ci: int, floor: int = 10) -> int:
    """Examples of a property that runs once per format and was sized at ``ci`` examples when the
    suite had nine formats (the spans laws, ids, the bridge, generation tags, parsing, the
    oracle cross-check, odd paths, ...): under ``ci`` its total across the formats stays what it
    was, ``max(floor, round(ci * 9 / formats))`` each (the same rule as :func:`share`, by count);
    ``dev`` takes the same fraction of its smaller count, ``deep`` its own count."""
    profile = settings.default.max_examples
    ci_count = settings.get_profile("ci").max_examples
    if profile > ci_count:
        return profile
    count = max(floor, round(ci * SIZED_FOR / max(SIZED_FOR, len(chatformats.formats()))))
    return max(1, count * profile // ci_count)

