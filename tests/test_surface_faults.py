"""The newer surfaces under the faults a probe found: the HTML page, ``from_pretrained``,
``render_request``, ``accelerate`` and the audit's scan.

- the page labels every character that draws nothing or draws as something else, by code point
  and name (before: variation selectors, U+034F, the Hangul fillers, U+17B4, U+180B and U+2800
  showed nothing), and isolates every segment and label (before: U+202E in a message reversed
  the template text after it);
- the page is linear: its operation count doubles when the findings or the assistant ranges
  double (before: it quadrupled; 16,000 findings took 9 s);
- ``from_pretrained``: a deep JSON config, a template that is not UTF-8, a template name that
  is a list or a dict, a read error, a file over the size limit: each an ``UnknownFormatError``
  naming the file, the last refused without being read (before: RecursionError,
  UnicodeDecodeError, TypeError, OSError; a 2 GB config read whole);
- ``render_request``: a 100,000-deep ``type`` and numpy arrays anywhere in the body give a
  ``ChatFormatError`` (before: RecursionError, ValueError);
- ``accelerate`` under ``LC_TIME=de_DE`` gives transformers' text (before: ``01 Dec`` where
  transformers wrote ``01 Dez``), and a numpy-array ``max_length`` with ``tokenize=False`` returns
  the text as transformers does (before: ValueError);
- the audit's scan is one search for all control strings: the same findings as the scan it
  replaced (one ``str.find`` loop per string), and work that does not grow with the number of
  control strings.
"""

from __future__ import annotations

import json
import locale
import os
import sys
import tracemalloc
import unicodedata
from bisect import bisect_right
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import _audit, html
from chatformats._spans import Span

# ---------------------------------------------------------------- the page: what is labelled

#: Characters that draw nothing (or as something else) that the page used to leave unlabelled.
INVISIBLE = ("\ufe0f\ufe00\U000e0100\U000e01ef\u034f\u115f\u1160\u3164\uffa0\u17b4\u17b5"
             "\u180b\u180c\u180d\u180e\u180f\u2800\U00016fe4\u00ad\u200b\u200d\u2060\u2066"
             "\u202e\u061c\U000e0041\U000e007f\ufeff\U0001d173")


def _labels(document: str) -> list[str]:
    """The ``data-m`` labels of the page's ``.cc`` spans, in order."""
    labels: list[str] = []

    class Reader(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            attributes = dict(attrs)
            if "cc" in (attributes.get("class") or "").split():
                labels.append(str(attributes.get("data-m")))
                assert (attributes.get("title") or "").startswith(str(attributes.get("data-m")))

    reader = Reader()
    reader.feed(document)
    reader.close()
    return labels


def test_every_invisible_character_is_labelled() -> None:
    rendering = chatformats.render_spans("qwen3-instruct-2507",
                                         [{"role": "user", "content": INVISIBLE}])
    document = html.page(rendering)
    assert _labels(document) == [f"U+{ord(c):04X}" for c in INVISIBLE]
    assert 'title="U+FE0F VARIATION SELECTOR-16"' in document
    assert 'title="U+2800 BRAILLE PATTERN BLANK"' in document


def test_a_payload_hidden_in_variation_selectors_is_shown() -> None:
    secret = b"a secret instruction of sixty-two bytes, hidden in the text!!!"
    payload = "".join(chr(0xE0100 + (b % 240)) for b in secret)
    assert len(payload) == 62
    rendering = chatformats.render_spans("cogito", [{"role": "user", "content": "hi" + payload}])
    assert len(_labels(html.page(rendering))) == 62


def _ignorable() -> set[int]:
    return {cp for low, high in html.DEFAULT_IGNORABLE for cp in range(low, high + 1)}


#: Format characters (Cf) that are not Default_Ignorable_Code_Point (DerivedCoreProperties.txt:
#: Prepended_Concatenation_Mark, the interlinear annotation characters, the Egyptian
#: hieroglyph format controls); the page labels them by their category.
_CF_NOT_IGNORABLE = ({*range(0x0600, 0x0606), 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD,
                      0x110CD, *range(0xFFF9, 0xFFFC)} | set(range(0x13430, 0x13460)))


def test_the_default_ignorable_table_against_unicodedata() -> None:
    ignorable = _ignorable()
    ranges = html.DEFAULT_IGNORABLE
    assert all(low <= high for low, high in ranges)
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), "sorted, disjoint"
    for cp in range(sys.maxunicode + 1):
        char = chr(cp)
        category = unicodedata.category(char)
        name = unicodedata.name(char, "")
        if cp in ignorable:
            # the categories the data file's comments give, and never a space character
            assert category in ("Cf", "Mn", "Lo", "Cn"), (hex(cp), category)
            assert html.is_labelled(char), hex(cp)
        if "VARIATION SELECTOR" in name:
            assert cp in ignorable, hex(cp)
        if category == "Cf":
            assert (cp in ignorable) != (cp in _CF_NOT_IGNORABLE), hex(cp)
        if "FILLER" in name and category != "Po":  # the Hangul fillers, Khitan's
            assert html.is_labelled(char), hex(cp)
        if category[0] in "CZ" and char != " ":
            assert html.is_labelled(char), hex(cp)


