"""The closed table of formats: name -> model ids, special tokens, port module, template file.

Literal on purpose (no registration by import side effect). ``tests/test_registry.py`` ties
every entry to its port module and to ``reference_templates/`` by sha256.
"""

from __future__ import annotations

import importlib
from datetime import datetime

from . import _core
from .errors import ChatFormatError, UnknownFormatError

# ``chatformats`` imports this module at import time: ``typing`` is not imported at run time
# (annotations are strings; the names below exist for type checkers).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

    from ._core import PortFunction

# ``hashlib`` and the template texts are imported where a reference template is read, not
# here: rendering never reads one.


class ChatFormat:
    """One supported chat template (read-only).

    ``render(messages, **variables)`` is the template layer for this format, the same as
    ``chatformats.render(self.name, messages, **variables)``.

    A hand-written class, not a dataclass: ``dataclasses`` (like ``namedtuple``) generates its
    methods with ``exec`` when a class is defined, and importing chatformats runs no generated
    code (``tests/test_runtimes.py``).
    """

    __slots__ = ("name", "model_ids", "special_tokens", "status", "module", "template_file",
                 "template_sha256", "variables", "content_format", "modalities", "variant_of", "calls",
                 "control_strings", "control_provenance", "description")

    name: str
    model_ids: tuple[str, ...]
    #: Special tokens the model's tokenizer passes to the template (the pipeline layer merges
    #: them under the caller's keyword arguments).
    special_tokens: Mapping[str, str]
    #: ``ported`` or ``pending``.
    status: str
    module: str
    template_file: str
    template_sha256: str
    #: The names the template reads from its caller besides ``messages`` (jinja2's
    #: ``meta.find_undeclared_variables`` less the environment's globals), sorted; ``None`` when
    #: not recorded.  ``tests/test_serving_lookup.py`` checks each against jinja2.
    variables: tuple[str, ...] | None
    #: How vLLM passes list content to this template (its content-format detection, see
    #: :mod:`chatformats.openai`): ``"openai"`` (parts as dicts) or ``"string"`` (parts joined).
    content_format: str
    #: The media the model takes in vLLM, each with the placeholder its vLLM implementation puts
    #: in a ``"string"`` prompt for one item (``get_placeholder_str``); a modality absent here
    #: (every one, for a text-only model) has no multimodal processor and fails the request
    #: (:mod:`chatformats.openai`).
    modalities: Mapping[str, str]
    #: For a format that reproduces no published model's template: the model whose template it
    #: varies (its ``model_ids`` are then empty).
    variant_of: str
    #: The environment globals the template calls (``raise_exception``, ``strftime_now``,
    #: ``namespace``, ...): a caller variable of the same name shadows the global and makes the
    #: call fail, as in jinja2 (``chatformats._core.call_port``).  ``tests/test_core.py``
    #: checks this against the template's syntax tree.
    calls: frozenset[str]
    #: The strings that mean something to the model when they appear in a prompt: its tokenizer's
    #: special and added tokens, plus the structural tags its template writes (``<think>``,
    #: ``<tools>``); what :func:`chatformats.audit` looks for in input-derived text.
    #: ``control_provenance`` says where the list came from (``reference_templates/README.md``,
    #: "Control strings", has the copies and commits).
    control_strings: tuple[str, ...]
    control_provenance: str
    description: str

    def __init__(self, name: str, model_ids: tuple[str, ...], special_tokens: Mapping[str, str],
                 status: str, module: str, template_file: str, template_sha256: str,
                 description: str = "", *, variables: tuple[str, ...] | None = None,
                 content_format: str = "string", modalities: Mapping[str, str] | None = None,
                 variant_of: str = "", calls: frozenset[str] = frozenset(),
                 control_strings: tuple[str, ...] = (), control_provenance: str = "") -> None:
        values = (name, model_ids, special_tokens, status, module, template_file, template_sha256,
                  variables, content_format, modalities or {}, variant_of, calls, control_strings,
                  control_provenance, description)
        for field_name, value in zip(ChatFormat.__slots__, values):
            object.__setattr__(self, field_name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ChatFormat is read-only: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"ChatFormat is read-only: cannot delete {name!r}")

    def _key(self) -> tuple[Any, ...]:  # every field but the description
        return tuple(getattr(self, f) for f in ChatFormat.__slots__[:-1])

    def __eq__(self, other: object) -> bool:
        if type(other) is not ChatFormat:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.name, self.template_sha256))

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in ChatFormat.__slots__)
        return f"ChatFormat({fields})"

    @property
    def template_path(self) -> str:
        """Where the reference template lives in the chatformats source repository
        (``reference_templates/<file>``, with its provenance); the package itself embeds the
        text, :meth:`template_source`."""
        return "reference_templates/" + self.template_file

    def template_source(self) -> str:
        """The reference template's text, from the package's one copy of it
        (``_template_sources.py``, generated by ``scripts/sync_templates.py``), checked against
        the pinned sha256: a text that is absent or does not match raises ``ChatFormatError``."""
        from ._template_sources import SOURCES

        text = SOURCES.get(self.template_file)
        if text is None:
            raise ChatFormatError(
                f"the package holds no text for {self.template_file} (format {self.name!r}): "
                "regenerate it with scripts/sync_templates.py"
            )
        import hashlib

        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        if digest != self.template_sha256:
            raise ChatFormatError(
                f"the package's text of {self.template_file} has sha256 {digest}, expected "
                f"{self.template_sha256}: regenerate it with scripts/sync_templates.py"
            )
        return text

    @property
    def port(self) -> PortFunction:
        """The port's own ``render(messages, variables, now)`` (no input checks)."""
        if self.status != "ported":
            raise ChatFormatError(f"format {self.name!r} is not ported yet (status: {self.status})")
        fn: PortFunction = importlib.import_module(f"chatformats.ports.{self.module}").render
        return fn

    @property
    def response_template(self) -> dict[str, Any]:
        """transformers' declarative ``response_template`` for this format (a fresh copy), which
        its ``parse_response`` accepts; see ``chatformats/parsing/response_templates.py``."""
        from .parsing.grammars import GRAMMARS
        from .parsing.response_templates import for_grammar

        try:
            return for_grammar(GRAMMARS[self.module])
        except KeyError:
            raise ChatFormatError(f"format {self.name!r} has no response_template") from None

    def render(self, messages: Any, *, now: datetime | None = None, **variables: Any) -> str:
        """The template layer for this format (``chatformats.render(self, ...)``)."""
        port_function, calls = port(self)
        return _core.render(self.name, port_function, calls, messages, now, variables)

    def bind(self, special_tokens: Mapping[str, Any]) -> ChatFormat:
        """This format with another tokenizer's special tokens (what ``from_pretrained``
        returns): the pipeline layer merges these instead of the registry's."""
        return ChatFormat(self.name, self.model_ids, dict(special_tokens), self.status, self.module,
                          self.template_file, self.template_sha256, self.description,
                          variables=self.variables, content_format=self.content_format,
                          modalities=self.modalities, variant_of=self.variant_of, calls=self.calls,
                          control_strings=self.control_strings,
                          control_provenance=self.control_provenance)

    def with_port(self, render: PortFunction) -> ChatFormat:
        """A copy of this format whose template layer calls ``render`` (``render(messages,
        variables, now)``, and ``spans`` for ``render_spans``) instead of the registered port:
        ``chatformats.render``, ``render_spans`` and ``apply_chat_template`` take it as they take
        this format.  The way to check another implementation of a format (a patch, a form
        without spans code) against the registered one (``docs/api.md``)."""
        copy = object.__new__(_WithPort)
        for field_name in ChatFormat.__slots__:
            object.__setattr__(copy, field_name, getattr(self, field_name))
        object.__setattr__(copy, "_render", render)
        return copy

    def __reduce__(self) -> Any:
        if _FORMATS.get(self.name) is self:
            return (get_format, (self.name,))
        return (_rebuild, (tuple(getattr(self, f) for f in ChatFormat.__slots__),))


