"""The closed table of formats: name -> model ids, special tokens, port module, template file.

Literal on purpose (no registration by import side effect). ``tests/test_registry.py`` ties
every entry to its port module and to ``reference_templates/`` by sha256.
"""

from __future__ import annotations

import importlib
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .errors import ChatFormatError, UnknownFormatError

if TYPE_CHECKING:
    from pathlib import Path

# ``hashlib`` and ``pathlib`` are imported where the reference template is read, not here:
# rendering never reads it, and ``pathlib`` imports ``urllib.parse``, whose ``namedtuple``s
# are generated code (``exec``) run at import.

PortFunction = Callable[[Sequence[Any], Mapping[str, Any], datetime], str]


class ChatFormat:
    """One supported chat template (read-only).

    ``render(messages, **variables)`` is the template layer for this format, the same as
    ``chatformats.render(self.name, messages, **variables)``.

    A hand-written class, not a dataclass: ``dataclasses`` (like ``namedtuple``) generates its
    methods with ``exec`` when a class is defined, and importing chatformats runs no generated
    code (``tests/test_runtimes.py``).
    """

    __slots__ = ("name", "model_ids", "special_tokens", "status", "module", "template_file",
                 "template_sha256", "description")

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
    description: str

    def __init__(self, name: str, model_ids: tuple[str, ...], special_tokens: Mapping[str, str],
                 status: str, module: str, template_file: str, template_sha256: str,
                 description: str = "") -> None:
        for field_name, value in zip(self.__slots__, (name, model_ids, special_tokens, status, module,
                                                      template_file, template_sha256, description)):
            object.__setattr__(self, field_name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ChatFormat is read-only: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"ChatFormat is read-only: cannot delete {name!r}")

    def _key(self) -> tuple[Any, ...]:  # every field but the description
        return tuple(getattr(self, f) for f in self.__slots__[:-1])

    def __eq__(self, other: object) -> bool:
        if type(other) is not ChatFormat:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.name, self.template_sha256))

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__)
        return f"ChatFormat({fields})"

    @property
    def template_path(self) -> Path:
        """The reference template this format is a port of."""
        return _template_dir() / self.template_file

    def template_source(self) -> str:
        """The reference template's text, checked against its pinned sha256."""
        data = self.template_path.read_bytes()
        import hashlib

        digest = hashlib.sha256(data).hexdigest()
        if digest != self.template_sha256:
            raise ChatFormatError(
                f"{self.template_path} has sha256 {digest}, expected {self.template_sha256}"
            )
        return data.decode("utf-8")

    @property
    def port(self) -> PortFunction:
        """The port's own ``render(messages, variables, now)`` (no input checks)."""
        if self.status != "ported":
            raise ChatFormatError(f"format {self.name!r} is not ported yet (status: {self.status})")
        fn: PortFunction = importlib.import_module(f"chatformats.ports.{self.module}").render
        return fn

    def render(self, messages: Any, *, now: datetime | None = None, **variables: Any) -> str:
        from . import render

        return render(self.name, messages, now=now, **variables)

    def __reduce__(self) -> Any:
        return (get_format, (self.name,))


def _template_dir() -> Path:
    from pathlib import Path

    here = Path(__file__).resolve().parent
    for candidate in (here / "reference_templates", here.parent.parent / "reference_templates"):
        if candidate.is_dir():
            return candidate
    return here / "reference_templates"


# Special tokens: what ``tokenizer.special_tokens_map`` holds for each model's tokenizer in
# transformers 5.x (bos/eos/unk/sep/pad/cls/mask plus any other ``*_token`` of its tokenizer
# config), which ``apply_chat_template`` passes to the template under the caller's kwargs.
# Of these, the five templates read only ``bos_token`` (llama-3.2-vision and cogito), so no other
# value can change a rendered prompt; ``tests/test_pipeline.py`` builds each tokenizer from these.
# Llama 3.1/3.2 Instruct tokenizer configs (which Cogito v1 keeps): bos "<|begin_of_text|>",
# eos "<|eot_id|>".
_LLAMA3_TOKENS = {
    "bos_token": "<|begin_of_text|>",
    "eos_token": "<|eot_id|>",
}

# The Qwen3 2507 tokenizer configs: eos "<|im_end|>", pad "<|endoftext|>", bos and unk null.
_QWEN3_2507_TOKENS = {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}

_FORMATS: dict[str, ChatFormat] = {
    f.name: f
    for f in (
        ChatFormat(
            name="solar-open",
            model_ids=("upstage/Solar-Open-100B",),
            # Not established from the model's tokenizer config; the template reads none.
            special_tokens={},
            status="ported",
            module="solar_open",
            template_file="solar_open.jinja",
            template_sha256="e7a5ad7d23b2a9cac020db4582dd076cc400007ae7daecb08f30ca1cb53f9dd0",
            description="Upstage Solar Open 100B",
        ),
        ChatFormat(
            name="llama-3.2-vision",
            model_ids=("meta-llama/Llama-3.2-11B-Vision-Instruct",),
            special_tokens=_LLAMA3_TOKENS,
            status="ported",
            module="llama3_2_vision",
            template_file="llama3_2_vision.jinja",
            template_sha256="d3e97dc81677b7918ffae734b13999c4b4ea5eb3939a8506bbf501602f4d2b62",
            description="Meta Llama 3.2 11B Vision Instruct (source-document variant)",
        ),
        ChatFormat(
            name="minicpm-v-4.6-thinking",
            # The Hub id is spelt with a dot ("Duplicate from openbmb/MiniCPM-V-4.6" on its mirrors,
            # "openbmb/MiniCPM-V-4.6-Thinking" on the quantised variants' cards); transformers' docs
            # write the underscore form.
            model_ids=("openbmb/MiniCPM-V-4.6-Thinking", "openbmb/MiniCPM-V-4_6-Thinking"),
            # Not established from the model's tokenizer config (a Qwen3.5 tokenizer with image/
            # video/slice tokens); the template reads none of them.
            special_tokens={},
            status="ported",
            module="minicpm_v4_6_thinking",
            template_file="minicpm_v4_6_thinking.jinja",
            template_sha256="19356d2fd1c60dc46c92f3b05a5e01a32cdd1ab10b68d649a0081e6bba7c8137",
            description="OpenBMB MiniCPM-V 4.6 Thinking",
        ),
        ChatFormat(
            name="cogito",
            model_ids=("deepcogito/cogito-v1-preview-llama-8B",),
            special_tokens=_LLAMA3_TOKENS,
            status="ported",
            module="cogito",
            template_file="cogito.jinja",
            template_sha256="ee97f6ef49c5eaee00242bb0547c231b7b1b1fd1ec5623273954ca0dda913d1c",
            description="Deep Cogito v1 (Llama-based hybrid reasoning)",
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
        ),
    )
}


def formats() -> list[str]:
    """The names of every registered format, ported or not (see :func:`get_format`)."""
    return list(_FORMATS)


def get_format(name: str) -> ChatFormat:
    """The :class:`ChatFormat` registered under ``name``."""
    try:
        return _FORMATS[name]
    except (KeyError, TypeError):
        raise UnknownFormatError(
            f"unknown format {name!r}; known formats: {', '.join(_FORMATS)}"
        ) from None
