"""The read API of the session history (docs/api.md §Session routes and §Deviations from 0.19.0) on a hand-built
state.db."""

from __future__ import annotations

import pytest

from admin_panel.models import AuditEntry
from tests.sessions import fixture as fx

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(home):
    return fx.build(home)


def test_it_lists_the_compressed_conversation_under_its_tip_with_the_roots_start(owner_client, history):
    body = owner_client.get("/api/sessions?source=telegram&offset=1&limit=1").json()
    assert body["total"] == 2 and body["limit"] == 1 and body["offset"] == 1
    (row,) = body["sessions"]
    assert row["id"] == fx.C
    assert row["started_at"] == fx.T0 + 86400 - 3600  # B's start
    assert row["title"] == "Kubernetes migration #2"
    assert row["preview"] == "[summary] kubernetes migration so far"
    assert row["_lineage_root_id"] == fx.B
    assert row["archived"] is False and row["is_active"] is False
    keys = list(row)
    assert keys[:2] == ["id", "source"] and "model_config" not in keys and "system_prompt" not in keys
    assert keys[-4:] == ["last_active", "preview", "_lineage_root_id", "is_active"]


def test_it_never_lists_subagents_and_counts_only_listable_rows(owner_client, history):
    body = owner_client.get("/api/sessions?limit=-1").json()
    ids = [r["id"] for r in body["sessions"]]
    assert fx.G not in ids and fx.I not in ids
    assert fx.T in ids and fx.J in ids
    assert body["total"] == len(ids) == 8
    archived = owner_client.get("/api/sessions?archived=only").json()
    assert [r["id"] for r in archived["sessions"]] == [fx.I]
    assert archived["sessions"][0]["archived"] is True


def test_it_orders_by_recent_activity_across_the_compression_chain(owner_client, history):
    ids = [r["id"] for r in owner_client.get("/api/sessions?order=recent&limit=-1").json()["sessions"]]
    assert ids[:3] == [fx.T, fx.H, fx.F]
    assert ids.index(fx.C) < ids.index(fx.J)


@pytest.mark.parametrize(
    ("query", "status", "detail"),
    [
        ("archived=maybe", 400, "archived must be one of: exclude, only, include"),
        ("order=oldest", 400, "order must be one of: created, recent"),
        ("profile=bad!", 400, "Invalid profile name 'bad!'. Must match [a-z0-9][a-z0-9_-]{0,63}"),
        ("profile=Hermes", 400, "Profile name 'hermes' is reserved — it collides with either the Hermes installation"
                                " itself or a common system binary.  Pick a different name."),
        ("profile=current", 404, "Profile 'current' does not exist."),
        ("profile=%20Work%20", 404, "Profile 'work' does not exist."),
    ],
)
def test_it_refuses_bad_parameters_with_the_agents_wording(owner_client, history, query, status, detail):
    response = owner_client.get(f"/api/sessions?{query}")
    assert response.status_code == status
    assert response.json() == {"detail": detail}