class _WithPort(ChatFormat):
    """A :class:`ChatFormat` whose template layer calls another port (:meth:`ChatFormat.with_port`);
    equal only to itself."""

    __slots__ = ("_render",)

    _render: PortFunction

    @property
    def port(self) -> PortFunction:
        return self._render

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __reduce__(self) -> Any:
        return (_with_port, (tuple(getattr(self, f) for f in ChatFormat.__slots__), self._render))


def _with_port(values: tuple[Any, ...], render: PortFunction) -> ChatFormat:
    """Unpickle a :class:`ChatFormat` made by :meth:`ChatFormat.with_port`."""
    return _rebuild(values).with_port(render)


def _rebuild(values: tuple[Any, ...]) -> ChatFormat:
    """Unpickle a :class:`ChatFormat` that is not the registry's own (a bound one)."""
    (name, model_ids, special_tokens, status, module, template_file, template_sha256, variables,
     content_format, modalities, variant_of, calls, control_strings, control_provenance,
     description) = values
    return ChatFormat(name, model_ids, special_tokens, status, module, template_file,
                      template_sha256, description, variables=variables,
                      content_format=content_format, modalities=modalities, variant_of=variant_of,
                      calls=calls, control_strings=control_strings,
                      control_provenance=control_provenance)


# Special tokens: what ``tokenizer.special_tokens_map`` holds for each model's tokenizer in
# transformers 5.x (bos/eos/unk/sep/pad/cls/mask plus any other ``*_token`` of its tokenizer
# config), which ``apply_chat_template`` passes to the template under the caller's kwargs.
# Of these, the templates read only ``bos_token`` (the llama-3.2-vision formats and cogito), so no other
# value can change a rendered prompt; ``tests/test_pipeline.py`` builds each tokenizer from these.
# Llama 3.1/3.2 Instruct tokenizer configs (which Cogito v1 keeps): bos "<|begin_of_text|>",
# eos "<|eot_id|>".
_LLAMA3_TOKENS = {
    "bos_token": "<|begin_of_text|>",
    "eos_token": "<|eot_id|>",
}

