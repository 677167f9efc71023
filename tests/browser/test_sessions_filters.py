"""The Sessions filters sit on one line of equal controls: the date inputs are as tall as the selects
beside them (a date input's own box is shorter by default), at phone and laptop width."""

from __future__ import annotations

from pathlib import Path

import pytest

from admin_panel.demo import seed_demo_home
from tests.a11y.test_axe import _sign_in
from tests.conftest import BROWSER_TIMEOUT_MS
from tests.demo_homes import seeded

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_home(home: Path, owner) -> Path:
    seeded(home, seed_demo_home)
    return home


@pytest.mark.parametrize("width", [390, 1366])
def test_the_date_inputs_are_as_tall_as_the_selects(browser, live_server, demo_home, owner, width):
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    _sign_in(context, live_server, owner)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/sessions/")
        heights = page.evaluate("""() => [...document.querySelectorAll(
            '.session-filters select, .session-filters input[type=date]')].map(
            el => [el.tagName + (el.type ? ':' + el.type : ''), Math.round(el.getBoundingClientRect().height)])""")
        dates = [height for name, height in heights if name.endswith(":date")]
        selects = [height for name, height in heights if name.startswith("SELECT")]
        assert len(dates) == 2 and selects
        assert max(dates + selects) - min(dates + selects) <= 1, heights
    finally:
        context.close()
