"""Finding formats: by name or model id in any case, with "did you mean"; by a template's
fingerprint (``detect``); from a local model folder (``from_pretrained``), checked against
transformers' own ``AutoTokenizer.from_pretrained`` of the same folder.  The folders are built
in a temporary directory from the repository's ``reference_templates/``."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

import chatformats
from chatformats import UnknownFormatError, UnknownVariableError

from . import oracle
from .oracle import FIXED_NOW

FORMATS = chatformats.formats()
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]


# ------------------------------------------------------------------ by name and model id


@pytest.mark.parametrize("name", FORMATS)
def test_names_and_model_ids_in_any_case(name):
    fmt = chatformats.get_format(name)
    for alias in (name, name.upper(), *fmt.model_ids, *(m.lower() for m in fmt.model_ids),
                  *(m.upper() for m in fmt.model_ids)):
        assert chatformats.get_format(alias) is fmt
        assert chatformats.render(alias, MESSAGES, now=FIXED_NOW) == fmt.render(MESSAGES, now=FIXED_NOW)
        assert chatformats.apply_chat_template(alias, MESSAGES, now=FIXED_NOW) == \
            chatformats.apply_chat_template(name, MESSAGES, now=FIXED_NOW)


def test_model_ids_are_unique_and_variants_claim_none():
    seen: dict[str, str] = {}
    for name in FORMATS:
        fmt = chatformats.get_format(name)
        for model in fmt.model_ids:
            assert model.casefold() not in seen, (model, seen.get(model.casefold()))
            seen[model.casefold()] = name
        if fmt.variant_of:
            assert fmt.model_ids == (), f"{name} varies {fmt.variant_of}: it serves no published id"
    assert chatformats.get_format("llama-3.2-vision-variant").variant_of == "meta-llama/Llama-3.2-11B-Vision-Instruct"
    assert chatformats.get_format("qwen3-tool-agent").model_ids == ()
    # cogito adds a <think> prefill to the v1 preview template: it serves no published id.
    assert chatformats.get_format("cogito").model_ids == ()
    assert chatformats.get_format("cogito").variant_of == "deepcogito/cogito-v1-preview-llama-3B"


@pytest.mark.parametrize("typo, suggestion", [
    ("qwen3-tool-agen", "qwen3-tool-agent"),
    ("cogitoo", "cogito"),
    ("solar_open", "solar-open"),
    ("qwen/qwen3-4b-instruct-2507-fp8", "Qwen/Qwen3-4B-Instruct-2507"),
    ("minicpm-v-4.6", "minicpm-v-4.6-thinking"),
])
def test_near_misses_get_did_you_mean(typo, suggestion):
    with pytest.raises(UnknownFormatError, match="did you mean") as info:
        chatformats.get_format(typo)
    assert repr(suggestion) in str(info.value)
    with pytest.raises(UnknownFormatError, match="did you mean"):
        chatformats.render(typo, MESSAGES)
    with pytest.raises(UnknownFormatError, match="did you mean"):
        chatformats.apply_chat_template(typo, MESSAGES)


def test_a_variants_model_is_refused_with_the_reason():
    # The published model's id finds its original; where only the variant were registered, the
    # id is refused with the reason rather than served by the variant.
    model = "meta-llama/Llama-3.2-11B-Vision-Instruct"
    assert chatformats.get_format(model).name == "llama-3.2-vision-2024-12"
    from chatformats._registry import lookup

    variant = chatformats.get_format("llama-3.2-vision-variant")
    assert variant.variant_of == model and not variant.model_ids
    with pytest.raises(UnknownFormatError, match="'llama-3.2-vision-variant' is a variant of"):
        lookup(model.upper(), {variant.name: variant})
    with pytest.raises(UnknownFormatError, match="unknown format 'zzz' \\(known formats"):
        chatformats.get_format("zzz")


# ------------------------------------------------------------------ strictness


@pytest.mark.parametrize("name", FORMATS)
def test_strict_refuses_a_variable_the_template_does_not_read(name):
    fmt = chatformats.get_format(name)
    assert fmt.variables is not None
    for var in fmt.variables:  # every variable the template reads is accepted
        try:
            chatformats.render(name, MESSAGES, strict=True, now=FIXED_NOW, **{var: None})
        except UnknownVariableError:
            raise
        except chatformats.ChatFormatError:
            pass  # None is no value the template takes: that is not what is checked here
    with pytest.raises(UnknownVariableError) as info:
        chatformats.render(name, MESSAGES, strict=True, add_generation_promt=True)
    assert "add_generation_promt" in str(info.value) and ", ".join(fmt.variables) in str(info.value)
    with pytest.raises(UnknownVariableError):
        chatformats.apply_chat_template(name, MESSAGES, strict=True, enable_thinkng=False)
    # off by default, and the special tokens and transformers' own parameters are no typos
    assert chatformats.render(name, MESSAGES, now=FIXED_NOW, add_generation_promt=True) == \
        chatformats.render(name, MESSAGES, now=FIXED_NOW)
    chatformats.apply_chat_template(name, MESSAGES, strict=True, padding=True, now=FIXED_NOW,
                                    **dict(fmt.special_tokens))


# ------------------------------------------------------------------ by fingerprint


@pytest.mark.parametrize("name", FORMATS)
def test_detect(name):
    fmt = chatformats.get_format(name)
    source = fmt.template_source()
    assert chatformats.detect(source) is fmt
    # a CRLF, or for a one-line template (DeepSeek R1's) a trailing newline, is another text
    changed = source.replace("\n", "\r\n", 1) if "\n" in source else source + "\n"
    with pytest.raises(UnknownFormatError) as info:
        chatformats.detect(changed)
    assert __import__("hashlib").sha256(changed.encode()).hexdigest() in str(info.value)
    with pytest.raises(TypeError):
        chatformats.detect(source.encode())  # type: ignore[arg-type]


# ------------------------------------------------------------------ from a model folder


def save(tmp_path: Path, name: str, layout: str, **config_changes: Any) -> Path:
    """A model folder as transformers writes it, then rearranged into ``layout``."""
    from .test_serving_transformers import fresh_tokenizer

    folder = tmp_path / f"{name}-{layout}"
    fresh_tokenizer(name).save_pretrained(folder)
    template = (folder / "chat_template.jinja").read_text(encoding="utf-8")
    config_path = folder / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    if layout != "jinja":
        (folder / "chat_template.jinja").unlink()
    if layout == "config-string":
        config["chat_template"] = template
    elif layout == "config-list":
        config["chat_template"] = [{"name": "default", "template": template},
                                   {"name": "rag", "template": "{{ documents }}"}]
    elif layout == "json":
        (folder / "chat_template.json").write_text(json.dumps({"chat_template": template}), encoding="utf-8")
    config.update(config_changes)
    config_path.write_text(json.dumps(config), encoding="utf-8")
    return folder


def transformers_tokenizer(folder: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))


@pytest.mark.parametrize("layout", ["jinja", "config-string", "config-list"])
@pytest.mark.parametrize("name", ["cogito", "qwen3-tool-agent"])
def test_from_pretrained_agrees_with_transformers(tmp_path, name, layout):
    from . import transformers_oracle as T

    folder = save(tmp_path, name, layout)
    fmt = chatformats.from_pretrained(folder)
    tok = transformers_tokenizer(folder)
    assert fmt.name == name
    assert dict(fmt.special_tokens) == tok.special_tokens_map
    assert chatformats.detect(tok.get_chat_template()) == chatformats.get_format(name)
    with T.fixed_clock():
        expected = tok.apply_chat_template(MESSAGES, tokenize=False, add_generation_prompt=True)
    assert chatformats.apply_chat_template(fmt, MESSAGES, add_generation_prompt=True, now=FIXED_NOW) == expected
    assert chatformats.from_pretrained(str(folder)) == fmt  # a str path too
    assert pickle.loads(pickle.dumps(fmt)) == fmt


def test_from_pretrained_reads_a_processors_chat_template_json(tmp_path):
    """``chat_template.json`` is the processor's file (multimodal models): a transformers
    tokenizer does not read it, vLLM prefers the processor's template; so does chatformats."""
    folder = save(tmp_path, "minicpm-v-4.6-thinking", "json")
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["chat_template"] = "{{ messages }}"  # the tokenizer's own, not a ported one
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    fmt = chatformats.from_pretrained(folder)
    assert fmt.name == "minicpm-v-4.6-thinking"
    assert chatformats.apply_chat_template(fmt, MESSAGES, now=FIXED_NOW) == \
        chatformats.apply_chat_template("minicpm-v-4.6-thinking", MESSAGES, now=FIXED_NOW)