# The Qwen3 2507 tokenizer configs: eos "<|im_end|>", pad "<|endoftext|>", bos and unk null.
_QWEN3_2507_TOKENS = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}

# Control strings (``ChatFormat.control_strings``): each model's tokenizer's special and added
# tokens (``tokenizer_config.json`` ``added_tokens_decoder``), then the structural tags its template
# writes that are not tokens.  Where the model's tokenizer could not be found, the template's own
# control strings only, and the provenance says so.  Sources: ``reference_templates/README.md``,
# "Control strings".

# Llama 3.1 and 3.2 (text) Instruct: 128000-128255, the list of transformers'
# ``convert_llama_weights_to_hf.py`` (``DEFAULT_LLAMA_SPECIAL_TOKENS["3.1"]`` and ``["3.2"]``).
_LLAMA3_1_CONTROL = (
    "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>",
    "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
) + tuple(f"<|reserved_special_token_{i}|>" for i in range(3, 248))

# Llama 3.2 Vision Instruct: 128000-128255 as transformers' ``convert_mllama_weights_to_hf.py``
# builds them (``<|step_id|>`` where the text models reserve token 2), with ``<|image|>`` moved
# to 128256 and ``<|reserved_special_token_246|>`` at 128255, as the published tokenizer holds
# them.
_LLAMA3_2_VISION_CONTROL = (
    "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
    "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
) + tuple(f"<|reserved_special_token_{i}|>" for i in range(2, 247)) + ("<|image|>",)

