"""A format's spec: every fact about one chat template, in one place.

Each format is one module under ``chatformats/specs/`` holding ``SPEC = Spec(...)``: its names and
model ids, its pinned reference template, its tokenizer's special tokens and control strings
with their provenance, the variables and globals the template reads, how vLLM passes it content,
the grammar that parses its completions, where its generated ranges start and end, and what its
tests need.  The registry (``chatformats._registry``) builds the public
:class:`~chatformats.ChatFormat` from it; the parser, the test suite, the generated files and the
benchmarks read the same record.  ``docs/adding-a-format.md`` walks through writing one.

This module imports nothing of the package but :mod:`chatformats._record`: a spec is data.
"""

from __future__ import annotations

from ._record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

__all__ = ["Spec", "Tests", "fingerprint"]


def fingerprint(text: str) -> str:
    """A template text's pin: the sha256 of its UTF-8 bytes, hex (what
    ``reference_templates/README.md`` records and :func:`chatformats.detect` looks up).  A lone
    surrogate (a JSON ``\\ud800`` escape in a tokenizer config) is encoded as itself
    (``surrogatepass``): no published template holds one, so such a text matches none."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Tests(Record):
    """What the shared test properties need of one format (read by ``tests/``, never at run time).

    - ``variables``: for each template variable the properties draw, how: the name of a shared
      strategy (``tests/strategies.py``, :data:`VARIABLE_STRATEGIES` there) or a tuple of
      realistic values, each drawn beside the shared odd values (``None``, numbers, any JSON);
      a variable the template reads but this leaves out is drawn with the shared odd values.
    - ``covering``: conversations (``(messages, variables)``) that together run every line of the
      reference template that holds code (the line-coverage check runs them first);
    - ``unreachable``: template lines no input reaches, each with the reason;
    - ``weight``: this format's share of the suite's example budget relative to the others (a
      variant whose logic is exercised at full weight through its original may take less);
    - ``pipeline``: whether the shared pipeline-layer property runs for this format.
    - ``parse_variables``: the variables the parsing properties (``tests/test_parse.py``) render
      a turn with, each left out or one of the values given (a variable that changes what the
      template writes of an assistant turn, which the canonical form then follows);
    - ``generation``: ``(find, replace)`` pairs that put transformers' ``{% generation %}`` tags
      around what the model generates in each assistant turn (applied in order to the reference
      template, each ``find`` occurring once; ``scripts/regenerate.py`` writes the tagged copy
      ``tests/generation/<format>.jinja`` from them); ``tests/generation/README.md`` states the
      convention.
    """

    __slots__ = ("variables", "covering", "unreachable", "weight", "pipeline", "generation",
                 "parse_variables")

    variables: Mapping[str, Any]
    covering: tuple[tuple[list[Any], dict[str, Any]], ...]
    unreachable: Mapping[int, str]
    weight: float
    pipeline: bool
    generation: tuple[tuple[str, str], ...]
    parse_variables: Mapping[str, tuple[Any, ...]]

    _defaults = {"variables": {}, "covering": (), "unreachable": {}, "weight": 1.0,
                 "pipeline": True, "generation": (), "parse_variables": {}}


class Spec(Record):
    """Every fact about one format (see the module docstring); ``chatformats.ChatFormat`` is this
    record plus the methods that render with it.

    - ``name``: the format's name (lower case, ``-`` separated);
    - ``model_ids``: the Hugging Face ids of the models whose tokenizer carries exactly this
      template (empty for a variant no published model ships, with ``variant_of`` set);
    - ``description``: one line for listings;
    - ``template_file``, ``template_sha256``: the reference template under
      ``reference_templates/`` and its pin (``reference_templates/README.md`` has its provenance);
    - ``module``: the port module under ``chatformats/ports/`` (by default the template's stem);
    - ``special_tokens``: what ``tokenizer.special_tokens_map`` holds in transformers 5.x, which
      the pipeline layer passes to the template under the caller's keyword arguments;
    - ``control_strings``, ``control_provenance``: the strings that mean something to the model
      in a prompt (its tokenizer's special and added tokens, then the template's structural
      tags) and where the list came from; what :func:`chatformats.audit` looks for;
    - ``prose_strings``: text in the template that is shaped like a control string (``<|...|>``,
      ``<tag>``, ``<name=``) but is prose, never written as structure (a placeholder in an
      instruction, a name in a ``{# #}`` comment), each with why: the shapes the check that
      ``control_strings`` lists every control string the template writes leaves out
      (``tests/test_audit.py``), each required to occur in the template;
    - ``variables``: the names the template reads besides ``messages`` (jinja2's
      ``meta.find_undeclared_variables`` less the environment's globals), sorted;
    - ``calls``: the environment globals the template calls (a caller variable of the same name
      shadows the global, as in jinja2);
    - ``content_format``: how vLLM passes list content to this template (``"openai"``: parts as
      dicts; ``"string"``: parts joined);
    - ``modalities``: the media the model takes in vLLM, each with its placeholder string;
    - ``variant_of``: for a format no published model ships, the template it varies;
    - ``revision_of``: for an earlier (or later) revision of a template that its models' ids now
      resolve to another format for, that format's name; such a format serves no model id of
      its own (an id names one format) and is found by its fingerprint
      (:func:`chatformats.from_pretrained`, :func:`chatformats.detect`) or by its name;
    - ``grammar``: the parsing module (``chatformats/parsing/<grammar>.py``) that reads its
      completions, or ``""`` for a format without a parser;
    - ``reasoning_field``: the message field the template reads an assistant turn's reasoning
      from (the benchmarks' workloads put the reasoning there);
    - ``call_arguments``: the shape of a tool call's ``arguments`` the template takes:
      ``"mapping"`` (a mapping, or either shape) or ``"string"`` (the template concatenates it
      to a string, so a mapping there fails by the template's own design);
    - ``canonical``: where this template writes an assistant turn differently from the others
      of its grammar, the canonical facts that say how (``parsing/_canonical.py``'s ``FACTS``,
      over the grammar's ``CANONICAL``): what :func:`chatformats.parsing.canonical` and the
      round-trip law read;
    - ``tests``: what the shared test properties need (:class:`Tests`).
    """

    __slots__ = ("name", "model_ids", "description", "template_file", "template_sha256", "module",
                 "special_tokens", "control_strings", "control_provenance", "prose_strings", "variables",
                 "calls",
                 "content_format", "modalities", "variant_of", "revision_of", "grammar",
                 "reasoning_field", "call_arguments", "canonical", "tests")

    name: str
    model_ids: tuple[str, ...]
    description: str
    template_file: str
    template_sha256: str
    module: str
    special_tokens: Mapping[str, str]
    control_strings: tuple[str, ...]
    control_provenance: str
    prose_strings: Mapping[str, str]
    variables: tuple[str, ...]
    calls: frozenset[str]
    content_format: str
    modalities: Mapping[str, str]
    variant_of: str
    revision_of: str
    grammar: str
    reasoning_field: str
    call_arguments: str
    canonical: Mapping[str, Any]
    tests: Tests

    _defaults = {"model_ids": (), "description": "", "module": "", "special_tokens": {},
                 "control_strings": (), "control_provenance": "", "prose_strings": {},
                 "variables": (),
                 "calls": frozenset(), "content_format": "string", "modalities": {},
                 "variant_of": "", "revision_of": "", "grammar": "", "reasoning_field": "reasoning_content",
                 "call_arguments": "mapping", "canonical": {}, "tests": Tests()}

    def __init__(self, *values: Any, **named: Any) -> None:
        super().__init__(*values, **named)
        if not self.module:  # the port module is named after the template by default
            self._setters[self._fields.index("module")](self, self.template_file.rsplit(".", 1)[0])

    def __hash__(self) -> int:  # the mappings it holds are not hashable
        return hash((type(self).__name__, self.name, self.template_sha256))
