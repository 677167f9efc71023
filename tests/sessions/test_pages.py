"""The Sessions pages on a hand-built state.db: list, filters, search, transcript, export, states."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from admin_panel.models import AuditEntry
from tests.sessions import fixture as fx

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(home):
    return fx.build(home)


def test_it_lists_listable_sessions_newest_first_without_hidden_sources(viewer_client, history):
    html = viewer_client.get("/sessions/").content.decode()
    assert "中文聊天" in html and "Kubernetes migration #2" in html
    assert html.index("中文聊天") < html.index("Docker networking")
    assert "tool run about docker" not in html and "Archived talk" not in html


def test_it_shows_hidden_sources_and_archived_sessions_on_request(viewer_client, history):
    html = viewer_client.get("/sessions/?hidden=1&archived=include").content.decode()
    assert "tool run about docker" in html and "Subagent task" in html and "Archived talk" in html


def test_it_filters_by_source_and_date(viewer_client, history):
    html = viewer_client.get("/sessions/?source=telegram&from=2026-01-05&to=2026-01-05").content.decode()
    assert "中文聊天" in html and "Kubernetes" not in html


def test_it_searches_and_links_to_the_hit_message(viewer_client, history):
    html = viewer_client.get("/sessions/?q=漓江").content.decode()
    # The link carries the search, so the transcript marks the searched words in that message.
    hit = history.ids["f3"]
    assert f"/sessions/{fx.F}/?hit={hit}&amp;q={quote('漓江')}#m-{hit}" in html
    assert "<mark>" not in html  # the LIKE path has no markers
    html = viewer_client.get("/sessions/?q=kubern").content.decode()
    assert "<mark>kubernetes</mark>" in html


def test_it_says_when_a_query_cannot_be_understood(viewer_client, history):
    html = viewer_client.get("/sessions/?q=don%27t").content.decode()
    assert "could not understand this query" in html


def test_it_answers_htmx_with_the_results_fragment_only(viewer_client, history):
    html = viewer_client.get("/sessions/?q=docker", headers={"HX-Request": "true"}).content.decode()
    assert html.lstrip().startswith('<section id="session-results"')


def test_it_opens_a_hit_in_its_own_segment_and_page(viewer_client, history):
    hit = history.ids["b1"]
    response = viewer_client.get(f"/sessions/{fx.C}/?hit={hit}")
    assert response.status_code == 302
    assert response["Location"] == f"/sessions/{fx.B}/?page=1&hit={hit}#m-{hit}"
    html = viewer_client.get(response["Location"]).content.decode()
    assert f'id="m-{hit}" class="turn turn--user turn--hit"' in html
    assert f"/sessions/{fx.C}/" in html  # the continuation link


def test_it_shows_a_rewound_hit_with_inactive_messages(viewer_client, history):
    hit = history.ids["e3"]
    response = viewer_client.get(f"/sessions/{fx.E}/?hit={hit}")
    assert "all=1" in response["Location"]
    html = viewer_client.get(response["Location"]).content.decode()
    assert "rewound" in html and "撤回的广西问题" in html
    assert "撤回的广西问题" not in viewer_client.get(f"/sessions/{fx.E}/").content.decode()


def test_it_collapses_tool_calls_with_formatted_arguments(viewer_client, history):
    html = viewer_client.get(f"/sessions/{fx.A}/").content.decode()
    assert "Tool call: memory" in html
    assert "&quot;action&quot;: &quot;add&quot;,\n" in html
    assert "Result of memory" in html
    assert f"/sessions/{fx.J}/" in html and f"/sessions/{fx.G}/" in html


def test_it_pages_long_transcripts(viewer_client, home):
    from memory_core.history.schema import create_state_db, insert_message, insert_session

    conn = create_state_db(home / "state.db")
    insert_session(conn, id="long", source="cli", started_at=fx.T0)
    for n in range(230):
        insert_message(conn, session_id="long", role="user", content=f"message number {n}", timestamp=fx.T0 + n)
    conn.close()
    first = viewer_client.get("/sessions/long/").content.decode()
    assert "message number 99<" in first and "message number 100<" not in first and "Page 1 of 3" in first
    third = viewer_client.get("/sessions/long/?page=3").content.decode()
    assert "message number 229<" in third


def test_it_exports_markdown_and_json_and_audits_each(viewer_client, history):
    md = viewer_client.get(f"/sessions/{fx.A}/export/?format=markdown")
    assert md["Content-Disposition"] == f'attachment; filename="session-{fx.A}.md"'
    assert md.content.decode().startswith("# Docker networking")
    data = json.loads(viewer_client.get(f"/sessions/{fx.A}/export/?format=json").content)
    assert data["id"] == fx.A and len(data["messages"]) == 4
    formats = list(AuditEntry.objects.filter(kind="session_export").order_by("pk").values_list("details", flat=True))
    assert formats == [{"session_id": fx.A, "format": "markdown"}, {"session_id": fx.A, "format": "json"}]


def test_it_refuses_other_users_and_anonymous_visitors(client, other_user, history):
    assert client.get("/sessions/").status_code == 302
    client.force_login(other_user)
    for url in ("/sessions/", f"/sessions/{fx.A}/", "/sessions/secrets/", f"/sessions/{fx.A}/export/"):
        assert client.get(url).status_code == 403


def test_it_answers_an_unknown_session_with_404(viewer_client, history):
    assert viewer_client.get("/sessions/nope/").status_code == 404


def test_it_truncates_long_messages_behind_show_all(viewer_client, home):
    from memory_core.history.schema import create_state_db, insert_message, insert_session

    conn = create_state_db(home / "state.db")
    insert_session(conn, id="long", source="cli", started_at=fx.T0)
    insert_message(conn, session_id="long", role="user", content="a" * 1500 + "TAIL-OF-THE-MESSAGE", timestamp=fx.T0)
    conn.close()
    html = viewer_client.get("/sessions/long/").content.decode()
    head, _, rest = html.partition("<details><summary>Show all</summary>")
    assert "a" * 1500 in head and "TAIL-OF-THE-MESSAGE" not in head
    assert rest.startswith("TAIL-OF-THE-MESSAGE</details>")