# Qwen3 2507: the 26 added tokens 151643-151668 of the Qwen3-4B-Thinking-2507 tokenizer config,
# then the template's ``<tools>`` block tags.
_QWEN3_2507_CONTROL = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
    "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
    "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
    "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
    "<tools>", "</tools>",
)
_QWEN3_2507_PROVENANCE = (
    "tokenizer: the 26 added tokens of Qwen/Qwen3-4B-Thinking-2507's tokenizer_config.json (the "
    "Qwen3 2507 tokenizer); template: <tools>, </tools>"
)

# Solar Open 100B: the published tokenizer's full added-token list was not found.  Sourced
# (``reference_templates/README.md``, "Control strings"): <|startoftext|>, <|endoftext|> and <unk>
# (llama.cpp's converter reads their ids from the tokenizer's added vocabulary; ids not known,
# first in bos, eos, unk order); the ids 20-25 and 30-34 Upstage's vLLM fork pins, in id order
# (<|flush|>, 24, is the end-of-turn token; the template never writes it); then the template's
# other <|...|> strings (whether each is a single token is not confirmed).
_SOLAR_OPEN_CONTROL = (
    "<|startoftext|>", "<|endoftext|>", "<unk>",
    "<|begin|>", "<|end|>", "<|think|>", "<|content|>", "<|flush|>", "<|calls|>",
    "<|tool_calls|>", "<|tool_call:begin|>", "<|tool_call:end|>", "<|tool_call:name|>",
    "<|tool_call:args|>",
    "<|tools:begin|>", "<|tools:end|>", "<|tool:begin|>", "<|tool:end|>",
    "<|tool_response|>", "<|tool_response:begin|>", "<|tool_response:end|>",
    "<|tool_response:id|>", "<|tool_response:name|>", "<|tool_response:result|>",
)

# MiniCPM-V 4.6 (LLM: Qwen3.5-0.8B): the 33 added tokens 248044-248076 of the Qwen3.5 tokenizer,
# which MiniCPM-V 4.6's keeps at the same ids; then the 7 tokens of MiniCPM-V 4.6's own published
# tokenizer_config.json that the Qwen3.5 tokenizer lacks (ids above 248076, not known: in the
# file's order); then the template's tags that are not tokens.  Up to 10 further MiniCPM tokens
# (248077-248093) are not known.  Sources: ``reference_templates/README.md``, "Control strings".
_QWEN3_5_ADDED = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
    "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
    "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
    "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
    "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>",
    "<tts_text_bos_single>", "<|audio_pad|>",
)
_MINICPM_V4_6_CONTROL = _QWEN3_5_ADDED + (
    "<image>", "</image>", "<slice>", "</slice>", "<image_id>", "</image_id>", "<unk>",
    "<tools>", "</tools>", "<function=", "</function>", "<parameter=", "</parameter>",
    "<IMPORTANT>", "</IMPORTANT>",
)

