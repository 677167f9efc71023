"""The audit log page: who changed what, filters, pages, exports, and nothing secret in it."""

from __future__ import annotations

import csv
import io
import json

import pytest

from admin_panel.models import AuditEntry
from admin_panel.services import providers as provider_services
from admin_panel.services.audit import record

pytestmark = pytest.mark.django_db

MARKER_SECRET = "hs-marker-SECRET-4711-do-not-leak"


def _entry(home, *, user=None, kind=AuditEntry.Kind.PROVIDER_SETTINGS, provider="hindsight", summary="Saved",
           **details):
    return record(user=user, channel="panel" if user else "command", home=home, kind=kind, provider=provider,
                  summary=summary, details=details or None)


def _export(client, query: str) -> str:
    response = client.get(f"/audit/?{query}")
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode("utf-8")


def test_it_lists_changes_newest_first_with_who_and_what(owner_client, owner, home):
    _entry(home, user=owner, summary="first change")
    _entry(home, summary="second change by a command")

    response = owner_client.get("/audit/")

    html = response.content.decode()
    assert response.status_code == 200
    assert html.index("second change by a command") < html.index("first change")
    assert "owner" in html
    assert "2 changes" in html


def test_it_filters_by_provider_kind_and_user_with_plain_get_parameters(owner_client, owner, viewer, home):
    _entry(home, user=owner, provider="hindsight", summary="owner hindsight")
    _entry(home, user=owner, provider="mem0", summary="owner mem0")
    _entry(home, user=viewer, kind=AuditEntry.Kind.ACTIVATION, provider="mem0", summary="viewer activation")
    _entry(home, kind=AuditEntry.Kind.MEMORY_ENTRY, provider="", summary="command memory")

    by_provider = owner_client.get("/audit/?provider=mem0").content.decode()
    by_kind = owner_client.get("/audit/?kind=activation").content.decode()
    by_user = owner_client.get("/audit/?user=owner&provider=hindsight").content.decode()
    by_command = owner_client.get("/audit/?user=-").content.decode()

    assert "owner mem0" in by_provider and "viewer activation" in by_provider and "owner hindsight" not in by_provider
    assert "viewer activation" in by_kind and "owner mem0" not in by_kind
    assert "owner hindsight" in by_user and "owner mem0" not in by_user
    assert "command memory" in by_command and "owner hindsight" not in by_command


def test_it_ignores_a_kind_that_does_not_exist_instead_of_failing(owner_client, owner, home):
    _entry(home, user=owner, summary="kept visible")

    response = owner_client.get("/audit/?kind=%3Cscript%3E&provider=" + "x" * 5000)

    assert response.status_code == 200
    assert "<script>" not in response.content.decode().split("<main", 1)[1]


def test_it_answers_htmx_filter_requests_with_the_results_fragment_only(owner_client, owner, home):
    _entry(home, user=owner, provider="mem0", summary="owner mem0")

    response = owner_client.get("/audit/?provider=mem0", HTTP_HX_REQUEST="true")

    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith("<p id=\"audit-status\"") or 'id="audit-results"' in html
    assert "<html" not in html
    assert 'hx-swap-oob="true"' in html
    assert "owner mem0" in html
    assert response["Vary"] and "HX-Request" in response["Vary"]


