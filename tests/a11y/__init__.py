"""Accessibility checks in a real Chromium: axe-core, from the axe-playwright-python wheel (no CDN).

``from tests.a11y import axe_violations, assert_accessible`` in any browser test::

    assert_accessible(page, "provider page, zh-hans, dark")

Only serious and critical violations fail by default; the report names each rule, its help
text, and every offending element (selector, HTML snippet, what is wrong).
"""

from __future__ import annotations

from tests.a11y.axe_check import (
    FAILING_IMPACTS,
    Violation,
    assert_accessible,
    axe_violations,
    format_violations,
    run_axe,
)

__all__ = [
    "FAILING_IMPACTS",
    "Violation",
    "assert_accessible",
    "axe_violations",
    "format_violations",
    "run_axe",
]
