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
