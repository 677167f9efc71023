"""Every file shape the agent writes reads as well as 0.19.0's (docs/history.md): each Sessions page
and API route answers, search finds every text the agent shows, secrets are found wherever the
agent keeps them, hidden sessions stay out unless asked for."""

from __future__ import annotations

import json
import sqlite3

import pytest

from admin_panel.models import AuditEntry
from admin_panel.selectors import sessions as selectors
from memory_core import caching
from memory_core.history import open_history
from memory_core.history.db import CJK_ABSENT, CJK_UNLOADABLE
from tests.sessions import shapes

pytestmark = pytest.mark.django_db


@pytest.fixture(params=shapes.SHAPES)
def shaped(request, home):
    caching.clear_all()
    shapes.build(home, request.param)
    (home / ".env").write_text(f"OPENAI_API_KEY={shapes.SECRET}\n")
    yield request.param
    caching.clear_all()


def _session_ids(shape: str) -> list[str]:
    ids = [shapes.EN, shapes.CJK, shapes.TOOL, shapes.CRON, shapes.SUB, shapes.COMP, shapes.REW, shapes.PROMPT]
    if shape != "0.19.0":
        ids += [shapes.HID, shapes.PIN, shapes.CAR]
    return ids


def test_it_answers_every_sessions_page_and_api_route_without_an_error(shaped, owner_client):
    pages = ["/sessions/", "/sessions/?order=recent", "/sessions/?q=quokka", "/sessions/?q=大别山",
             "/sessions/?hidden=1&hidden_sessions=1", "/sessions/secrets/"]
    api = ["/api/sessions", "/api/sessions?full=1&limit=-1", "/api/sessions?order=recent",
           "/api/sessions?include_hidden=1", "/api/sessions/search?q=quokka", "/api/sessions/search?q=桂林",
           "/api/sessions/stats"]
    for session_id in _session_ids(shaped):
        pages += [f"/sessions/{session_id}/", f"/sessions/{session_id}/?all=1",
                  f"/sessions/{session_id}/export/?format=markdown", f"/sessions/{session_id}/export/?format=json"]
        api += [f"/api/sessions/{session_id}", f"/api/sessions/{session_id}/messages",
                f"/api/sessions/{session_id}/export"]
    for url in pages:
        response = owner_client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        if "format=json" in url:
            payload = json.loads(response.content)
            assert payload["id"] and "display_identity" not in json.dumps(payload)
    for url in api:
        response = owner_client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        body = response.json()
        assert "display_identity" not in json.dumps(body)


def test_it_exports_a_v30_session_and_audits_it_once_it_was_produced(shaped, owner_client):
    before = AuditEntry.objects.filter(kind=AuditEntry.Kind.SESSION_EXPORT).count()
    payload = owner_client.get(f"/api/sessions/{shapes.EN}/export").json()
    contents = [m["content"] for m in payload["messages"]]
    assert contents[:2] == ["How do quokka containers talk during the migration?",
                            "They share a velvet thunder bridge network."]
    panel = owner_client.get(f"/sessions/{shapes.EN}/export/?format=json")
    assert json.loads(panel.content)["id"] == shapes.EN
    assert AuditEntry.objects.filter(kind=AuditEntry.Kind.SESSION_EXPORT).count() == before + 2


def test_it_records_no_export_when_the_export_failed(shaped, owner_client, monkeypatch):
    def broken(payload):
        raise ValueError("cannot render")

    monkeypatch.setattr(selectors, "export_markdown", broken)
    before = AuditEntry.objects.filter(kind=AuditEntry.Kind.SESSION_EXPORT).count()
    owner_client.raise_request_exception = False
    response = owner_client.get(f"/sessions/{shapes.EN}/export/?format=markdown")
    assert response.status_code == 500
    assert AuditEntry.objects.filter(kind=AuditEntry.Kind.SESSION_EXPORT).count() == before


@pytest.mark.parametrize(("kind", "query", "expected"), shapes.MATRIX, ids=[m[0] for m in shapes.MATRIX])
def test_it_finds_every_shown_text_in_every_shape(shaped, owner_client, kind, query, expected):
    results = owner_client.get("/api/sessions/search", {"q": query}).json()["results"]
    assert {r["session_id"] for r in results} == expected, kind


def test_it_leaves_hidden_sessions_out_unless_asked(shaped, owner_client):
    if shaped == "0.19.0":  # no hidden sessions: the filter changes nothing
        listed = owner_client.get("/api/sessions?limit=-1").json()["sessions"]
        assert listed == owner_client.get("/api/sessions?limit=-1&include_hidden=1").json()["sessions"]
        return
    listed = {r["id"] for r in owner_client.get("/api/sessions?limit=-1").json()["sessions"]}
    assert shapes.HID not in listed and shapes.PIN in listed
    shown = {r["id"] for r in owner_client.get("/api/sessions?limit=-1&include_hidden=1").json()["sessions"]}
    assert shapes.HID in shown
    assert owner_client.get("/api/sessions/search", {"q": "ocelot"}).json()["results"] == []
    found = owner_client.get("/api/sessions/search", {"q": "ocelot", "include_hidden": "1"}).json()["results"]
    assert [r["session_id"] for r in found] == [shapes.HID]
    page = owner_client.get("/sessions/").content.decode()
    assert "Hidden one" not in page and "Pinned one" in page and "pinned" in page
    assert "Hidden one" in owner_client.get("/sessions/?hidden_sessions=1").content.decode()
    assert "Hidden one" not in owner_client.get("/sessions/?q=ocelot").content.decode()
    assert "Hidden one" in owner_client.get("/sessions/?q=ocelot&hidden_sessions=1").content.decode()


