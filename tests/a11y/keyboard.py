"""Drive a page with the keyboard alone and check every stop: visible focus, forward order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# What the focused element looks like: enough to assert a visible indicator and to name it.
_FOCUS_JS = """(selector) => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) { return null; }
  const style = getComputedStyle(el);
  const rect = el.getBoundingClientRect();
  const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
  const shadow = style.boxShadow && style.boxShadow !== 'none';
  const prev = window.__keyboardPrevious;
  const forward = !prev || !document.contains(prev) || prev === el
    || Boolean(prev.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)
    || Boolean(el.closest('dialog[open]')) !== Boolean(prev.closest('dialog[open]'));
  window.__keyboardPrevious = el;
  const name = (el.getAttribute('aria-label') || el.innerText || el.value || el.name || el.id || '').trim();
  return {
    tag: el.tagName.toLowerCase(),
    name: name.replace(/\\s+/g, ' ').slice(0, 80),
    html: el.outerHTML.slice(0, 160),
    indicator: outline || Boolean(shadow),
    shown: rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && style.opacity !== '0',
    in_view: rect.bottom > 0 && rect.top < window.innerHeight && rect.right > 0 && rect.left < window.innerWidth,
    forward: forward,
    matches: selector ? el.matches(selector) : false,
  };
}"""


@dataclass(frozen=True)
class Stop:
    """One element the keyboard focus rested on."""

    tag: str
    name: str
    html: str
    indicator: bool
    shown: bool
    in_view: bool
    forward: bool
    matches: bool


def focused(page: Any, selector: str = "") -> Stop | None:
    info = page.evaluate(_FOCUS_JS, selector)
    return Stop(**info) if info else None


def assert_visible_focus(stop: Stop | None) -> None:
    assert stop is not None, "the focus left the page content (on <body>)"
    assert stop.shown and stop.in_view, f"focus on an element that cannot be seen: {stop.html}"
    assert stop.indicator, f"no visible focus indicator on {stop.html}"


def tab_to(
    page: Any, selector: str, *, backwards: bool = False, max_steps: int = 80, log: list[Stop] | None = None
) -> Stop:
    """Press Tab (or Shift+Tab) until the focused element matches ``selector`` (no key at all when
    it already does); every stop on the way must show a visible focus indicator and, going
    forward, follow the previous one in the document."""
    key = "Shift+Tab" if backwards else "Tab"
    current = focused(page, selector)
    if current is not None and current.matches:
        assert_visible_focus(current)
        return current
    for _ in range(max_steps):
        page.keyboard.press(key)
        stop = focused(page, selector)
        assert_visible_focus(stop)
        assert stop is not None
        if not backwards:
            assert stop.forward, f"focus jumped backwards to {stop.html}"
        if log is not None:
            log.append(stop)
        if stop.matches:
            return stop
    raise AssertionError(f"{selector!r} not reached in {max_steps} presses of {key}")


def reset_order(page: Any) -> None:
    """Forget the last stop (after a navigation, or when a dialog takes the focus on purpose)."""
    page.evaluate("() => { window.__keyboardPrevious = null; }")
