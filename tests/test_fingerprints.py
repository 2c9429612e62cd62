"""Every registered format is found by its pinned text alone: a model folder holding only a
``tokenizer_config.json`` whose ``chat_template`` is the reference template (read from
``reference_templates/``, not from the package's copy) gives that format from
``chatformats.from_pretrained``, whether the format serves model ids or is an earlier revision
(``revision_of``) or a variant found only by its fingerprint."""

from __future__ import annotations

import json

import pytest

import chatformats

from .jinja_env import REFERENCE_TEMPLATES

FORMATS = chatformats.formats()


@pytest.mark.parametrize("name", FORMATS)
def test_a_tokenizer_config_with_the_pinned_text_finds_its_format(tmp_path, name):
    fmt = chatformats.get_format(name)
    text = (REFERENCE_TEMPLATES / fmt.template_file).read_bytes().decode("utf-8")
    config = {"chat_template": text, **{k: v for k, v in fmt.special_tokens.items()}}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    found = chatformats.from_pretrained(tmp_path)
    assert found.name == name
    assert found.template_sha256 == fmt.template_sha256
