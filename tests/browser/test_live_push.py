"""Live pages on the real server (``manage.py serve``, ASGI): changes are pushed, not polled.

A separate process writes through memory_core (as the running agent does) and the page shows it;
an idle page asks nothing; a hidden tab lets go of its stream and catches up when shown; a page
whose stream is refused falls back to polling. What these tests assert is that the change came
through the stream; how fast depends on the machine, so the delay is only printed and kept in the
test report (bench/live_view.py measures it properly).
"""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from tests.faults.panel import PANEL_PASSWORD, prepare_panel, serve
from tests.memory_view.helpers import read_store, write_store
from tests.memory_view.workers import add_after
from tests.preview.conftest import NOTES_SCHEMA, make_plugin, write_schema

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOW_TIMEOUT_MS = 180_000  # a safety net against a hang only (a loaded machine)


@pytest.fixture
def panel(tmp_path: Path):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    write_store(home, "memory", ["The build uses uv."])
    write_store(home, "user", ["Name: Dana"])
    make_plugin(home, "notes", NOTES_SCHEMA)
    with serve(home=home, data_dir=data) as server:
        server.home = home
        server.base = f"http://127.0.0.1:{server.port}"
        yield server


def _sign_in(page, panel) -> None:
    page.goto(f"{panel.base}/accounts/login/")
    page.get_by_label("Username").fill("owner")
    page.get_by_label("Password").fill(PANEL_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{panel.base}/")


def _wait_streaming(page) -> None:
    page.wait_for_function("() => document.documentElement.dataset.liveMode === 'stream'")


def _write_in_another_process(home: Path, text: str, *, target: str = "memory") -> float:
    """Add an entry from another process; return the moment (monotonic) it is on disk."""
    process = multiprocessing.get_context("spawn").Process(target=add_after, args=(str(home), target, text, 0.0))
    process.start()
    deadline = time.monotonic() + 180
    while text not in read_store(home, target):
        assert time.monotonic() < deadline, f"{text!r} never reached the file"
        time.sleep(0.002)
    on_disk = time.monotonic()
    process.join(timeout=180)
    return on_disk


def _stage_in_another_process(home: Path, summary: str) -> float:
    process = multiprocessing.get_context("spawn").Process(target=_stage, args=(str(home), summary))
    process.start()
    process.join(timeout=180)
    assert process.exitcode == 0
    return time.monotonic()


def _stage(home: str, summary: str) -> None:
    from memory_core.pending import stage

    stage(Path(home), payload={"action": "add", "target": "memory", "content": summary}, summary=summary)


def test_it_pushes_another_process_write_to_the_memory_page(page, panel, record_property):
    _sign_in(page, panel)
    page.goto(f"{panel.base}/memory/")
    _wait_streaming(page)

    on_disk = _write_in_another_process(panel.home, "Pushed to the page by the change feed.")
    page.locator("#entries-memory .entry-text", has_text="Pushed to the page by the change feed.").wait_for(
        state="attached", timeout=SHOW_TIMEOUT_MS)
    delay = time.monotonic() - on_disk

    print(f"memory page: external write on screen after {delay * 1000:.0f} ms")
    record_property("memory_page_seconds", round(delay, 3))
    assert page.evaluate("document.documentElement.dataset.liveMode") == "stream"  # pushed, not polled


def test_it_pushes_a_pending_write_staged_by_another_process(page, panel, record_property):
    _sign_in(page, panel)
    page.goto(f"{panel.base}/memory/pending/")
    _wait_streaming(page)

    staged = _stage_in_another_process(panel.home, "Remember the staging server is blue.")
    page.get_by_text("Remember the staging server is blue.").first.wait_for(timeout=SHOW_TIMEOUT_MS)
    delay = time.monotonic() - staged

    print(f"pending page: staged write on screen after {delay * 1000:.0f} ms")
    record_property("pending_page_seconds", round(delay, 3))
    assert page.evaluate("document.documentElement.dataset.liveMode") == "stream"  # pushed, not polled


def test_it_pushes_a_reload_of_the_schema_preview_when_its_file_is_saved(page, panel, record_property):
    _sign_in(page, panel)
    page.goto(f"{panel.base}/schema-preview/?choice=plugin%3Anotes")
    _wait_streaming(page)
    schema = panel.home / "plugins" / "notes" / "config_schema.py"

    write_schema(schema, NOTES_SCHEMA.replace('"Result limit"', '"Results per search"'))
    saved = time.monotonic()
    page.get_by_text("Results per search").first.wait_for(state="attached", timeout=SHOW_TIMEOUT_MS)
    delay = time.monotonic() - saved

    print(f"schema preview: saved file on screen after {delay * 1000:.0f} ms")
    record_property("schema_preview_seconds", round(delay, 3))
    assert page.evaluate("document.documentElement.dataset.liveMode") == "stream"  # pushed, not polled


def test_it_makes_no_request_for_10_s_while_an_open_page_is_idle(page, panel):
    _sign_in(page, panel)
    requests: list[str] = []
    page.goto(f"{panel.base}/memory/")
    _wait_streaming(page)
    page.on("request", lambda request: requests.append(request.url))

    page.wait_for_timeout(10_000)

    assert requests == []
    assert page.evaluate("document.documentElement.dataset.liveMode") == "stream"


def _set_hidden(page, hidden: bool) -> None:
    page.evaluate(
        """(hidden) => {
          Object.defineProperty(document, 'hidden', {configurable: true, get: () => hidden});
          document.dispatchEvent(new Event('visibilitychange'));
        }""",
        hidden,
    )


def test_it_lets_go_of_the_stream_while_hidden_and_shows_what_changed_when_shown(page, panel):
    _sign_in(page, panel)
    page.goto(f"{panel.base}/memory/")
    _wait_streaming(page)
    streams: list[str] = []
    page.on("request", lambda request: streams.append(request.url) if "/memory/events/" in request.url else None)

    _set_hidden(page, True)
    assert page.evaluate("document.documentElement.dataset.liveMode") == "hidden"
    _write_in_another_process(panel.home, "Written while nobody was looking.")
    page.wait_for_timeout(1000)  # a live page would have shown it by now; a hidden one must not ask at all
    assert page.locator(".entry-text", has_text="Written while nobody was looking.").count() == 0
    assert streams == []

    _set_hidden(page, False)
    page.locator("#entries-memory .entry-text", has_text="Written while nobody was looking.").wait_for(
        state="attached", timeout=SHOW_TIMEOUT_MS)
    assert len(streams) == 1
    _wait_streaming(page)


def test_it_falls_back_to_polling_when_the_stream_is_refused_and_still_updates(page, panel):
    page.route("**/memory/events/**", lambda route: route.fulfill(status=502, body="Bad gateway"))
    _sign_in(page, panel)
    page.goto(f"{panel.base}/memory/")
    page.wait_for_function("() => document.documentElement.dataset.liveMode === 'polling'")

    _write_in_another_process(panel.home, "Seen through the fallback poll.")

    page.locator("#entries-memory .entry-text", has_text="Seen through the fallback poll.").wait_for(
        state="attached", timeout=SHOW_TIMEOUT_MS)


def test_it_polls_when_the_server_refuses_more_streams_after_one_had_worked(page, panel):
    """Too many open streams: the server answers 429. A page whose stream had worked before (a
    server restarted, other tabs opened meanwhile) must not keep retrying with nothing shown: it
    polls, and still shows changes."""
    answers: list[int] = []

    def stream(route) -> None:
        if not answers:  # the first stream delivers once and ends, as after a restart
            answers.append(200)
            route.fulfill(status=200, headers={"Content-Type": "text/event-stream"},
                          body="retry: 1000\ndata: 0000000000000000\n\n")
        else:
            answers.append(429)
            route.fulfill(status=429, headers={"Retry-After": "30", "Content-Type": "text/plain"},
                          body="Too many live-update connections are open.")

    page.route("**/memory/events/**", stream)
    _sign_in(page, panel)
    page.goto(f"{panel.base}/memory/")
    page.wait_for_function("() => document.documentElement.dataset.liveMode === 'polling'")
    assert answers[0] == 200 and 429 in answers

    _write_in_another_process(panel.home, "Seen while streams are refused.")

    page.locator("#entries-memory .entry-text", has_text="Seen while streams are refused.").wait_for(
        state="attached", timeout=SHOW_TIMEOUT_MS)


def test_it_pushes_a_write_to_the_chosen_profile_to_that_profiles_page(page, panel):
    ops = panel.home / "profiles" / "ops"
    write_store(ops, "memory", ["Ops runs the pager."])
    _sign_in(page, panel)
    page.goto(f"{panel.base}/profile/ops/memory/")
    _wait_streaming(page)

    _write_in_another_process(panel.home, "Written to the default profile only.")
    _write_in_another_process(ops, "Pushed to the ops page by the change feed.")
    page.locator("#entries-memory .entry-text", has_text="Pushed to the ops page by the change feed.").wait_for(
        state="attached", timeout=SHOW_TIMEOUT_MS)

    assert "Written to the default profile only." not in page.locator("main").inner_text()
    assert page.evaluate("document.documentElement.dataset.liveMode") == "stream"
