"""The checking tools themselves catch what they are meant to catch (a silent harness passes all)."""

from __future__ import annotations

import pytest

from tests.a11y.axe_check import axe_violations, format_violations
from tests.a11y.keyboard import assert_visible_focus, focused

pytestmark = pytest.mark.browser

BROKEN = """<!doctype html><html lang="en"><head><title>broken</title>
<style>
  body { background: #ffffff; }
  .faint { color: #bbbbbb; }
  .quiet:focus { outline: none; }
</style></head>
<body><main>
  <h1>A broken page</h1>
  <input type="text" id="unlabelled">
  <p class="faint">Text too pale to read</p>
  <button class="quiet" type="button">No focus ring</button>
</main></body></html>"""


def test_it_reports_missing_labels_and_weak_contrast_with_the_offending_elements(page):
    page.set_content(BROKEN)

    violations = axe_violations(page)
    report = format_violations(violations, where="the broken page")

    rules = {v.rule for v in violations}
    assert {"label", "color-contrast"} <= rules
    assert "#unlabelled" in report and "Text too pale to read" in report
    assert all(v.impact in ("serious", "critical") for v in violations)


def test_it_leaves_out_only_the_rules_it_is_told_to(page):
    page.set_content(BROKEN)

    rules = {v.rule for v in axe_violations(page, disabled=("color-contrast", "link-in-text-block"))}

    assert "label" in rules
    assert "color-contrast" not in rules


def test_it_passes_a_page_without_problems(page):
    page.set_content(
        '<!doctype html><html lang="en"><head><title>fine</title></head><body><main><h1>Fine</h1>'
        '<label for="name">Name</label><input id="name" type="text"></main></body></html>'
    )

    assert axe_violations(page) == []


def test_it_fails_a_focused_element_without_a_visible_indicator(page):
    page.set_content(BROKEN)

    page.locator("#unlabelled").focus()
    page.keyboard.press("Tab")
    assert focused(page, "button.quiet").matches
    with pytest.raises(AssertionError, match="no visible focus indicator"):
        assert_visible_focus(focused(page))
