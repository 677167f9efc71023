"""API tokens are checked against the database on every request, however the lookup is done."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from admin_panel.models import ApiToken

pytestmark = pytest.mark.django_db

URL = "/api/memory/providers/hindsight/config?surface=declared"


@pytest.fixture
def token(owner) -> str:
    out = io.StringIO()
    call_command("api_token", "create", "--user", owner.username, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip()


def _get(client, token: str):
    return client.get(URL, HTTP_X_HERMES_SESSION_TOKEN=token)


def test_it_stops_a_revoked_token_on_its_next_request(client, home, token):
    assert _get(client, token).status_code == 200

    ApiToken.objects.update(revoked_at=timezone.now())

    response = _get(client, token)
    assert response.status_code == 401
    assert response.json() == {"detail": "Unauthorized"}


def test_it_stops_the_token_of_a_deactivated_account_on_its_next_request(client, home, token, owner):
    assert _get(client, token).status_code == 200

    owner.is_active = False
    owner.save(update_fields=["is_active"])

    assert _get(client, token).status_code == 401


def test_it_refuses_a_write_when_the_account_lost_staff_and_acts_as_that_account(client, home, token, owner):
    owner.is_staff = owner.is_superuser = False
    owner.save(update_fields=["is_staff", "is_superuser"])

    response = client.put(URL, data='{"values": {"bank_id": "x"}}', content_type="application/json",
                          HTTP_X_HERMES_SESSION_TOKEN=token)

    assert response.status_code == 403


def test_it_records_when_a_token_was_last_used_at_most_once_a_minute(client, home, token):
    assert _get(client, token).status_code == 200
    first = ApiToken.objects.get().last_used_at
    assert first is not None

    assert _get(client, token).status_code == 200
    assert ApiToken.objects.get().last_used_at == first

    ApiToken.objects.update(last_used_at=first - timedelta(minutes=2))
    assert _get(client, token).status_code == 200
    assert ApiToken.objects.get().last_used_at > first - timedelta(minutes=1)


# --- the lookup's answer kept while the database's files are unchanged -------------------------------


@pytest.fixture
def settled_database(monkeypatch):
    """The database's files count as settled however recently they changed (the test database was
    written a moment ago); only their state decides whether a kept lookup is used."""
    from admin_panel import api_auth

    monkeypatch.setattr(api_auth, "_RACY_NS", -3600 * 10**9)
    api_auth._token_cache.clear()
    yield api_auth
    api_auth._token_cache.clear()


def _token_queries(queries) -> list[str]:
    return [query["sql"] for query in queries if "token_digest" in query["sql"]]


@pytest.mark.django_db(transaction=True)
def test_it_reuses_a_token_lookup_while_the_database_is_unchanged(client, home, token, settled_database):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(2):  # the first records last_used_at, a commit: the second reads and keeps
        assert _get(client, token).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert _get(client, token).status_code == 200

    assert _token_queries(queries.captured_queries) == []


@pytest.mark.django_db(transaction=True)
def test_it_reads_the_token_again_once_another_process_revoked_it(client, home, token, settled_database):
    import subprocess
    import sys

    from django.db import connection

    for _ in range(3):  # the last one from the kept lookup
        assert _get(client, token).status_code == 200

    # Another process (a second panel, or `manage.py api_token revoke`) commits the revocation.
    statement = f"UPDATE {ApiToken._meta.db_table} SET revoked_at = '2026-01-01 00:00:00'"  # noqa: S608 - fixed
    script = "import sqlite3, sys; db = sqlite3.connect(sys.argv[1], timeout=180); db.execute(sys.argv[2]); db.commit()"
    subprocess.run([sys.executable, "-c", script, str(connection.settings_dict["NAME"]), statement], check=True,
                   timeout=300)

    response = _get(client, token)
    assert response.status_code == 401
    assert response.json() == {"detail": "Unauthorized"}
