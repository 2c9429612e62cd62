"""The HTML page in a real browser: Chromium, driven by Playwright.

Runs only when asked for (the browser is no CI dependency): ``CHATFORMATS_CHROMIUM`` names the
Chromium executable (Debian's ``chromium`` package: ``/usr/bin/chromium``) and Playwright's Python
package is importable (its own browser downloads are not used).  See ``docs/audit.md``::

    CHATFORMATS_CHROMIUM=/usr/bin/chromium python -m pytest -p no:xdist tests/test_html_browser.py

Asked for and unable to launch the browser, the tests fail (they do not skip).

- the prompt element's ``innerText`` is the prompt (:func:`chatformats.html.visible_text`);
- the marked elements, in order, tile the prompt; each carries the path of the span it shows
  (``data-path`` and ``title``), the outlines are the assistant ranges, the flagged characters
  the audit findings (:func:`tests.html_check.check_segments`);
- each input span shows its path where it begins, without hovering, on screen and in print
  (the page's ``[data-label]::before`` style).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatformats
from chatformats import html

from . import html_check

EXECUTABLE = os.environ.get("CHATFORMATS_CHROMIUM")
pytestmark = pytest.mark.skipif(
    not EXECUTABLE,
    reason="the browser tests run on request: CHATFORMATS_CHROMIUM=/usr/bin/chromium (docs/audit.md)",
)

FORMATS = chatformats.formats()

_SEGMENTS_JS = """
root => Array.from(root.querySelectorAll('.src, .tpl')).map(el => {
  const outline = el.closest('.asst');
  return {
    cls: el.classList.contains('src') ? 'src' : 'tpl',
    path: el.getAttribute('data-path'),
    title: el.getAttribute('title'),
    tabindex: el.getAttribute('tabindex'),
    text: el.textContent,
    asst: outline ? Array.from(root.querySelectorAll('.asst')).indexOf(outline) : null,
    hit: el.getAttribute('data-finding'),
    label: el.getAttribute('data-label'),
    first: el.classList.contains('first'),
    hue: Array.from(el.classList).find(c => /^h[0-9]+$/.test(c)) || null,
  };
})
"""


@pytest.fixture(scope="module")
def browser_page() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=EXECUTABLE, args=["--no-sandbox"])
        page = browser.new_page()
        page.set_default_timeout(20_000)
        yield page
        browser.close()


def _load(page: Any, document: str) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".html", encoding="utf-8", newline="",
                                     delete=False) as handle:
        handle.write(document)
    try:
        page.goto("file://" + handle.name)
    finally:
        os.unlink(handle.name)


def _check(page: Any, rendering: Any, findings: Any) -> None:
    _load(page, html.page(rendering, findings, title="test"))
    prompt = page.locator("#prompt")
    visible = html.visible_text(rendering.text)
    assert prompt.evaluate("e => e.innerText") == visible
    segments = prompt.evaluate(_SEGMENTS_JS)
    for segment in segments:
        if segment["cls"] == "src":
            assert segment["title"] == segment["path"] and segment["tabindex"] == "0"
    html_check.check_segments(segments, rendering, findings, visible)
    html_check.check_labels(segments, rendering, visible)
    assert page.evaluate("() => document.scripts.length") == 0


@pytest.mark.parametrize("name", FORMATS)
def test_tricky_characters(browser_page: Any, name: str) -> None:
    result = html_check.render(name, html_check.tricky_conversation(), add_generation_prompt=True)
    assert result is not None
    _check(browser_page, *result)


@pytest.mark.parametrize("name", FORMATS)
def test_each_span_shows_its_path_without_hovering(browser_page: Any, name: str) -> None:
    result = html_check.render(name, html_check.tricky_conversation())
    assert result is not None
    _load(browser_page, html.page(*result))
    first = browser_page.locator("#prompt .src").first
    path = first.get_attribute("data-path")
    shown = first.evaluate("e => getComputedStyle(e, '::before').content")
    assert path in shown
    browser_page.emulate_media(media="print")  # printed too
    assert path in first.evaluate("e => getComputedStyle(e, '::before').content")
    browser_page.emulate_media(media="screen")


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_generated_conversations(browser_page: Any, name: str, data: st.DataObject) -> None:
    result = html_check.render(name, data.draw(html_check.cases))
    if result is not None:
        _check(browser_page, *result)
