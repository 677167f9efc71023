"""A provider's page follows its files: config.yaml, .env and its settings file. The stream carries
a fingerprint only; an open page shows a change written by another process, pushed through the
stream, and never replaces a form someone has started to change."""

from __future__ import annotations

import json
import multiprocessing
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from admin_panel.selectors.providers import files_fingerprint, provider_state, provider_watch_paths
from tests.conftest import keep_for_docs, screenshot
from tests.event_streams import assert_only_a_fingerprint, assert_sent_to_sign_in_with_no_data
from tests.faults.panel import PANEL_PASSWORD, prepare_panel, serve
from tests.preview.conftest import NOTES_SCHEMA, make_plugin
from tests.providers_ui.workers import replace_file

STREAM = "/providers/notes/events/"
SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c"
SHOW_TIMEOUT_MS = 180_000  # a safety net against a hang only (a loaded machine)


def _notes(home: Path) -> None:
    make_plugin(home, "notes", NOTES_SCHEMA)
    (home / ".env").write_text(f"NOTES_API_KEY={SECRET}\n", encoding="utf-8")
    (home / "notes.json").write_text(json.dumps({"limit": 10}), encoding="utf-8")


@pytest.mark.django_db
def test_it_sends_an_anonymous_provider_stream_to_sign_in_with_no_data(client, home):
    _notes(home)

    response = client.get(STREAM)

    assert_sent_to_sign_in_with_no_data(response)


@pytest.mark.django_db
def test_it_gives_a_viewer_the_provider_stream_with_only_the_fingerprint(viewer_client, home):
    _notes(home)

    response = viewer_client.get(STREAM)
    assert_only_a_fingerprint(response, SECRET, "limit")


@pytest.mark.django_db
def test_it_answers_404_for_a_stream_of_an_unknown_or_badly_named_provider(viewer_client, home):
    _notes(home)

    assert viewer_client.get("/providers/nosuch/events/").status_code == 404
    assert viewer_client.get("/providers/..%2Fetc/events/").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("changed", ["notes.json", ".env", "config.yaml", "plugins/notes/config_schema.py"])
def test_the_provider_fingerprint_changes_with_each_file_the_page_reads(home, changed):
    _notes(home)
    paths = provider_watch_paths(home=home, name="notes", state=provider_state(home=home, name="notes"))
    before = files_fingerprint(paths)
    assert files_fingerprint(paths) == before

    target = home / changed
    target.write_text((target.read_text(encoding="utf-8") if target.exists() else "") + "\n# edited\n",
                      encoding="utf-8")

    assert files_fingerprint(paths) != before


def _sign_in(page, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill("owner")
    page.get_by_label("Password").fill(PANEL_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")


def _write_in_another_process(home: Path, text: str) -> float:
    process = multiprocessing.get_context("spawn").Process(target=replace_file, args=(str(home / "notes.json"), text))
    process.start()
    process.join(timeout=180)
    assert process.exitcode == 0
    return time.monotonic()


@pytest.mark.browser
@pytest.mark.slow
def test_it_pushes_a_settings_file_change_to_the_open_provider_page(page, tmp_path, record_property):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    _notes(home)
    with serve(home=home, data_dir=data) as server:
        base = f"http://127.0.0.1:{server.port}"
        _sign_in(page, base)
        page.goto(f"{base}/providers/notes/")
        limit = page.get_by_label("Result limit")
        assert limit.input_value() == "10"
        page.wait_for_function("() => document.documentElement.dataset.liveMode === 'stream'")

        written = _write_in_another_process(home, json.dumps({"limit": 42}))
        expect(page.get_by_label("Result limit")).to_have_value("42", timeout=SHOW_TIMEOUT_MS)
        delay = time.monotonic() - written

        print(f"provider page: settings file change on screen after {delay * 1000:.0f} ms")
        record_property("provider_page_seconds", round(delay, 3))
        assert page.get_by_label("Result limit").input_value() == "42"
        assert page.evaluate("document.documentElement.dataset.liveMode") == "stream"  # pushed, not polled
        assert SECRET not in page.content()
        page.locator("summary", has_text="Other").click()  # the pushed value, in view for the picture
        keep_for_docs(screenshot(page, "provider-page-pushed"), issue=17)


@pytest.mark.browser
@pytest.mark.slow
def test_it_keeps_a_form_someone_is_changing_when_the_file_changes(page, tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    _notes(home)
    with serve(home=home, data_dir=data) as server:
        base = f"http://127.0.0.1:{server.port}"
        _sign_in(page, base)
        page.goto(f"{base}/providers/notes/")
        page.wait_for_function("() => document.documentElement.dataset.liveMode === 'stream'")
        loaded = page.locator("#provider-live").get_attribute("data-fingerprint")
        page.get_by_label("Mode").select_option("local")

        _write_in_another_process(home, json.dumps({"limit": 42}))
        # The page fetched its new state and decided (data-live-seen is set once it has).
        page.wait_for_function("(loaded) => { const seen = document.documentElement.dataset.liveSeen;"
                               " return seen !== undefined && seen !== loaded; }", arg=loaded,
                               timeout=SHOW_TIMEOUT_MS)

        assert page.get_by_label("Mode").input_value() == "local"  # what they chose stays
        assert page.get_by_label("Result limit").input_value() == "10"
        assert page.locator("#provider-live").get_attribute("data-fingerprint") == loaded