_FORMATS: dict[str, ChatFormat] = {
    f.name: f
    for f in (
        ChatFormat(
            name="solar-open",
            model_ids=("upstage/Solar-Open-100B",),
            # Not established from the model's tokenizer config (llama.cpp's converter takes bos
            # <|startoftext|>, eos <|endoftext|> and unk <unk> from the tokenizer's added
            # vocabulary, Upstage's vLLM fork calls <|flush|> the eos token; the config's own
            # bos_token/eos_token were not seen); the template reads none.
            special_tokens={},
            status="ported",
            module="solar_open",
            template_file="solar_open.jinja",
            template_sha256="e7a5ad7d23b2a9cac020db4582dd076cc400007ae7daecb08f30ca1cb53f9dd0",
            description="Upstage Solar Open 100B",
            variables=("add_generation_prompt", "default_system_prompt", "reasoning_effort",
                       "response_format", "think_render_option", "tools"),
            content_format="string",
            calls=frozenset({"namespace", "strftime_now"}),
            control_strings=_SOLAR_OPEN_CONTROL,
            control_provenance="tokenizer: partial, the full added-token list was not found: "
                               "<|startoftext|>, <|endoftext|>, <unk> (added tokens llama.cpp's "
                               "converter reads), the tokens 20-25 and 30-34 Upstage's vLLM fork "
                               "pins (<|begin|> ... <|flush|>, <|calls|>, <|tool_calls|> ... "
                               "<|tool_call:args|>); template: its other <|...|> strings",
        ),
        ChatFormat(
            name="llama-3.2-vision-2024-09",
            # The September 2024 release of both sizes shipped this text (chat_template.json);
            # the 11B's later revision (llama-3.2-vision-2024-12) renders a system message
            # alongside images.
            model_ids=("meta-llama/Llama-3.2-90B-Vision-Instruct",),
            special_tokens=_LLAMA3_TOKENS,
            status="ported",
            module="llama3_2_vision_2024_09",
            template_file="llama3_2_vision_2024_09.jinja",
            template_sha256="e407323269d15bba92fc431b5b7d757e66d920d01b45cae58149a692d7697d3c",
            description="Meta Llama 3.2 11B/90B Vision Instruct, the September 2024 template",
            variables=("add_generation_prompt", "bos_token", "custom_tools", "date_string",
                       "tools", "tools_in_user_message"),
            content_format="openai",
            # vllm/model_executor/models/mllama.py (Llama 3.2 Vision): images only
            modalities={"image": "<|image|>"},
            calls=frozenset({"namespace", "raise_exception", "strftime_now"}),
            control_strings=_LLAMA3_2_VISION_CONTROL,
            control_provenance="tokenizer: the 257 special tokens of Llama 3.2 Vision Instruct "
                               "(128000-128256, <|image|> last)",
        ),
        ChatFormat(
            name="llama-3.2-vision-2024-12",
            # The revision the 11B model's chat_template.json carries since December 2024 (the
            # Hub copy a 2025 test suite pasted, and the 11B GGUF Ollama serves); the 90B's is
            # not attested, so its id stays with the September text.
            model_ids=("meta-llama/Llama-3.2-11B-Vision-Instruct",),
            special_tokens=_LLAMA3_TOKENS,
            status="ported",
            module="llama3_2_vision_2024_12",
            template_file="llama3_2_vision_2024_12.jinja",
            template_sha256="53ff0dc467531d098a8bdd2ba38a3b2c157c9a90e96e16a0a79aa86476d47eea",
            description="Meta Llama 3.2 11B Vision Instruct, the December 2024 template (a system "
                        "message alongside images)",
            variables=("add_generation_prompt", "bos_token", "custom_tools", "date_string",
                       "tools", "tools_in_user_message"),
            content_format="openai",
            # vllm/model_executor/models/mllama.py (Llama 3.2 Vision): images only
            modalities={"image": "<|image|>"},
            calls=frozenset({"namespace", "raise_exception", "strftime_now"}),
            control_strings=_LLAMA3_2_VISION_CONTROL,
            control_provenance="tokenizer: the 257 special tokens of Llama 3.2 Vision Instruct "
                               "(128000-128256, <|image|> last)",
        ),
        ChatFormat(
            name="llama-3.2-vision-variant",
            model_ids=(),
            special_tokens=_LLAMA3_TOKENS,
            status="ported",
            module="llama3_2_vision",
            template_file="llama3_2_vision.jinja",
            template_sha256="d3e97dc81677b7918ffae734b13999c4b4ea5eb3939a8506bbf501602f4d2b62",
            description="a variant of Meta's Llama 3.2 Vision September 2024 template (reworded tool "
                        "instructions, comments that emit newlines); no published model identified",
            variables=("add_generation_prompt", "bos_token", "custom_tools", "date_string",
                       "tools", "tools_in_user_message"),
            content_format="openai",
            # vllm/model_executor/models/mllama.py (Llama 3.2 Vision): images only
            modalities={"image": "<|image|>"},
            calls=frozenset({"namespace", "raise_exception", "strftime_now"}),
            control_strings=_LLAMA3_2_VISION_CONTROL,
            control_provenance="tokenizer: the 257 special tokens of Llama 3.2 Vision Instruct "
                               "(128000-128256, <|image|> last), the model this variant varies",
            variant_of="meta-llama/Llama-3.2-11B-Vision-Instruct",
        ),
        ChatFormat(
            name="minicpm-v-4.6-thinking",
            # The Hub id is spelt with a dot ("Duplicate from openbmb/MiniCPM-V-4.6" on its mirrors,
            # "openbmb/MiniCPM-V-4.6-Thinking" on the quantised variants' cards); transformers' docs
            # write the underscore form.
            # The GPTQ quantisation's model page is the source document of the template.
            model_ids=("openbmb/MiniCPM-V-4.6-Thinking", "openbmb/MiniCPM-V-4_6-Thinking",
                       "openbmb/MiniCPM-V-4.6-Thinking-GPTQ"),
            # Not established from this checkpoint's tokenizer config: the 4.6 AWQ (Instruct)
            # release's names bos <|im_start|>, eos <|im_end|>, pad <|endoftext|>, unk <unk>
            # (reference_templates/README.md, "Control strings"); the template reads none.
            special_tokens={},
            status="ported",
            module="minicpm_v4_6_thinking",
            template_file="minicpm_v4_6_thinking.jinja",
            template_sha256="19356d2fd1c60dc46c92f3b05a5e01a32cdd1ab10b68d649a0081e6bba7c8137",
            description="OpenBMB MiniCPM-V 4.6 Thinking",
            variables=("add_generation_prompt", "enable_thinking", "tools"),
            content_format="string",
            # vllm/model_executor/models/minicpmv.py, MiniCPMVBaseModel.get_placeholder_str
            modalities={"image": "(<image>./</image>)", "video": "(<video>./</video>)"},
            calls=frozenset({"namespace", "raise_exception"}),
            control_strings=_MINICPM_V4_6_CONTROL,
            control_provenance="tokenizer: partial: the 33 added tokens 248044-248076 of the "
                               "Qwen3.5 tokenizer it keeps, and the 7 more its tokenizer_config.json "
                               "names (<image>, </image>, <slice>, </slice>, <image_id>, "
                               "</image_id>, <unk>); up to 10 more are not known; template: "
                               "<tools>, </tools>, <function=, </function>, <parameter=, "
                               "</parameter>, <IMPORTANT>, </IMPORTANT>",
        ),
        ChatFormat(
            name="cogito",
            # Serves no published id: the v1 preview releases' template (seen only in a copy with
            # its whitespace collapsed) has no ``<think>`` prefill after the generation prompt,
            # which this one adds (reference_templates/README.md).
            model_ids=(),
            variant_of="deepcogito/cogito-v1-preview-llama-3B",
            special_tokens=_LLAMA3_TOKENS,
            status="ported",
            module="cogito",
            template_file="cogito.jinja",
            template_sha256="ee97f6ef49c5eaee00242bb0547c231b7b1b1fd1ec5623273954ca0dda913d1c",
            description="Deep Cogito (Llama-based hybrid reasoning), the v1 preview template with a <think> prefill",
            variables=("add_generation_prompt", "bos_token", "enable_thinking", "tools"),
            content_format="openai",
            calls=frozenset(),
            control_strings=_LLAMA3_1_CONTROL + ("<think>", "</think>"),
            control_provenance="tokenizer: the 256 special tokens of the Llama 3.1/3.2 Instruct "
                               "tokenizer the v1 preview models keep; template: <think> (and its "
                               "closing </think>)",
        ),
        ChatFormat(
            name="qwen3-tool-agent",
            model_ids=(),
            special_tokens=_QWEN3_2507_TOKENS,
            status="ported",
            module="qwen3_tool_agent",
            template_file="qwen3_tool_agent.jinja",
            template_sha256="ff80afbfb2bfc83da910c94d8333a10df14b6ad76cc00e5549c3fa16ebed374f",
            description="variant: the Qwen3 2507 reasoning template (qwen3-thinking-2507's logic) with "
                        "a fixed tool-use preamble and the Instruct generation prompt; no published model",
            variables=("add_generation_prompt", "tools"),
            content_format="string",
            calls=frozenset({"namespace"}),
            control_strings=_QWEN3_2507_CONTROL,
            control_provenance=_QWEN3_2507_PROVENANCE,
            variant_of="the Qwen3 2507-series template (Qwen/Qwen3-*-2507)",
        ),
        ChatFormat(
            name="qwen3-instruct-2507",
            # The models whose tokenizer config carries exactly this text (see
            # reference_templates/README.md for the evidence per model).
            model_ids=("Qwen/Qwen3-4B-Instruct-2507", "Qwen/Qwen3-30B-A3B-Instruct-2507"),
            special_tokens=_QWEN3_2507_TOKENS,
            status="ported",
            module="qwen3_instruct_2507",
            template_file="qwen3_instruct_2507.jinja",
            template_sha256="64f85b198065d0fba2a81f37e10ed68161ce2c19a754c7100e67e0ca2ee9c326",
            description="Qwen3 Instruct-2507 (non-thinking)",
            variables=("add_generation_prompt", "tools"),
            content_format="string",
            calls=frozenset(),
            control_strings=_QWEN3_2507_CONTROL,
            control_provenance=_QWEN3_2507_PROVENANCE,
        ),
        ChatFormat(
            name="qwen3-thinking-2507",
            model_ids=(
                "Qwen/Qwen3-235B-A22B-Thinking-2507",
                "Qwen/Qwen3-235B-A22B-Thinking-2507-FP8",
                "Qwen/Qwen3-30B-A3B-Thinking-2507",
                "Qwen/Qwen3-30B-A3B-Thinking-2507-FP8",
                "Qwen/Qwen3-4B-Thinking-2507",
                "Qwen/Qwen3-4B-Thinking-2507-FP8",
            ),
            special_tokens=_QWEN3_2507_TOKENS,
            status="ported",
            module="qwen3_thinking_2507",
            template_file="qwen3_thinking_2507.jinja",
            template_sha256="3802169b2a02b81e6adb7ab4f64f91ff02db753c8c3a64a01c35192d3a61d8d7",
            description="Qwen3 Thinking-2507",
            variables=("add_generation_prompt", "tools"),
            content_format="string",
            calls=frozenset({"namespace"}),
            control_strings=_QWEN3_2507_CONTROL,
            control_provenance=_QWEN3_2507_PROVENANCE,
        ),
    )
}