def test_it_answers_an_htmx_history_restore_with_the_whole_page(owner_client, owner, home):
    _entry(home, user=owner)

    response = owner_client.get("/audit/", HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true")

    assert "<html" in response.content.decode()


def test_it_pages_through_many_changes(owner_client, home):
    for number in range(60):
        _entry(home, summary=f"change number {number:02d}")

    first = owner_client.get("/audit/").content.decode()
    second = owner_client.get("/audit/?page=2").content.decode()
    beyond = owner_client.get("/audit/?page=999")

    assert "change number 59" in first and "change number 09" not in first
    assert "change number 09" in second and "change number 59" not in second
    assert "Page 2 of 2" in second
    assert beyond.status_code == 200


def test_it_shows_a_viewer_the_log_and_the_details_without_a_revert_button(viewer_client, owner, home):
    entry = _entry(home, user=owner, changes=[{"key": "mode", "location": "hindsight/config.json",
                                              "old": "cloud", "new": "local_external"}])

    listing = viewer_client.get("/audit/")
    detail = viewer_client.get(f"/audit/{entry.pk}/")

    assert listing.status_code == 200
    assert detail.status_code == 200
    assert "Revert this change" not in detail.content.decode()


def test_it_refuses_the_log_to_a_signed_in_user_without_a_role(client, other_user, owner, home):
    entry = _entry(home, user=owner)
    client.force_login(other_user)

    assert client.get("/audit/").status_code == 403
    assert client.get(f"/audit/{entry.pk}/").status_code == 403
    assert client.get("/audit/?format=csv").status_code == 403


def test_it_answers_404_for_an_entry_that_does_not_exist(owner_client, home):
    assert owner_client.get("/audit/999999/").status_code == 404


def test_it_exports_json_lines_that_respect_the_filters(owner_client, owner, home):
    _entry(home, user=owner, provider="mem0", summary="exported", changes=[{"key": "host", "location": "mem0.json",
                                                                          "old": None, "new": "http://x"}])
    _entry(home, user=owner, provider="hindsight", summary="filtered out")

    response = owner_client.get("/audit/?provider=mem0&format=jsonl")
    body = b"".join(response.streaming_content).decode()
    records = [json.loads(line) for line in body.splitlines()]

    assert response["Content-Type"].startswith("application/x-ndjson")
    assert response["Content-Disposition"] == 'attachment; filename="audit-log.jsonl"'
    assert [r["summary"] for r in records] == ["exported"]
    assert records[0]["user"] == "owner"
    assert records[0]["details"]["changes"][0]["new"] == "http://x"
    assert set(records[0]) == {"id", "created_at", "user", "channel", "home", "profile", "kind", "provider",
                               "summary", "details"}


def test_it_exports_csv_with_formula_looking_cells_turned_into_text(owner_client, django_user_model, home):
    sneaky = django_user_model.objects.create_user(username="=cmd|' /C calc'!A0", password="x", is_staff=True)
    for summary in ("=HYPERLINK(\"http://evil\")", "+1+1", "-2", "@SUM(A1)", "plain summary"):
        _entry(home, user=sneaky, summary=summary)

    rows = list(csv.reader(io.StringIO(_export(owner_client, "format=csv"))))

    assert rows[0] == ["id", "created_at", "user", "channel", "home", "profile", "kind", "provider", "summary",
                       "details"]
    summaries = [row[8] for row in rows[1:]]
    assert "'=HYPERLINK(\"http://evil\")" in summaries
    assert {"'+1+1", "'-2", "'@SUM(A1)", "plain summary"} <= set(summaries)
    assert all(row[2] == "'=cmd|' /C calc'!A0" for row in rows[1:])
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)


def test_it_answers_an_unknown_export_format_with_400_and_a_message(owner_client, home):
    response = owner_client.get("/audit/?format=xlsx")

    assert response.status_code == 400
    assert "Unknown export format" in response.content.decode()


def test_it_records_a_real_secret_save_as_set_and_replaced_without_the_value(owner_client, owner, home):
    for value in (MARKER_SECRET, MARKER_SECRET + "-2"):
        provider_services.save_provider_settings(user=owner, channel="panel", home=home, name="hindsight",
                                                 values={"api_key": value, "bank_id": "bank-a"})
    entries = list(AuditEntry.objects.filter(kind=AuditEntry.Kind.PROVIDER_SETTINGS).order_by("pk"))

    words = [[row.get("secret") for row in e.details["changes"] if "secret" in row] for e in entries]
    detail = owner_client.get(f"/audit/{entries[-1].pk}/").content.decode()
    exported = _export(owner_client, "format=jsonl") + _export(owner_client, "format=csv")
    listing = owner_client.get("/audit/").content.decode()

    assert words[0] == ["set"] and words[1] == ["replaced"]
    assert "secret replaced" in detail
    assert ".env file" in detail
    for text in (detail, exported, listing, json.dumps([e.details for e in entries]), *[e.summary for e in entries]):
        assert MARKER_SECRET not in text


def test_it_shows_memory_entry_content_as_text_never_as_markup(owner_client, owner, home):
    payload = '<script>alert("x")</script><img src=x onerror=alert(1)> **bold** [link](javascript:alert(1))'
    entry = _entry(home, user=owner, kind=AuditEntry.Kind.MEMORY_ENTRY, provider="",
                   summary="Added an entry to MEMORY.md", action="add", target="memory", content=payload)

    html = owner_client.get(f"/audit/{entry.pk}/").content.decode()

    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "<img src=x" not in html
    assert 'href="javascript:' not in html
    assert "**bold**" in html


def test_it_lists_each_deleted_entry_of_a_multi_delete(owner_client, owner, home):
    entry = _entry(home, user=owner, kind=AuditEntry.Kind.MEMORY_ENTRY, provider="", summary="Deleted 2 entries",
                   action="delete", target="user", content=["first fact", "second fact"])

    html = owner_client.get(f"/audit/{entry.pk}/").content.decode()

    assert "first fact" in html and "second fact" in html


def test_it_shows_an_activation_before_and_after(owner_client, owner, home):
    entry = _entry(home, user=owner, kind=AuditEntry.Kind.ACTIVATION, provider="mem0", summary="Activated mem0",
                   old="", new="mem0")

    html = owner_client.get(f"/audit/{entry.pk}/").content.decode()

    assert "built-in memory only" in html and "<strong>mem0</strong>" in html
