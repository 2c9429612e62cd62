"""Evidence as files: every golden case's expected outcome, at both layers, is stored under
``tests/golden/<port module>/`` (``tests/golden/__init__.py`` describes the files). Both ways:

- each file is what the live references give now (transformers' compiled template, transformers'
  ``apply_chat_template``): so the files can only be written by ``scripts/write_golden.py``;
- the port gives each file: the same text, or the failure the reference's exception maps to
  (:data:`PORT_ERRORS`), with the message verbatim where the contract says so (the template's own
  ``raise_exception``, transformers' own pipeline errors).
"""

from __future__ import annotations

import pytest

import chatformats
from chatformats import ChatFormatError, InternalError

from . import golden

#: The reference's exception class -> the port's ``ChatFormatError`` classes that mirror it, and
#: whether the message must be verbatim.  A reference class not listed fails the test: decide
#: its mapping first (docs/api.md lists the port's classes).
PORT_ERRORS: dict[str, dict[str, tuple[tuple[str, ...], bool]]] = {
    "template": {
        "TemplateError": (("TemplateError",), True),  # the template's raise_exception(msg)
        "UndefinedError": (("UndefinedValueError",), False),
        "TypeError": (("TemplateTypeError",), False),
    },
    "pipeline": {
        "TemplateError": (("TemplateError",), True),
        "UndefinedError": (("UndefinedValueError",), False),
        # transformers' own ValueError (an empty conversation, continue_final_message, ...)
        "ValueError": (("InvalidConversation",), True),
        # a TypeError in the template, or transformers' own (PipelineTypeError: verbatim)
        "TypeError": (("TemplateTypeError", "PipelineTypeError"), False),
    },
}

FORMATS = golden.ported_formats()


def port_outcome(case: golden.Case, layer: str) -> tuple:
    """``("ok", text)`` or ``("error", class name, message)`` of the port."""
    try:
        if layer == "template":
            text = chatformats.render(case.format, case.messages, now=case.now, **case.variables)
        else:
            text = chatformats.apply_chat_template(case.format, case.messages, now=case.now,
                                                   **case.variables)
    except InternalError as exc:
        raise AssertionError(f"{case.format} / {case.name}: InternalError: {exc}") from exc
    except ChatFormatError as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("ok", text)


@pytest.mark.parametrize("name", FORMATS)
def test_files_are_what_the_references_give_now(name):
    slugs = [case.slug for case in golden.load(name)]
    assert len(set(slugs)) == len(slugs), f"{name}: two cases share a file name: {slugs}"
    want = golden.reference_files(name)
    have = golden.stored_files(name)
    stale = sorted(f for f in set(want) | set(have) if want.get(f) != have.get(f))
    assert not stale, (f"{golden.expected_dir(name)}: files missing, stale or left over: {stale}; "
                       "rewrite them with python scripts/write_golden.py")


@pytest.mark.parametrize("layer", sorted(golden.LAYERS))
@pytest.mark.parametrize("name", FORMATS)
def test_the_port_gives_each_file(name, layer):
    outcomes = set()
    for case in golden.load(name):
        want = golden.stored_outcome(case, layer)
        got = port_outcome(case, layer)
        where = f"{name} / {case.name} ({layer} layer)"
        outcomes.add(want[0])
        if want[0] == "ok":
            assert got == want, f"{where}: the port gives {got!r}, the file holds {want[1]!r}"
            continue
        assert got[0] == "error", f"{where}: the file holds {want[1]}: {want[2]}, the port rendered"
        ref_type, ref_message = want[1], want[2]
        assert ref_type in PORT_ERRORS[layer], f"{where}: no port error class decided for {ref_type}"
        classes, verbatim = PORT_ERRORS[layer][ref_type]
        assert got[1] in classes, f"{where}: reference {ref_type}, port {got[1]} (expected {classes})"
        if verbatim or got[1] == "PipelineTypeError":
            assert got[2] == ref_message, f"{where}: message {got[2]!r}, the file holds {ref_message!r}"
    assert outcomes == {"ok", "error"}, f"{name}: golden cases cover renders and failures"