def test_it_finds_and_masks_a_secret_kept_in_the_system_prompts_table(shaped, owner_client, home):
    if shaped != "0.19.0":  # where the agent keeps it: by hash, the session's own column empty
        conn = sqlite3.connect(home / "state.db")
        row = conn.execute("SELECT system_prompt, system_prompt_hash FROM sessions WHERE id = ?",
                           (shapes.PROMPT,)).fetchone()
        conn.close()
        assert row[0] is None and row[1]
    page = owner_client.get("/sessions/secrets/").content.decode()
    assert shapes.PROMPT in page and "OPENAI_API_KEY" in page
    detail = owner_client.get(f"/api/sessions/{shapes.PROMPT}").json()
    assert "You are helpful. Use key" in detail["system_prompt"]
    assert shapes.SECRET not in json.dumps(detail)
    listed = owner_client.get("/api/sessions?full=1&limit=-1").content.decode()
    assert shapes.SECRET not in listed and "Use key" in listed


def test_it_orders_by_the_activity_heartbeat_and_shows_previews_without_scaffolding(shaped, owner_client):
    rows = owner_client.get("/api/sessions?order=recent&limit=-1").json()["sessions"]
    preview = {r["id"]: r["preview"] for r in rows}
    assert preview[shapes.EN] == "How do quokka containers talk during the migration?"
    if shaped != "0.19.0":
        assert rows[0]["id"] == shapes.PIN and rows[0]["pinned"] == 1 and rows[0]["title_source"] == "user"


def test_it_shows_the_transcript_as_the_agent_does(shaped, owner_client):
    compacted = owner_client.get(f"/sessions/{shapes.COMP}/").content.decode()
    assert "Earlier walrus question" in compacted
    rewound = owner_client.get(f"/sessions/{shapes.REW}/").content.decode()
    assert "Rewound narwhal" not in rewound
    assert "Rewound narwhal" in owner_client.get(f"/sessions/{shapes.REW}/?all=1").content.decode()
    if shaped == "0.19.0":
        return
    en = owner_client.get(f"/sessions/{shapes.EN}/").content.decode()
    assert "SCAFFOLD" not in en
    carried = owner_client.get(f"/sessions/{shapes.CAR}/").content.decode()
    assert carried.count("Carried tail tapir") == 1 and carried.count("Carried tail answer") == 1
    everything = owner_client.get(f"/sessions/{shapes.CAR}/?all=1").content.decode()
    assert everything.count("Carried tail tapir") == 2
    assert "superseded copy" in everything and ">rewound<" not in everything


def test_it_says_which_release_wrote_the_file_and_what_the_panel_cannot_use(shaped, home):
    with open_history(home) as history:
        caps = history.caps
    page = selectors.sessions_page(home=home, filters=selectors.PageFilters())
    if shaped == "0.19.0":
        assert caps.version == 22 and not caps.fts_columns and caps.tool_prefix is None
        assert page["notices"] == []
    elif shaped == "v30-upgraded":
        assert not caps.fts_columns and caps.tool_prefix == 8192 and not caps.trigram_partial
        assert "release_v30_upgraded" in page["notices"] and caps.cjk == CJK_ABSENT
    else:
        assert caps.fts_columns and caps.tool_prefix == 8192 and caps.trigram_partial
        assert "release_v30" in page["notices"]
    if shaped == "v30-no-cjk-tokenizer":
        assert caps.cjk == CJK_UNLOADABLE and "cjk_unloadable" in page["notices"]


def test_it_tells_the_user_in_chinese_that_chinese_word_search_scans(home, owner_client):
    shapes.build(home, "v30-no-cjk-tokenizer")
    english = owner_client.get("/sessions/").content.decode()
    assert "Chinese word search uses the slower scan" in english
    chinese = owner_client.get("/sessions/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "Chinese word search uses the slower scan" not in chinese


def test_it_counts_sessions_for_the_profiles_overview_as_the_list_does(shaped, home, owner_client):
    activity = selectors.session_activity(home=home)
    listed = owner_client.get("/api/sessions?limit=-1").json()
    assert activity.state is None and activity.count == listed["total"]
    if shaped != "0.19.0":  # the hidden session is not counted; the heartbeat is the latest activity
        assert activity.last_active.timestamp() == shapes.T0 + 30 * 86400


def test_it_scans_the_rows_a_backfill_has_not_indexed_yet(home, owner_client):
    shapes.build(home, "v30")
    conn = sqlite3.connect(home / "state.db", isolation_level=None)
    conn.execute("INSERT INTO sessions(id, source, started_at) VALUES ('20260120_100000_kkkkkk', 'cli', ?)",
                 (shapes.T0 + 19 * 86400,))
    row_id = conn.execute("INSERT INTO messages(session_id, role, content, timestamp) VALUES"
                          " ('20260120_100000_kkkkkk', 'user', 'backfill okapi 回填中的消息', ?)",
                          (shapes.T0 + 19 * 86400 + 1,)).lastrowid
    # As while the agent rebuilds: the row is in messages but not yet in either index.
    conn.execute("INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)"
                 " VALUES ('delete', ?, 'backfill okapi 回填中的消息', NULL, NULL)", (row_id,))
    conn.execute("INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name)"
                 " VALUES ('delete', ?, 'backfill okapi 回填中的消息', NULL)", (row_id,))
    conn.executemany("INSERT INTO state_meta(key, value) VALUES (?, ?)",
                     [("fts_rebuild_high_water", str(row_id)), ("fts_rebuild_progress", str(row_id - 1))])
    conn.close()
    for query in ("okapi", "回填中的消息", "回填"):
        results = owner_client.get("/api/sessions/search", {"q": query}).json()["results"]
        assert [r["session_id"] for r in results] == ["20260120_100000_kkkkkk"], query
    assert "still rebuilding its search index" in owner_client.get("/sessions/").content.decode()
