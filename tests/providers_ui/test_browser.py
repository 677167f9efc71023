"""The provider pages in a real Chromium: configure, validate, `when`, activate, keyboard only."""

from __future__ import annotations

import json

import pytest
import yaml
from playwright.sync_api import expect

from admin_panel.demo import seed_demo_home
from tests.conftest import screenshot
from tests.providers_ui.helpers import sign_in, write

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

API_KEY = "hs-browser-secret-7Q2Z"


def _goto_hindsight(page, live_server):
    page.goto(f"{live_server.url}/providers/hindsight/")
    page.wait_for_load_state("networkidle")


def test_it_lets_a_new_user_configure_hindsight_without_the_key_ever_reaching_the_page(
    signed_in_page, live_server, home
):
    page = signed_in_page
    page.goto(f"{live_server.url}/providers/")
    screenshot(page, "providers-list")
    page.get_by_role("link", name="Settings Hindsight").click()
    page.wait_for_url(f"{live_server.url}/providers/hindsight/")

    page.get_by_label("Mode", exact=True).select_option("local_external")
    page.get_by_role("radio", name="Set a value").first.check()
    page.get_by_label("New API key", exact=True).fill(API_KEY)
    screenshot(page, "provider-hindsight-form")
    page.get_by_role("button", name="Review changes").click()

    expect(page.get_by_role("heading", name="Review changes to Hindsight")).to_be_visible()
    row = page.get_by_role("row", name="API key")
    assert "will be set" in row.inner_text()
    assert "local_external" in page.get_by_role("row", name="Mode").inner_text()
    assert API_KEY not in page.content()
    screenshot(page, "provider-hindsight-review")
    page.get_by_role("button", name="Save").click()

    page.wait_for_url(f"{live_server.url}/providers/hindsight/")
    expect(page.get_by_text("Saved. Changes apply the next time the agent starts.")).to_be_visible()
    secret = page.locator("fieldset.secret").filter(has_text="API key").first
    expect(secret.locator(".badge", has_text="Set").first).to_be_visible()
    screenshot(page, "provider-hindsight-saved")
    page.reload()
    assert API_KEY not in page.content()
    assert f"HINDSIGHT_API_KEY={API_KEY}" in (home / ".env").read_text()
    assert json.loads((home / "hindsight" / "config.json").read_text())["mode"] == "local_external"


def test_it_reports_invalid_json_at_its_field_and_leaves_the_file_untouched(signed_in_page, live_server, home):
    page = signed_in_page
    original = '{\n  "mode": "cloud"\n}\n'
    write(home / "hindsight" / "config.json", original)
    _goto_hindsight(page, live_server)
    page.locator("details#sec-recall > summary").click()  # open the collapsed group
    # Leaving a field validates it in place while the user keeps typing in the next one.
    tokens = page.get_by_label("Max recall tokens")
    tokens.fill("-5")
    tokens.press("Tab")
    page.keyboard.type("900")
    page.locator(".field__error", has_text="Enter a whole number of tokens from 1 to 100000.").wait_for()
    assert page.evaluate("document.activeElement.name") == "v:recall_max_input_chars"
    assert page.get_by_label("Max recall query chars").input_value() == "900"
    tokens.fill("4096")
    tags = page.get_by_label("Recall tag filter")
    tags.fill('["project:hermes",\n  ]')
    tags.press("Tab")  # leaving the field validates it in place
    error = page.locator(".field--json .field__error")
    error.wait_for()
    assert error.inner_text() == 'Enter a JSON list, such as ["project:hermes"].'
    assert tags.get_attribute("aria-invalid") == "true"
    screenshot(page, "provider-json-error-inline")

    page.get_by_role("button", name="Review changes").click()
    summary = page.locator("#error-summary")
    expect(summary).to_contain_text("Nothing was saved")  # waits for the answer to the click
    expect(summary.get_by_role("link", name="Recall tag filter")).to_be_visible()
    screenshot(page, "provider-json-error-summary")
    assert (home / "hindsight" / "config.json").read_text() == original