@pytest.mark.parametrize("name", ["llama-3.2-vision-2024-09", "llama-3.2-vision-2024-12"])
def test_from_pretrained_tells_the_llama_vision_revisions_apart(tmp_path, name):
    """Meta's Llama 3.2 Vision folders hold the template in the processor's
    ``chat_template.json`` (the tokenizer config has none); each revision the model shipped is
    found by its own text, and renders as that revision does (a system message with an image:
    refused by the September text, rendered by the December one)."""
    folder = save(tmp_path, name, "json")
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert "chat_template" not in config and config["bos_token"] == "<|begin_of_text|>"
    fmt = chatformats.from_pretrained(folder)
    assert fmt.name == name and fmt.special_tokens["bos_token"] == "<|begin_of_text|>"
    with_image = [{"role": "system", "content": "Be brief."},
                  {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Hi"}]}]
    expected = oracle.render(name, with_image, now=FIXED_NOW, bos_token="<|begin_of_text|>")
    if expected.ok:
        assert chatformats.apply_chat_template(fmt, with_image, now=FIXED_NOW) == expected.text
    else:
        with pytest.raises(chatformats.TemplateError, match="incompatible with system messages"):
            chatformats.apply_chat_template(fmt, with_image, now=FIXED_NOW)


def test_from_pretrained_binds_the_folders_own_tokens(tmp_path):
    """AddedToken dicts, and a bos token of the folder's own: the pipeline uses the folder's
    tokens, not the registry's (transformers agrees)."""
    from . import transformers_oracle as T

    added = {"__type": "AddedToken", "content": "<s>", "lstrip": False, "normalized": False,
             "rstrip": False, "single_word": False, "special": True}
    folder = save(tmp_path, "cogito", "jinja", bos_token=added, image_token="<image>", pad_token=None,
                  sep_token="", additional_special_tokens=["<a>"])
    fmt = chatformats.from_pretrained(folder)
    assert fmt.special_tokens["bos_token"] == "<s>"
    tok = transformers_tokenizer(folder)
    assert dict(fmt.special_tokens) == tok.special_tokens_map
    with T.fixed_clock():
        expected = tok.apply_chat_template(MESSAGES, tokenize=False)
    assert expected.startswith("<s>")
    assert chatformats.apply_chat_template(fmt, MESSAGES, now=FIXED_NOW) == expected
    assert chatformats.render(fmt, MESSAGES, bos_token="<s>") == fmt.render(MESSAGES, bos_token="<s>")


def test_from_pretrained_failures_name_the_fingerprint(tmp_path):
    folder = save(tmp_path, "cogito", "jinja")
    path = folder / "chat_template.jinja"
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(UnknownFormatError, match=r"chat_template\.jinja: no chatformats port reproduces "
                                                 r"this chat template \(sha256 [0-9a-f]{64}"):
        chatformats.from_pretrained(folder)
    path.unlink()
    with pytest.raises(UnknownFormatError, match="no chat template"):
        chatformats.from_pretrained(folder)
    with pytest.raises(UnknownFormatError, match="not a model folder"):
        chatformats.from_pretrained(tmp_path / "missing")
    (folder / "tokenizer_config.json").write_text("{", encoding="utf-8")
    with pytest.raises(UnknownFormatError, match="cannot be read as JSON"):
        chatformats.from_pretrained(folder)
    (folder / "tokenizer_config.json").write_text(json.dumps({"chat_template": [{"name": "rag", "template": "x"}]}),
                                                  encoding="utf-8")
    with pytest.raises(UnknownFormatError, match="no 'default' template"):
        chatformats.from_pretrained(folder)
