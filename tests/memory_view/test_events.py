"""The change streams: who may open them, and what they carry (a fingerprint, nothing else)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memory_core import add_entry
from tests.event_streams import (
    FINGERPRINT_LINE,
    OpenStream,
    assert_only_a_fingerprint,
    assert_sent_to_sign_in_with_no_data,
    stream_body,
)
from tests.faults.panel import Browser, prepare_panel, serve
from tests.memory_view.helpers import write_store
from tests.preview.conftest import NOTES_SCHEMA, make_plugin

STREAMS = ("/memory/events/", "/schema-preview/events/?choice=plugin%3Anotes")
SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c"


@pytest.mark.django_db
@pytest.mark.parametrize("url", STREAMS)
def test_it_sends_an_anonymous_stream_to_sign_in_with_no_data(client, home, url):
    make_plugin(home, "notes", NOTES_SCHEMA)

    response = client.get(url)

    assert_sent_to_sign_in_with_no_data(response)


@pytest.mark.django_db
def test_it_refuses_a_viewer_the_schema_preview_stream_with_no_data(viewer_client, home):
    make_plugin(home, "notes", NOTES_SCHEMA)

    response = viewer_client.get(STREAMS[1])

    assert response.status_code == 403
    assert b"data:" not in stream_body(response)
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.django_db
def test_it_refuses_a_signed_in_user_without_a_role_the_memory_stream(client, other_user, home):
    client.force_login(other_user)

    response = client.get(STREAMS[0])

    assert response.status_code == 403
    assert b"data:" not in stream_body(response)


@pytest.mark.django_db
def test_it_gives_a_viewer_the_memory_stream_with_only_the_fingerprint(viewer_client, home):
    write_store(home, "memory", [f"The deploy key is {SECRET}."])

    response = viewer_client.get(STREAMS[0])
    assert_only_a_fingerprint(response, SECRET, "deploy key")


# --- on the real server (ASGI): a stream that stays open ------------------------------------------


@pytest.fixture
def real_panel(tmp_path: Path):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    write_store(home, "memory", ["The build uses uv."])
    (home / ".env").write_text(f"HINDSIGHT_API_KEY={SECRET}\n", encoding="utf-8")
    with serve(home=home, data_dir=data) as server:
        browser = Browser(f"http://127.0.0.1:{server.port}")
        browser.sign_in()
        server.home, server.data_dir = home, data
        server.cookie = "; ".join(f"{c.name}={c.value}" for c in browser.jar)
        yield server


@pytest.mark.slow
def test_it_pushes_a_new_fingerprint_on_a_write_and_never_the_entry_text_or_a_secret(real_panel):
    stream = OpenStream(real_panel.port, STREAMS[0], real_panel.cookie)
    try:
        assert stream.response.status == 200
        first = stream.next_event()
        assert first[0].startswith("retry: ")
        assert FINGERPRINT_LINE.match(first[1])

        add_entry(home=real_panel.home, target="memory", content=f"Rotate {SECRET} every Friday.")
        second = stream.next_event()
    finally:
        stream.close()

    assert len(second) == 1 and FINGERPRINT_LINE.match(second[0]), second
    assert second[0] != first[1]
    assert SECRET not in "".join(first + second) and "Rotate" not in "".join(first + second)


@pytest.mark.slow
def test_it_ends_the_stream_of_an_account_deactivated_while_it_is_open(real_panel):
    stream = OpenStream(real_panel.port, STREAMS[0], real_panel.cookie)
    try:
        stream.next_event()
        with sqlite3.connect(real_panel.data_dir / "panel.sqlite3") as database:
            database.execute("UPDATE auth_user SET is_active = 0 WHERE username = 'owner'")

        add_entry(home=real_panel.home, target="memory", content="Written after the account was revoked.")
        event = stream.next_event()
        rest = stream.response.read()
    finally:
        stream.close()

    assert event == ["event: end", "data: "]
    assert b"data: " not in rest.replace(b"data: \n", b"")
