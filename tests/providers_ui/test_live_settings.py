"""The memory settings page follows config.yaml and .env: a fingerprint-only stream, and an open
page shows a limit changed in config.yaml by another process, pushed through the stream."""

from __future__ import annotations

import multiprocessing
import time

import pytest
from playwright.sync_api import expect

from tests.conftest import keep_for_docs, screenshot
from tests.event_streams import assert_only_a_fingerprint, assert_sent_to_sign_in_with_no_data
from tests.faults.panel import PANEL_PASSWORD, prepare_panel, serve
from tests.providers_ui.workers import replace_file

STREAM = "/settings/events/"
SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c"
CONFIG = "_config_version: 33\nmemory:\n  memory_char_limit: {limit}\n"
SHOW_TIMEOUT_MS = 180_000  # a safety net against a hang only (a loaded machine)


@pytest.mark.django_db
def test_it_sends_an_anonymous_settings_stream_to_sign_in_with_no_data(client, home):
    response = client.get(STREAM)

    assert_sent_to_sign_in_with_no_data(response)


@pytest.mark.django_db
def test_it_gives_a_viewer_the_settings_stream_with_only_the_fingerprint(viewer_client, home):
    (home / "config.yaml").write_text(CONFIG.format(limit=2200), encoding="utf-8")
    (home / ".env").write_text(f"NOTES_API_KEY={SECRET}\n", encoding="utf-8")

    response = viewer_client.get(STREAM)
    assert_only_a_fingerprint(response, SECRET, "2200")


@pytest.mark.browser
@pytest.mark.slow
def test_it_pushes_a_config_yaml_change_to_the_open_settings_page(page, tmp_path, record_property):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    (home / "config.yaml").write_text(CONFIG.format(limit=2200), encoding="utf-8")
    with serve(home=home, data_dir=data) as server:
        base = f"http://127.0.0.1:{server.port}"
        page.goto(f"{base}/accounts/login/")
        page.get_by_label("Username").fill("owner")
        page.get_by_label("Password").fill(PANEL_PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{base}/")
        page.goto(f"{base}/settings/")
        limit = page.get_by_label("Memory size limit (characters)")
        expect(limit).to_have_value("2200")
        page.wait_for_function("() => document.documentElement.dataset.liveMode === 'stream'")

        process = multiprocessing.get_context("spawn").Process(
            target=replace_file, args=(str(home / "config.yaml"), CONFIG.format(limit=3100)))
        process.start()
        process.join(timeout=180)
        written = time.monotonic()
        assert process.exitcode == 0
        expect(page.get_by_label("Memory size limit (characters)")).to_have_value("3100", timeout=SHOW_TIMEOUT_MS)
        delay = time.monotonic() - written

        print(f"settings page: config.yaml change on screen after {delay * 1000:.0f} ms")
        record_property("settings_page_seconds", round(delay, 3))
        assert page.evaluate("document.documentElement.dataset.liveMode") == "stream"  # pushed, not polled
        keep_for_docs(screenshot(page, "settings-page-pushed"), issue=17)