def test_it_answers_unparsable_integers_and_booleans_in_the_framework_form(owner_client, history):
    response = owner_client.get("/api/sessions?limit=abc")
    assert response.status_code == 422
    assert response.json() == {"detail": [{
        "type": "int_parsing", "loc": ["query", "limit"],
        "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "abc"}]}
    assert owner_client.get("/api/sessions?full=2").json()["detail"][0]["type"] == "bool_parsing"
    assert owner_client.get("/api/sessions?full=yes").status_code == 200


def test_it_tags_rows_with_the_profile_and_reads_that_profiles_file(owner_client, home, history):
    work = home / "profiles" / "work"
    work.mkdir(parents=True)
    body = owner_client.get("/api/sessions?profile=work").json()
    assert body == {"sessions": [], "total": 0, "limit": 20, "offset": 0}
    assert not (work / "state.db").exists()  # docs/api.md §Deviations from 0.19.0: nothing created
    tagged = owner_client.get("/api/sessions?profile=Default&limit=1").json()["sessions"][0]
    assert tagged["profile"] == "default" and tagged["is_default_profile"] is True


def test_it_searches_with_prefixes_lineage_dedup_and_the_hit_message(owner_client, history):
    body = owner_client.get("/api/sessions/search?q=kubern").json()
    assert body == {"results": [{
        "snippet": "Plan the >>>kubernetes<<< migration  ", "role": "user", "source": "telegram", "model": "gpt-5",
        "session_started": fx.T0 + 86400 - 3600, "session_id": fx.C, "lineage_root": fx.B,
        "match_message_id": history.ids["b1"]}]}


def test_it_puts_id_matches_first(owner_client, history):
    results = owner_client.get("/api/sessions/search?q=20260101_1000").json()["results"]
    assert results[0]["session_id"] == fx.A and results[0]["role"] is None
    assert results[0]["match_message_id"] is None
    assert results[0]["snippet"] == "How do docker networks talk to each other?"


def test_it_clamps_the_search_limit_and_answers_blank_queries_at_once(owner_client, history):
    assert owner_client.get("/api/sessions/search?q=%20&profile=bad!").json() == {"results": []}
    assert len(owner_client.get("/api/sessions/search?q=docker&limit=-5").json()["results"]) == 1
    assert len(owner_client.get("/api/sessions/search?q=docker&limit=0").json()["results"]) > 1


def test_it_gives_stats_over_every_row(owner_client, history):
    assert owner_client.get("/api/sessions/stats").json() == {
        "total": 11, "active_store": 10, "archived": 1, "messages": 25,
        "by_source": {"tool": 1, "cli": 5, "cron": 1, "telegram": 2}}


def test_it_resolves_a_unique_prefix_and_refuses_an_ambiguous_one(owner_client, history):
    row = owner_client.get("/api/sessions/20260101_1000").json()
    assert row["id"] == fx.A and row["archived"] == 0 and "model_config" in row and "preview" not in row
    response = owner_client.get("/api/sessions/20260101")
    assert response.status_code == 404 and response.json() == {"detail": "Session not found"}
    assert owner_client.get("/api/sessions/20260101_1000?profile=default").json()["profile"] == "default"


def test_it_redirects_messages_to_the_continuation_and_clamps_the_page(owner_client, history):
    body = owner_client.get(f"/api/sessions/{fx.B}/messages?limit=1&offset=2").json()
    assert body["session_id"] == fx.C
    assert body["pagination"] == {"limit": 1, "offset": 2, "returned": 1}
    (message,) = body["messages"]
    assert message["content"] == "Rolling out kubernetes namespaces now." and message["tool_calls"] is None
    assert list(message)[:3] == ["id", "session_id", "role"] and list(message)[-1] == "api_content"
    rewound = owner_client.get(f"/api/sessions/{fx.E}/messages").json()
    assert [m["content"] for m in rewound["messages"]] == ["Keep this docker question", "Kept answer"]
    assert rewound["pagination"]["limit"] is None
    tool = owner_client.get(f"/api/sessions/{fx.A}/messages").json()["messages"][1]
    assert tool["tool_calls"][0]["function"]["name"] == "memory"


def test_it_exports_one_segment_without_redirect_and_audits_it(owner_client, history):
    body = owner_client.get(f"/api/sessions/{fx.E}/export").json()
    assert body["id"] == fx.E and body["message_count"] == 4 and len(body["messages"]) == 2
    assert len(owner_client.get(f"/api/sessions/{fx.B}/export").json()["messages"]) == 2
    entry = AuditEntry.objects.filter(kind=AuditEntry.Kind.SESSION_EXPORT).order_by("pk").first()
    assert entry.details == {"session_id": fx.E, "format": "json"} and entry.channel == "api"


@pytest.mark.parametrize(
    ("method", "path"),
    [("delete", f"/api/sessions/{fx.A}"), ("patch", f"/api/sessions/{fx.A}"), ("post", "/api/sessions/bulk-delete"),
     ("post", "/api/sessions/import"), ("post", "/api/sessions/prune"), ("delete", "/api/sessions/empty"),
     ("post", "/api/sessions/search")],
)
def test_it_offers_no_writing_route(owner_client, history, method, path):
    response = getattr(owner_client, method)(path)
    assert response.status_code == 405
    assert response.json() == {"detail": "Method Not Allowed"}


def test_it_refuses_anonymous_clients_and_lets_viewers_read(client, viewer, history):
    assert client.get("/api/sessions").status_code == 401
    assert client.get("/api/sessions").json() == {"detail": "Unauthorized"}
    client.force_login(viewer)
    assert client.get("/api/sessions").status_code == 200