def test_it_shows_and_hides_fields_that_depend_on_the_mode(signed_in_page, live_server, home):
    page = signed_in_page
    _goto_hindsight(page, live_server)
    llm = page.get_by_label("LLM provider")
    summary = page.locator("#hidden-summary")
    assert not llm.is_visible()
    assert "7 settings hidden (shown when Mode is Local Embedded)" in summary.inner_text()

    page.get_by_label("Mode", exact=True).select_option("local_embedded")
    llm.wait_for(state="visible")
    assert summary.is_hidden()
    screenshot(page, "provider-when-shown")

    page.get_by_label("Mode", exact=True).select_option("cloud")
    llm.wait_for(state="hidden")
    assert "7 settings hidden" in summary.inner_text()
    assert not (home / "hindsight" / "config.json").exists()  # showing fields writes nothing


def test_it_activates_after_a_confirmation_naming_the_provider_it_replaces(signed_in_page, live_server, home):
    page = signed_in_page
    write(home / "config.yaml", "# mine\nmemory:\n  provider: holographic\n")
    write(home / ".env", "HINDSIGHT_API_KEY=already-set\n")
    _goto_hindsight(page, live_server)
    page.get_by_role("link", name="Activate").click()

    expect(page.get_by_text("Hindsight will replace Holographic (holographic)")).to_be_visible()
    screenshot(page, "provider-activate-confirm")
    page.get_by_role("button", name="Activate Hindsight").click()

    page.wait_for_url(f"{live_server.url}/providers/hindsight/")
    expect(page.locator("h1 .badge", has_text="Active").first).to_be_visible()
    config = (home / "config.yaml").read_text()
    assert yaml.safe_load(config)["memory"]["provider"] == "hindsight"
    assert "# mine" in config

    page.goto(f"{live_server.url}/providers/supermemory/")
    expect(page.get_by_text("Set the required secret first: API key.")).to_be_visible()
    screenshot(page, "provider-activate-refused")


def _tab_to(page, selector: str, limit: int = 120) -> None:
    """Press Tab until the element matching ``selector`` has focus."""
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_it_can_be_completed_with_the_keyboard_alone(signed_in_page, live_server, home):
    page = signed_in_page
    _goto_hindsight(page, live_server)
    _tab_to(page, "select[name='v:mode']")
    page.keyboard.press("ArrowDown")  # Cloud -> Local External
    _tab_to(page, "input[name='secret:api_key'][value='keep']")
    page.keyboard.press("ArrowRight")  # -> "Set a value": the password box appears and takes focus
    page.wait_for_function("document.activeElement && document.activeElement.name === 'new:api_key'")
    page.keyboard.type(API_KEY)
    screenshot(page, "provider-keyboard-form")
    page.keyboard.press("Enter")  # submits the form: the review page

    page.wait_for_url(f"{live_server.url}/providers/hindsight/review/")
    _tab_to(page, "form[action$='/save/'] button:not([formaction])")
    page.keyboard.press("Enter")

    page.wait_for_url(f"{live_server.url}/providers/hindsight/")
    assert f"HINDSIGHT_API_KEY={API_KEY}" in (home / ".env").read_text()
    assert json.loads((home / "hindsight" / "config.json").read_text()) == {"mode": "local_external"}


def test_it_renders_the_demo_states_in_light_and_dark(browser, live_server, owner, home):
    seed_demo_home(home)
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
        try:
            page = context.new_page()
            sign_in(page, live_server)
            page.goto(f"{live_server.url}/providers/")
            expect(page.get_by_text("SyntaxError", exact=False).first).to_be_visible()
            screenshot(page, f"providers-list-demo-{scheme}")
            page.goto(f"{live_server.url}/providers/hindsight/")
            page.locator("details#sec-recall > summary").click()
            page.locator("details.info summary").first.click()
            screenshot(page, f"provider-hindsight-{scheme}")
            page.goto(f"{live_server.url}/providers/honcho/")
            expect(page.get_by_text("host block").first).to_be_visible()
            screenshot(page, f"provider-honcho-{scheme}")
            page.goto(f"{live_server.url}/settings/")
            screenshot(page, f"memory-settings-{scheme}")
            background = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert background == ("rgb(20, 20, 19)" if scheme == "dark" else "rgb(247, 247, 245)")
        finally:
            context.close()