#: Former names: alias -> (the current name it resolves to, what the alias is now).
ALIASES: dict[str, tuple[str, str]] = {
    "llama-3.2-vision": (
        "llama-3.2-vision-2024-09",
        "Meta's Llama 3.2 Vision template; the September 2024 revision is the one pinned (the "
        "source-document variant that had this name is llama-3.2-vision-variant)",
    ),
}


def formats() -> list[str]:
    """The names of every registered format, ported or not (see :func:`get_format`); aliases
    (:data:`ALIASES`) are not listed."""
    return list(_FORMATS)


#: The port table both layers read: format (a name, an id, a bound format) -> (port function,
#: the globals its template calls), filled on first use.
_PORTS: dict[Any, tuple[PortFunction, frozenset[str]]] = {}


def port(name: str | ChatFormat) -> tuple[PortFunction, frozenset[str]]:
    """Format ``name``'s port function and the environment globals its template calls (see
    :attr:`ChatFormat.calls`), from the port table (one entry per format, under its name, also
    reached by the aliases and model ids it was asked by); raises :class:`UnknownFormatError`,
    or ``ChatFormatError`` for a format not ported."""
    try:
        return _PORTS[name]
    except (KeyError, TypeError):  # first use of this name, a format object, or not a format
        pass
    fmt = get_format(name)
    if type(fmt) is _WithPort:  # a format with another port (ChatFormat.with_port): cached
        _PORTS[fmt] = (fmt.port, fmt.calls)  # under itself (equal only to itself)
        return fmt.port, fmt.calls
    entry = _PORTS.get(fmt.name)
    if entry is None:
        entry = _PORTS[fmt.name] = (fmt.port, fmt.calls)
    if type(name) is str:  # an alias or a model id: cached too (format objects are not keys)
        _PORTS[name] = entry
    return entry


