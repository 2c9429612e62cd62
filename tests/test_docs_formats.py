"""The examples of ``docs/formats.md`` run as written, and their expected strings are the
reference renderer's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "formats.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_the_page_has_examples():
    assert BLOCKS


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index):
    exec(compile(BLOCKS[index], f"{DOC.name} example {index + 1}", "exec"), {})


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_agrees_with_the_reference(index, monkeypatch):
    """Each example run again with ``render`` and ``apply_chat_template`` replaced by the
    references (jinja2 in transformers' environment; transformers itself), so every string an
    example asserts is what the reference produces."""
    import chatformats

    from . import oracle, transformers_oracle

    def reference_render(name, messages, *, now=None, **variables):
        outcome = oracle.render(name, messages, now=now or oracle.FIXED_NOW, record_coverage=False,
                                **variables)
        if not outcome.ok:
            raise (chatformats.TemplateError if outcome.kind == "raise_exception"
                   else chatformats.ChatFormatError)(outcome.message)
        return outcome.text

    def reference_apply(name, messages, *, now=None, **kwargs):
        # transformers' clock is the oracle's fixed one, so the examples use that instant
        assert now in (None, oracle.FIXED_NOW), "an example's `now` must be the oracle's FIXED_NOW"
        outcome = transformers_oracle.apply(name, messages, **kwargs)
        if not outcome.ok:
            raise chatformats.ChatFormatError(outcome.message)
        return outcome.text

    monkeypatch.setattr(chatformats, "render", reference_render)
    monkeypatch.setattr(chatformats, "apply_chat_template", reference_apply)
    exec(compile(BLOCKS[index], f"{DOC.name} example {index + 1}", "exec"), {})