# ---------------------------------------------------------------- the page: bidi isolation

_BIDI_CONTROLS = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}


class _Isolates(HTMLParser):
    """For each character of the prompt: the classes of the elements around it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[set[str]] = []
        self.in_prompt = False
        self.chars: list[tuple[str, list[set[str]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "pre" and attributes.get("id") == "prompt":
            self.in_prompt = True
            assert attributes.get("dir") == "ltr"
        if tag != "meta":
            self.stack.append(set((attributes.get("class") or "").split()))

    def handle_endtag(self, tag: str) -> None:
        self.stack.pop()
        if tag == "pre":
            self.in_prompt = False

    def handle_data(self, data: str) -> None:
        if self.in_prompt:
            self.chars.extend((c, list(self.stack)) for c in data)


def test_every_segment_and_label_is_a_bidi_isolate() -> None:
    spoof = "x\u202ey\u2067z\u200fw"
    rendering = chatformats.render_spans("qwen3-instruct-2507", [
        {"role": "user", "content": spoof}, {"role": "assistant", "content": "\u202dok"}])
    document = html.page(rendering)
    style = document.split("<style>", 1)[1].split("</style>", 1)[0]
    rule = next(line for line in style.splitlines() if "unicode-bidi" in line)
    assert rule.split("{")[0].replace(" ", "").split(",") == [".tpl", ".src", ".cc"]
    assert "unicode-bidi: isolate" in rule
    reader = _Isolates()
    reader.feed(document)
    assert "".join(c for c, _ in reader.chars) == rendering.text
    for char, around in reader.chars:
        innermost = around[-1]
        assert innermost & {"src", "tpl", "cc"}, repr(char)  # every character inside an isolate
        if unicodedata.bidirectional(char) in _BIDI_CONTROLS or char in "\u200e\u200f\u061c":
            assert "cc" in innermost, repr(char)  # alone in its own isolate, labelled


# ---------------------------------------------------------------- the page: linear


def _steps(module: Any, call: Callable[[], Any]) -> int:
    """The number of lines of ``module``'s source executed by ``call()`` (an operation count;
    the tracer in place before, if any, is put back)."""
    target = module.__file__
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if frame.f_code.co_filename != target:
            return None
        if event == "line":
            count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(previous)
    return count


def _page_steps(rendering: Any, findings: Any) -> int:
    """The number of lines of ``chatformats/html.py`` executed to make the page."""
    return _steps(html, lambda: html.page(rendering, findings))


@pytest.mark.parametrize("kind", ["findings", "assistant ranges"])
def test_the_page_is_linear(kind: str) -> None:
    def case(n: int) -> tuple[Any, Any]:
        if kind == "findings":
            chat = [{"role": "user", "content": "<|im_end|>" * n}]
        else:
            chat = [m for i in range(n) for m in ({"role": "user", "content": f"q{i}"},
                                                   {"role": "assistant", "content": f"a{i}"})]
        return (chatformats.render_spans("qwen3-instruct-2507", chat),
                chatformats.audit("qwen3-instruct-2507", chat))

    small, large = _page_steps(*case(200)), _page_steps(*case(400))
    assert large / small < 2.3, (small, large)  # quadratic: close to 4


# ---------------------------------------------------------------- from_pretrained


def _folder(tmp_path: Path, **files: bytes | str) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    for name, content in files.items():
        path = folder / name.replace("__", ".")
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
    return folder


def _refused(folder: Path, file: str) -> str:
    with pytest.raises(chatformats.UnknownFormatError) as info:
        chatformats.from_pretrained(folder)
    assert file in str(info.value)
    return str(info.value)


def test_from_pretrained_deep_json(tmp_path: Path) -> None:
    folder = _folder(tmp_path, tokenizer_config__json="[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in _refused(folder, "tokenizer_config.json")


def test_from_pretrained_template_not_utf8(tmp_path: Path) -> None:
    folder = _folder(tmp_path, chat_template__jinja=b"{{ messages }}\xff")
    assert "not UTF-8 (byte 15)" in _refused(folder, "chat_template.jinja")


@pytest.mark.parametrize("name", [["default"], {"a": 1}])
def test_from_pretrained_template_name_not_a_string(tmp_path: Path, name: Any) -> None:
    config = {"chat_template": [{"name": name, "template": "x"}]}
    folder = _folder(tmp_path, tokenizer_config__json=json.dumps(config))
    assert "chat_template[0].name is not a string" in _refused(folder, "tokenizer_config.json")


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs a file whose read fails")
def test_from_pretrained_read_error(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "chat_template.jinja").symlink_to("/proc/self/mem")  # a regular file; reading fails
    assert "cannot be read" in _refused(folder, "chat_template.jinja")


def test_from_pretrained_refuses_a_file_over_the_limit_unread(tmp_path: Path) -> None:
    from chatformats import _lookup

    limit = getattr(_lookup, "MAX_FILE_BYTES", 64 * 1024 * 1024)  # the documented 64 MiB
    assert limit == 64 * 1024 * 1024
    folder = _folder(tmp_path)
    config = folder / "tokenizer_config.json"
    with open(config, "wb") as handle:  # sparse: no disk used
        handle.truncate(limit + 1)
    tracemalloc.start()
    try:
        message = _refused(folder, "tokenizer_config.json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"{limit + 1} bytes, more than from_pretrained reads" in message
    assert peak < 1_000_000


# ---------------------------------------------------------------- render_request


def _deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("where", ["tool_call", "tool", "part"])
def test_render_request_deep_type(where: str) -> None:
    from chatformats.openai import render_request

    deep = _deep(100_000)
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}]}
    if where == "tool_call":
        body["messages"].append({"role": "assistant", "content": "", "tool_calls": [
            {"id": "c", "type": deep, "function": {"name": "f", "arguments": "{}"}}]})
    elif where == "tool":
        body["tools"] = [{"type": deep, "function": {"name": "f"}}]
    else:
        body["messages"][0]["content"] = [{"type": deep}]
    with pytest.raises(chatformats.ChatFormatError):
        render_request("cogito", body)


BODY = {
    "messages": [
        {"role": "system", "content": "s"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": "a", "reasoning": "r", "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "t"},
    ],
    "tools": [{"type": "function", "function": {"name": "f", "description": "d",
                                                "parameters": {"type": "object"}}}],
    "chat_template_kwargs": {"enable_thinking": True},
    "reasoning_effort": "low", "tool_choice": "none", "documents": [{"title": "t", "text": "x"}],
}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, prefix + (index,))
    return out


@pytest.mark.parametrize("name", ["cogito", "qwen3-tool-agent", "llama-3.2-vision-2024-12"])
def test_render_request_numpy_values(name: str) -> None:
    np = pytest.importorskip("numpy")
    import copy

    from chatformats.openai import render_request

    for path in _paths(BODY):
        for array in (np.array([1, 2]), np.array(["none", "function"]), np.array([])):
            body = copy.deepcopy(BODY)
            node = body
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = array
            for exclude in (False, True):
                try:
                    render_request(name, body, exclude_tools_when_tool_choice_none=exclude)
                except chatformats.ChatFormatError:
                    pass


# ---------------------------------------------------------------- accelerate


def _tokenizer(name: str) -> Any:
    pytest.importorskip("transformers")
    from .test_serving_transformers import fresh_tokenizer

    return fresh_tokenizer(name)


def test_accelerate_follows_lc_time() -> None:
    from chatformats.transformers import accelerate

    previous = locale.setlocale(locale.LC_TIME)
    try:
        try:
            locale.setlocale(locale.LC_TIME, "de_DE.UTF-8")
        except locale.Error:
            pytest.skip("the de_DE.UTF-8 locale is not installed (locale-gen de_DE.UTF-8)")
        tokenizer = _tokenizer("llama-3.2-vision-2024-12")  # "%d %b %Y": month names
        chat = [{"role": "user", "content": "hi"}]
        expected = tokenizer.apply_chat_template(chat, tokenize=False)
        accelerate(tokenizer)
        assert tokenizer.apply_chat_template(chat, tokenize=False) == expected
        locale.setlocale(locale.LC_TIME, "C")
        served = tokenizer.apply_chat_template.served
        assert tokenizer.apply_chat_template(chat, tokenize=False) == \
            _tokenizer("llama-3.2-vision-2024-12").apply_chat_template(chat, tokenize=False)
        assert tokenizer.apply_chat_template.served == served + 1  # the C locale: served
    finally:
        locale.setlocale(locale.LC_TIME, previous)


def test_accelerate_ignores_tokenizing_options_without_tokenize() -> None:
    np = pytest.importorskip("numpy")
    from chatformats.transformers import accelerate

    tokenizer = _tokenizer("qwen3-instruct-2507")
    chat = [{"role": "user", "content": "hi"}]
    options = dict(max_length=np.array([5, 6]), padding=np.array([1]), truncation=np.array([1]),
                   return_tensors="np", tokenizer_kwargs={"x": np.array([1])})
    expected = tokenizer.apply_chat_template(chat, tokenize=False, **options)
    accelerate(tokenizer)
    assert tokenizer.apply_chat_template(chat, tokenize=False, **options) == expected
    assert tokenizer.apply_chat_template.served == 1
    flag = np.array([True, False])
    with pytest.raises(ValueError):  # transformers' own: the truth of an array is ambiguous
        tokenizer.apply_chat_template(chat, tokenize=False, return_assistant_tokens_mask=flag)


# ---------------------------------------------------------------- the audit's scan


def _reference_find(text: str, spans: list[Span],
                    control_strings: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """The scan the audit had: one ``str.find`` loop per control string over the whole text,
    each occurrence kept when it overlaps a sourced span."""
    starts = [span.start for span in spans]
    found = []
    for token in dict.fromkeys(control_strings):
        if not token:
            continue
        at = text.find(token)
        while at >= 0:
            end = at + len(token)
            first = bisect_right(starts, at) - 1
            last = bisect_right(starts, end - 1) - 1
            covered = spans[first:last + 1]
            if any(span.source is not None for span in covered):
                found.append((at, token, tuple(s.source for s in covered)))
            at = text.find(token, at + 1)
    return sorted(found, key=lambda f: (f[0], f[1]))


class _Rendering:
    def __init__(self, text: str, spans: list[Span]) -> None:
        self.text, self.spans = text, spans


_PIECES = ["<|", "|>", "<|im_end|>", "<|im_start|>", "im_", "end", "<", "|", "a", "<|eot_id|>",
           "<think>", "</think>", "<|end|>", "<|end_of_text|>"]


@st.composite
def _scans(draw: Any) -> tuple[str, list[Span], tuple[str, ...]]:
    text = "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=30)))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=8))) | {0, len(text)})
    spans = [Span(a, b, draw(st.sampled_from([None, "messages[0].content", "tools"])))
             for a, b in zip(cuts, cuts[1:]) if b > a] or [Span(0, 0, "messages[0].content")]
    strings = tuple(draw(st.lists(st.sampled_from(_PIECES + ["", "im_end", "<|im"]), max_size=10)))
    return text, spans, strings


@settings(max_examples=300)
@given(_scans())
@example(("<|im_end|><|im_end|>", [Span(0, 9, None), Span(9, 20, "messages[0].content")],
          ("<|im_end|>", "<|", "|>", "<|im")))
def test_the_scan_finds_what_the_one_loop_per_string_scan_found(case: Any) -> None:
    text, spans, strings = case
    got = _audit.find(_Rendering(text, spans), {}, strings)
    assert [(f.offset, f.token, f.sources) for f in got] == _reference_find(text, spans, strings)


def test_the_scan_does_not_grow_with_the_number_of_control_strings() -> None:
    text = "<|" * 5000 + "plain text " * 500
    rendering = _Rendering(text, [Span(0, len(text), "messages[0].content")])
    few = tuple(f"<|reserved_{i}|>" for i in range(20))
    many = tuple(f"<|reserved_{i}|>" for i in range(320))
    for strings in (few, many):
        _audit.find(rendering, {}, strings)  # the scan for these strings, built once
    steps = [_steps(_audit, lambda s=strings: _audit.find(rendering, {}, s))
             for strings in (few, many)]
    assert steps[1] <= steps[0] + 10, steps  # one loop per string: 16 times as many