def get_format(name: str | ChatFormat) -> ChatFormat:
    """The :class:`ChatFormat` registered under ``name``, or serving ``name`` as a model id.

    Format names and model ids match case-insensitively (``Qwen3-Tool-Agent``,
    ``qwen/QWEN3-4B-Instruct-2507``); a :class:`ChatFormat` (a bound one from
    :func:`chatformats.from_pretrained`) is returned as is.  Anything else is an
    :class:`UnknownFormatError` that suggests the nearest names ("did you mean").
    """
    try:
        return _FORMATS[name]  # type: ignore[index]
    except (KeyError, TypeError):
        if isinstance(name, ChatFormat):
            return name
        return lookup(name, _FORMATS)  # any case; aliases and model ids too


#: The registry's names, aliases and model ids, case-folded, built on first lookup.
_INDEX: dict[str, ChatFormat] = {}


def _index(formats: Mapping[str, ChatFormat]) -> dict[str, ChatFormat]:
    index: dict[str, ChatFormat] = {}
    for fmt in formats.values():
        for alias in (fmt.name, *fmt.model_ids):
            index.setdefault(alias.casefold(), fmt)
    if formats is _FORMATS:
        for alias, (current, _) in ALIASES.items():
            index.setdefault(alias.casefold(), _FORMATS[current])
    return index


