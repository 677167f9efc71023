"""Every page fits a phone (390x844) and a laptop (1366x900), in English and Simplified Chinese, in
the light and the dark scheme: nothing scrolls sideways, no table cell or control cuts its text
and no button breaks its label inside a word.

The page states are the accessibility crawl's (tests/a11y/test_axe.py), so a new page is checked
here as soon as it is added there. One browser context per (size, language); each page is loaded
once and measured in both schemes (the scheme is emulated on the loaded document).

``DOCS_SCREENSHOTS=1`` refreshes docs/screenshots/issue-27/: every page at both sizes and both
languages in the light scheme, and a few in the dark one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from admin_panel.demo import seed_demo_home
from tests.a11y.test_axe import LANGUAGES, VISITS, _add_backup, _record_audit, _sign_in
from tests.conftest import BROWSER_TIMEOUT_MS, DOCS_SCREENSHOTS_DIR
from tests.demo_homes import seeded

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 900}}
SCHEMES = ("light", "dark")
DOCS = os.environ.get("DOCS_SCREENSHOTS", "") not in ("", "0")
# The pages a person meets first, photographed for the documentation (viewport only, to keep the
# folder small); the whole crawl is still measured.
SHOTS = {
    "home", "providers", "provider-hindsight", "settings", "memory", "memory-blocked", "memory-pending",
    "memory-maintenance", "sessions", "session-detail", "audit", "people", "account", "profiles", "profiles-copy",
}
DARK_SHOTS = {"home", "memory", "providers", "profiles", "memory-maintenance"}
# Signed-in pages reached by the owner; the signed-out pages need a home without accounts and are
# covered by the same rules through the shared base template.
CRAWLED = tuple(v for v in VISITS if v.signed_in and v.staff and v.setup in (None, _record_audit, _add_backup))

# What a person cannot see without scrolling sideways or at all: the document wider than the
# window; a box that hides or scrolls away part of its content sideways; a select narrower than
# the option it shows.
LAYOUT_JS = r"""() => {
  const problems = [];
  const root = document.documentElement;
  const describe = el => {
    let text = el.tagName.toLowerCase();
    if (el.id) { text += '#' + el.id; }
    if (el.classList.length) { text += '.' + [...el.classList].join('.'); }
    return `${text} "${(el.innerText || el.value || '').replace(/\s+/g, ' ').trim().slice(0, 40)}"`;
  };
  if (root.scrollWidth > root.clientWidth + 1) {
    // Name the innermost elements that reach past the window, so the message says what to fix.
    const past = [...document.querySelectorAll('body *')].filter(
      el => el.getBoundingClientRect().right > root.clientWidth + 1
        && ![...el.children].some(child => child.getBoundingClientRect().right > root.clientWidth + 1));
    problems.push(`the page scrolls sideways: ${root.scrollWidth}px of content in ${root.clientWidth}px`
      + ` (past the edge: ${past.slice(0, 3).map(describe).join(', ')})`);
  }
  const visible = el => el.offsetParent !== null && el.getClientRects().length > 0;
  for (const el of document.querySelectorAll('body *')) {
    // A visually hidden element (1px, clipped) is for screen readers: it hides its text on purpose.
    if (!visible(el) || el.clientWidth <= 1) { continue; }
    if (el.closest('.visually-hidden, textarea, dialog:not([open])')) { continue; }
    const style = getComputedStyle(el);
    const sideways = style.overflowX;
    if (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.tagName === 'INPUT') { continue; }
    if (sideways !== 'visible' && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${describe(el)} hides ${el.scrollWidth - el.clientWidth}px sideways (overflow-x: ${sideways})`);
    }
  }
  for (const table of document.querySelectorAll('table')) {
    if (!visible(table)) { continue; }
    const box = table.parentElement.getBoundingClientRect();
    const own = table.getBoundingClientRect();
    if (own.right > box.right + 1) {
      problems.push(`${describe(table)} is ${Math.round(own.right - box.right)}px wider than its box`);
    }
  }
  for (const select of document.querySelectorAll('select')) {
    if (!visible(select) || select.closest('.visually-hidden')) { continue; }
    // The text a closed select shows is its selected option's, after its padding and arrow.
    const style = getComputedStyle(select);
    const option = select.options[select.selectedIndex];
    if (!option) { continue; }
    const canvas = document.createElement('canvas').getContext('2d');
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const needed = canvas.measureText(option.text.trim()).width + padding + 20;  // 20: the arrow
    if (select.clientWidth + 1 < needed) {
      problems.push(`${describe(option)} is cut in its select: ${select.clientWidth}px of ${Math.round(needed)}px`);
    }
  }
  // A button's label breaks between words, never inside one: each run of Latin letters or digits
  // in a button sits on one line (a word cut in two has boxes on two lines).
  for (const button of document.querySelectorAll('button, .button, [role="button"]')) {
    if (!visible(button) || button.closest('.visually-hidden')) { continue; }
    const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/[A-Za-z0-9]{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) {
          problems.push(`${describe(button)} breaks the word "${word[0]}" over ${lines.size} lines`);
        }
      }
    }
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def pages(browser) -> Iterator[dict[tuple[str, str], object]]:
    made: dict[tuple[str, str], object] = {}
    for size, viewport in SIZES.items():
        for language, locale in LANGUAGES.items():
            context = browser.new_context(viewport=viewport, locale=locale)
            context.set_default_timeout(BROWSER_TIMEOUT_MS)
            made[(size, language)] = context.new_page()
    yield made
    for page in made.values():
        page.context.close()


@pytest.fixture
def demo_home(home: Path, owner) -> Path:
    seeded(home, seed_demo_home)
    _record_audit(home)
    _add_backup(home)
    return home


def _keep_screenshot(page, name: str) -> None:
    target = DOCS_SCREENSHOTS_DIR / "issue-27"
    target.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target / f"{name}.png"))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", SIZES)
def test_it_shows_every_page_without_sideways_scrolling_or_clipped_text(
    size, language, pages, live_server, demo_home, owner
):
    page = pages[(size, language)]
    page.context.clear_cookies()
    _sign_in(page.context, live_server, owner)
    report: list[str] = []
    try:
        for visit in CRAWLED:
            page.emulate_media(color_scheme="light")
            visit.go(page, live_server.url)
            page.wait_for_load_state("load")
            for scheme in SCHEMES:
                page.emulate_media(color_scheme=scheme)
                where = f"{visit.name} ({size}, {language}, {scheme}) {page.url}"
                report += [f"{where}: {problem}" for problem in page.evaluate(LAYOUT_JS)]
                dark_shot = visit.name in DARK_SHOTS and language == "en"
                if DOCS and visit.name in SHOTS and (scheme == "light" or dark_shot):
                    _keep_screenshot(page, f"{visit.name}-{size}-{language}-{scheme}")
    finally:
        page.goto("about:blank")  # live streams end with the test
    assert not report, "\n".join(report)
