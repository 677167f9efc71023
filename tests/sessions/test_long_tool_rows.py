"""Tool rows longer than the prefix v30's main index holds (docs/history.md "Speed"): the read that
finds them runs in the background from ``serve``'s start-up, a search that comes before it is done
still finds text past the cut, and rows the agent writes afterwards are found as they come."""

from __future__ import annotations

import io
import sqlite3
import time

import pytest

from memory_core import caching
from memory_core.history import open_history
from memory_core.history import search as search_module
from tests.sessions import shapes

pytestmark = pytest.mark.django_db

V30_SHAPES = ("v30", "v30-upgraded")


@pytest.fixture(autouse=True)
def _fresh_caches():
    caching.clear_all()
    with search_module._LONG_TOOL_LOCK:
        search_module._LONG_TOOL_CACHE.clear()
    yield
    caching.clear_all()


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + 180  # only stops a hang
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


def _long_tool_row_id(home) -> int:
    conn = sqlite3.connect(home / "state.db")
    try:
        return conn.execute("SELECT id FROM messages WHERE role = 'tool' AND length(content) > 8192").fetchone()[0]
    finally:
        conn.close()


def _found(owner_client, query: str) -> set[str]:
    return {r["session_id"] for r in owner_client.get("/api/sessions/search", {"q": query}).json()["results"]}


@pytest.mark.parametrize("shape", V30_SHAPES)
def test_it_finds_text_past_the_cut_while_the_long_rows_are_still_being_read(shape, home, owner_client,
                                                                               monkeypatch):
    shapes.build(home, shape)
    # Every row counts as "a long stretch": the request leaves the read to the background, and the
    # background read is held back, as when a search comes right after start-up.
    monkeypatch.setattr(search_module, "INLINE_ROWS", 0)
    started = []
    monkeypatch.setattr(search_module, "start_warming", lambda path, prefix: started.append(prefix) or True)
    assert _found(owner_client, "zeppelin") == {shapes.TOOL}
    assert _found(owner_client, "长颈鹿饲养") == {shapes.TOOL}
    assert started and set(started) == {8192}
    with search_module._LONG_TOOL_LOCK:
        assert all(scanned == 0 for scanned, _ids in search_module._LONG_TOOL_CACHE.values())


@pytest.mark.parametrize("shape", V30_SHAPES)
def test_it_reads_the_long_tool_rows_in_the_background_when_serve_starts(shape, home, monkeypatch):
    shapes.build(home, shape)
    monkeypatch.setattr(search_module, "WARM_CHUNK", 3)  # several chunks, each recorded as it is read
    long_id = _long_tool_row_id(home)
    assert search_module.warm_history(home) is True

    def known() -> bool:
        with open_history(home) as history:
            monkeypatch.setattr(search_module, "INLINE_ROWS", 0)
            ids, unknown = search_module.long_tool_gap(history, history.caps.tool_prefix)
            return unknown is None and long_id in ids

    _wait_for(known, "the background read reached the newest row")


def test_it_starts_no_background_read_for_a_file_whose_index_holds_every_row(home):
    shapes.build(home, "0.19.0")
    assert search_module.warm_history(home) is False
    assert search_module.warm_history(home / "nowhere") is False


def test_serve_starts_the_background_read_once_it_listens(home, monkeypatch):
    from django.core.management import call_command

    from admin_panel.management.commands import serve
    from admin_panel.services import maintenance

    monkeypatch.setattr(maintenance, "record_budget_on_store_changes", lambda **kw: None)
    calls, events = [], []
    monkeypatch.setattr(search_module, "warm_history", lambda h: calls.append(h) or events.append("warm") or True)
    real_bind = serve.bind_socket
    monkeypatch.setattr(serve, "bind_socket", lambda *a: events.append("listen") or real_bind(*a))

    class Stop(Exception):
        pass

    class Server:
        def __init__(self, config):
            pass

        def run(self, sockets):
            assert events == ["listen", "warm"], "the warm-up starts once the socket listens, before serving"
            for sock in sockets:
                sock.close()
            raise Stop

        threads = 1

    monkeypatch.setattr(serve, "_server_class", lambda: Server)
    with pytest.raises(Stop):
        call_command("serve", "--port", "0", stdout=io.StringIO(), stderr=io.StringIO())
    assert calls == [home]


@pytest.mark.parametrize("shape", V30_SHAPES)
def test_it_finds_a_long_tool_row_the_agent_writes_after_the_first_search(shape, home, owner_client):
    shapes.build(home, shape)
    assert _found(owner_client, "zeppelin") == {shapes.TOOL}
    conn = sqlite3.connect(home / "state.db", isolation_level=None)
    # The agent rewrites a transcript by deleting rows and inserting new ones (never by growing a
    # row in place): new ids, above every id seen so far.
    conn.execute("DELETE FROM messages WHERE session_id = ? AND role = 'tool' AND length(content) > 8192",
                 (shapes.TOOL,))
    conn.execute("INSERT INTO messages(session_id, role, content, tool_name, tool_call_id, timestamp)"
                 " VALUES (?, 'tool', ?, 'terminal', 'call_1', ?)",
                 (shapes.TOOL, shapes.LONG_FILLER + " wombatroo 树袋熊馆", shapes.T0 + 2 * 86400 + 5))
    conn.close()
    caching.clear_all()
    assert _found(owner_client, "wombatroo") == {shapes.TOOL}
    assert _found(owner_client, "zeppelin") == set()


@pytest.mark.parametrize("shape", V30_SHAPES)
def test_it_reads_a_long_tool_row_again_only_for_a_search_its_text_answers(shape, home, owner_client, monkeypatch):
    shapes.build(home, shape)
    long_id = _long_tool_row_id(home)
    scanned_within = []
    real_scan = search_module._fts_scan

    def recording_scan(history, match, within, within_params, *args, **kwargs):
        scanned_within.append((match, within))
        return real_scan(history, match, within, within_params, *args, **kwargs)

    monkeypatch.setattr(search_module, "_fts_scan", recording_scan)
    assert _found(owner_client, "zeppelin") == {shapes.TOOL}
    assert any(str(long_id) in within for _match, within in scanned_within)
    scanned_within.clear()
    # Kept in the panel's own index of long rows: a word the row does not hold reads no long row.
    assert _found(owner_client, "xylophone") == {shapes.TOOL}
    assert not any(str(long_id) in within for _match, within in scanned_within)
    assert _found(owner_client, "zeppelin NOT nonexistentword") == {shapes.TOOL}
