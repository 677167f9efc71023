"""WCAG contrast of the colour tokens in panel.css, computed for the light and the dark scheme.

Text needs 4.5:1 (WCAG 1.4.3 AA), focus indicators and form-control borders 3:1 (1.4.11).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS_DIR = Path(__file__).resolve().parents[2] / "admin_panel" / "static" / "admin_panel" / "css"
PANEL_CSS = CSS_DIR / "panel.css"
DARK_MEDIA = "@media (prefers-color-scheme: dark)"

TEXT = ("text", "muted", "accent", "ok-text", "warn-text", "err-text", "info-text")
NEUTRAL_BACKGROUNDS = ("bg", "surface", "surface-2")
PAIRS = (
    ("ok-text", "ok-bg"),
    ("warn-text", "warn-bg"),
    ("err-text", "err-bg"),
    ("info-text", "info-bg"),
    ("mark-text", "mark-bg"),
    ("accent-text", "accent"),  # primary buttons, the current page in the navigation
    ("surface", "err-text"),  # danger buttons
    ("text", "ok-bg"),
    ("text", "warn-bg"),
    ("text", "err-bg"),
    ("text", "info-bg"),
)
NON_TEXT = ("focus", "control-border")


def _tokens(css: str) -> dict[str, str]:
    return {name: value.lower() for name, value in re.findall(r"--([a-z0-9-]+):\s*(#[0-9a-fA-F]{6})\b", css)}


def _schemes() -> dict[str, dict[str, str]]:
    css = PANEL_CSS.read_text(encoding="utf-8")
    split = css.index(DARK_MEDIA)
    light = _tokens(css[:split])
    dark = {**light, **_tokens(css[split:])}
    return {"light": light, "dark": dark}


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


SCHEMES = _schemes()


def test_it_computes_contrast_as_wcag_defines_it():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


def test_it_redefines_every_colour_token_for_the_dark_scheme():
    css = PANEL_CSS.read_text(encoding="utf-8")
    light = set(_tokens(css[: css.index(DARK_MEDIA)]))
    dark = set(_tokens(css[css.index(DARK_MEDIA) :]))

    assert light - dark == set()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_it_gives_every_text_colour_aa_contrast_on_every_surface(scheme):
    tokens = SCHEMES[scheme]
    weak = [
        f"{fg} on {bg}: {contrast(tokens[fg], tokens[bg]):.2f}"
        for fg in TEXT
        for bg in NEUTRAL_BACKGROUNDS
        if contrast(tokens[fg], tokens[bg]) < 4.5
    ]

    assert not weak


@pytest.mark.parametrize("scheme", SCHEMES)
def test_it_gives_badges_notices_buttons_and_highlights_aa_contrast(scheme):
    tokens = SCHEMES[scheme]
    weak = [f"{fg} on {bg}: {contrast(tokens[fg], tokens[bg]):.2f}" for fg, bg in PAIRS
            if contrast(tokens[fg], tokens[bg]) < 4.5]

    assert not weak


@pytest.mark.parametrize("scheme", SCHEMES)
def test_it_makes_focus_rings_and_form_control_borders_stand_out_three_to_one(scheme):
    tokens = SCHEMES[scheme]
    weak = [
        f"{token} on {bg}: {contrast(tokens[token], tokens[bg]):.2f}"
        for token in NON_TEXT
        for bg in NEUTRAL_BACKGROUNDS
        if contrast(tokens[token], tokens[bg]) < 3.0
    ]

    assert not weak


def _rules(css: str) -> list[tuple[str, str]]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return re.findall(r"([^{}]+)\{([^{}]*)\}", css)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_it_gives_aa_contrast_wherever_a_stylesheet_sets_text_and_background_together(scheme):
    tokens = SCHEMES[scheme]
    weak = []
    checked = 0
    for path in sorted(CSS_DIR.glob("*.css")):
        for selector, body in _rules(path.read_text(encoding="utf-8")):
            fg = re.search(r"(?:^|;)\s*color:\s*var\(--([a-z0-9-]+)\)", body)
            bg = re.search(r"background(?:-color)?:\s*var\(--([a-z0-9-]+)\)", body)
            if not (fg and bg) or fg.group(1) not in tokens or bg.group(1) not in tokens:
                continue
            checked += 1
            ratio = contrast(tokens[fg.group(1)], tokens[bg.group(1)])
            if ratio < 4.5:
                weak.append(f"{path.name} {selector.strip()}: {fg.group(1)} on {bg.group(1)} = {ratio:.2f}")

    assert checked >= 10
    assert not weak