def lookup(name: Any, formats: Mapping[str, ChatFormat]) -> ChatFormat:
    """The format named ``name`` (or an alias of it) or serving model id ``name``, compared
    case-folded (Hugging Face ids are case-insensitive on the Hub); :class:`UnknownFormatError`
    (with "did you mean" for a near miss, from ``difflib``) else."""
    if not isinstance(name, str):
        raise UnknownFormatError(
            f"unknown format {name!r}; known formats: {', '.join(formats)}"
        )
    folded = name.casefold()
    if formats is _FORMATS:  # the registry is closed: its index is built once
        if not _INDEX:
            _INDEX.update(_index(formats))
        index = _INDEX
    else:
        index = _index(formats)
    found = index.get(folded)
    if found is not None:
        return found
    variants = [fmt for fmt in formats.values() if fmt.variant_of.casefold() == folded]
    hint = ""
    if variants:
        hint = (f"; {variants[0].name!r} is a variant of {variants[0].variant_of}, not its "
                "published template")
    else:
        import difflib

        candidates = {fmt.name.casefold(): fmt.name for fmt in formats.values()}
        for fmt in formats.values():
            candidates.update((m.casefold(), m) for m in fmt.model_ids)
        close = difflib.get_close_matches(folded, list(candidates), n=3, cutoff=0.6)
        # A family name ("qwen3", "llama") is a prefix of the names it could mean.
        close += [key for key in candidates if key.startswith(folded) and key not in close]
        if close:
            hint = "; did you mean " + " or ".join(repr(candidates[key]) for key in close[:3]) + "?"
    raise UnknownFormatError(
        f"unknown format {name!r}{hint} (known formats: {', '.join(formats)})"
    )
