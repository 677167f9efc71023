"""The schema preview in a real Chromium: hot reload, errors with their line, Try it, paste."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from tests.conftest import screenshot
from tests.preview.conftest import NOTES_SCHEMA, make_plugin, snapshot, write_schema

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WITH_TOKEN = NOTES_SCHEMA.replace(
    '        ProviderField("limit", "Result limit", kind=KIND_NUMBER, default="10"),\n',
    '        ProviderField("limit", "Result limit", kind=KIND_NUMBER, default="10"),\n'
    '        ProviderField("workspace", "Workspace", default="hermes", inline=True),\n',
)
BROKEN = WITH_TOKEN.replace('label="Notes",', 'label="Notes"\n    oops oops,')


def _open_preview(page, live_server, choice: str) -> None:
    page.goto(f"{live_server.url}/schema-preview/?choice={quote(choice)}")
    page.get_by_role("heading", name="The form as users see it").wait_for()


def test_it_follows_the_file_as_it_is_saved_broken_and_fixed(signed_in_page, live_server, home):
    page = signed_in_page
    schema = make_plugin(home, "notes", NOTES_SCHEMA)
    _open_preview(page, live_server, "plugin:notes")
    expect(page.get_by_label("Mode")).to_be_visible()
    assert page.get_by_label("Workspace").count() == 0
    screenshot(page, "preview-plugin")

    # No restart, no reload by hand (bench/preview_reload.py measures how fast this is).
    write_schema(schema, WITH_TOKEN)
    page.get_by_label("Workspace").wait_for()

    write_schema(schema, BROKEN)
    alert = page.get_by_role("alert").filter(has_text="The schema does not load")
    alert.wait_for()
    expect(page.get_by_label("Mode")).to_have_count(0)  # the error replaced the form
    assert "SyntaxError" in alert.inner_text()
    # Python points at the line before the stray words; they show in the lines around it.
    marked = page.locator(".preview-error .source__line--marked")
    assert marked.locator(".source__no").inner_text() == "13"
    assert 'label="Notes"' in marked.inner_text()
    assert "oops oops" in page.locator(".preview-error .source").inner_text()
    screenshot(page, "preview-load-error")

    write_schema(schema, WITH_TOKEN)
    page.get_by_label("Workspace").wait_for()
    expect(page.get_by_role("alert").filter(has_text="The schema does not load")).to_have_count(0)


def test_it_tries_the_form_without_writing_anything(signed_in_page, live_server, home):
    page = signed_in_page
    make_plugin(home, "notes", NOTES_SCHEMA)
    before = snapshot(home)
    _open_preview(page, live_server, "plugin:notes")

    page.get_by_label("Mode").select_option("local")
    page.get_by_label("Server URL").fill("http://127.0.0.1:9000")
    page.get_by_label("Result limit").fill("25")
    page.get_by_role("button", name="Try it").click()
    result = page.locator("#try-result")
    result.wait_for()
    text = result.inner_text()
    assert "notes.json" in text and "http://127.0.0.1:9000" in text and "25" in text
    screenshot(page, "preview-try-it")

    limit = page.get_by_label("Result limit")
    if not limit.is_visible():
        # The result came back as a whole page (the click beat htmx's set-up): its sections
        # start collapsed, so open the one holding the field, as a reader would.
        page.locator("details.provider-section", has=limit).locator("summary").click()
    limit.fill("many")
    page.get_by_role("button", name="Try it").click()
    page.locator("#try-result .error-summary").wait_for()
    result = page.locator("#try-result").inner_text()
    assert "Enter a number, such as" in result and "'limit'" not in result  # says what to type, no key name
    assert snapshot(home) == before


def test_it_previews_pasted_text_and_refuses_code(signed_in_page, live_server, home, tmp_path):
    page = signed_in_page
    page.goto(f"{live_server.url}/schema-preview/paste/")
    page.get_by_label("Text of config_schema.py").fill(NOTES_SCHEMA)
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("heading", name="The form as users see it").wait_for()
    expect(page.get_by_label("Mode")).to_be_visible()
    screenshot(page, "preview-paste")

    target = tmp_path / "created-by-paste"
    hostile = NOTES_SCHEMA + f"\nopen({str(target)!r}, 'w').write('x')\n"
    page.get_by_label("Text of config_schema.py").fill(hostile)
    page.get_by_role("button", name="Preview").click()
    alert = page.get_by_role("alert").filter(has_text="Not accepted as pure data")
    alert.wait_for()
    assert "Line" in alert.inner_text()
    screenshot(page, "preview-paste-refused")
    assert not target.exists()


def test_it_looks_right_in_both_colour_schemes(browser, live_server, owner, home):
    from tests.conftest import PASSWORD

    linty = WITH_TOKEN.replace('ProviderField("url", "Server URL"', 'ProviderField("api_token", "API token"')
    make_plugin(home, "notes", linty)
    make_plugin(home, "broken", BROKEN)
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        try:
            page.goto(f"{live_server.url}/accounts/login/")
            page.get_by_label("Username").fill(owner.username)
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(f"{live_server.url}/")
            _open_preview(page, live_server, "plugin:notes")
            assert "looks like a credential" in page.locator(".finding").first.inner_text()
            screenshot(page, f"preview-findings-{scheme}")
            page.goto(f"{live_server.url}/schema-preview/?choice=plugin%3Abroken")
            page.get_by_role("alert").filter(has_text="The schema does not load").wait_for()
            screenshot(page, f"preview-load-error-{scheme}")
        finally:
            context.close()
