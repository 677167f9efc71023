"""The own account page: role, password, other sessions and the account's own API tokens."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client, override_settings

from admin_panel.middleware import IdleTimeoutMiddleware
from admin_panel.models import ApiToken, AuditEntry, token_digest
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "an entirely new passphrase"
TOKEN = re.compile(r'id="new-token" value="([^"]+)"')


def _signed_in(user) -> Client:
    client = Client()
    assert client.login(username=user.get_username(), password=PASSWORD)
    return client


@pytest.mark.parametrize(("persona", "role"), [("owner", "Admin"), ("viewer", "Viewer")])
def test_it_shows_the_role_on_the_account_page(home, request, persona, role):
    client = _signed_in(request.getfixturevalue(persona))

    html = client.get("/account/").content.decode()

    assert f"Signed in as {persona}, role: {role}." in html


def test_it_refuses_the_account_page_to_a_user_without_a_role(home, client, other_user):
    client.force_login(other_user)

    assert client.get("/account/").status_code == 403
    assert client.post("/account/tokens/", {"name": "x"}).status_code == 403
    assert not ApiToken.objects.exists()


def test_it_changes_the_password_keeps_this_session_and_ends_the_others(home, viewer):
    here, elsewhere = _signed_in(viewer), _signed_in(viewer)

    response = here.post("/account/password/", {"old_password": PASSWORD, "new_password1": NEW_PASSWORD,
                                                "new_password2": NEW_PASSWORD})

    viewer.refresh_from_db()
    assert response.status_code == 302 and viewer.check_password(NEW_PASSWORD)
    assert here.get("/account/").status_code == 200
    assert elsewhere.get("/account/").status_code == 302
    assert AuditEntry.objects.get(kind=AuditEntry.Kind.ACCOUNT).details == {"action": "password",
                                                                           "account": "viewer"}


def test_it_refuses_a_wrong_current_password_with_a_message_at_the_field(home, viewer):
    client = _signed_in(viewer)

    response = client.post("/account/password/", {"old_password": "wrong", "new_password1": NEW_PASSWORD,
                                                  "new_password2": NEW_PASSWORD})

    viewer.refresh_from_db()
    assert response.status_code == 400 and viewer.check_password(PASSWORD)
    assert 'id="id_old_password_error"' in response.content.decode()


def test_it_signs_out_every_other_session_of_the_account_only(home, owner, viewer):
    here, elsewhere, someone_else = _signed_in(viewer), _signed_in(viewer), _signed_in(owner)

    here.post("/account/sessions/")

    assert here.get("/account/").status_code == 200
    assert elsewhere.get("/account/").status_code == 302
    assert someone_else.get("/account/").status_code == 200
    assert AuditEntry.objects.get(kind=AuditEntry.Kind.ACCOUNT).details["sessions_ended"] == 1


def test_it_shows_a_new_token_once_lists_it_with_its_last_use_and_revokes_it(home, viewer):
    client = _signed_in(viewer)

    created = client.post("/account/tokens/", {"name": "backup script"})

    token = TOKEN.search(created.content.decode()).group(1)
    assert ApiToken.objects.get().token_digest == token_digest(token)
    assert token not in client.get("/account/").content.decode()
    assert "never" in client.get("/account/").content.decode()
    assert Client(HTTP_AUTHORIZATION=f"Bearer {token}").get("/api/memory").status_code == 200
    assert ApiToken.objects.get().last_used_at is not None

    asked = client.post(f"/account/tokens/{ApiToken.objects.get().pk}/revoke/")
    assert asked.status_code == 200 and ApiToken.objects.get().revoked_at is None
    client.post(f"/account/tokens/{ApiToken.objects.get().pk}/revoke/", {"confirmed": "1"})

    assert Client(HTTP_AUTHORIZATION=f"Bearer {token}").get("/api/memory").status_code == 401
    assert [e.details["action"] for e in AuditEntry.objects.filter(kind=AuditEntry.Kind.API_TOKEN).order_by("pk")] \
        == ["create", "revoke"]
    assert token not in str(list(AuditEntry.objects.values()))


def test_it_gives_a_viewer_a_token_that_can_only_read(home, viewer):
    client = _signed_in(viewer)
    token = TOKEN.search(client.post("/account/tokens/", {"name": "reader"}).content.decode()).group(1)
    api = Client(HTTP_X_HERMES_SESSION_TOKEN=token)

    read = api.get("/api/memory")
    write = api.put("/api/memory/providers/hindsight/config", json.dumps({"values": {"bank_id": "nope"}}),
                    content_type="application/json")

    assert read.status_code == 200
    assert write.status_code == 403 and write.json() == {"detail": "Forbidden"}
    assert not (home / "hindsight").exists()


def test_it_refuses_to_revoke_someone_elses_token(home, owner, viewer):
    theirs = ApiToken.objects.create(name="theirs", token_digest=token_digest("x" * 40), user=owner)

    response = _signed_in(viewer).post(f"/account/tokens/{theirs.pk}/revoke/", {"confirmed": "1"})

    theirs.refresh_from_db()
    assert response.status_code == 404 and theirs.revoked_at is None


def test_it_refuses_a_token_without_a_name(home, viewer):
    response = _signed_in(viewer).post("/account/tokens/", {"name": "   "})

    assert response.status_code == 400 and not ApiToken.objects.exists()


# --- idle timeout ------------------------------------------------------------------------------------


def test_it_ends_sessions_after_twelve_idle_hours_by_default(settings):
    assert settings.PANEL_IDLE_TIMEOUT_SECONDS == 12 * 3600
    assert settings.SESSION_COOKIE_AGE == settings.PANEL_IDLE_TIMEOUT_SECONDS


def test_it_pushes_the_expiry_forward_when_a_signed_in_user_is_active(home, owner):
    client = _signed_in(owner)
    session = client.session
    session[IdleTimeoutMiddleware.TOUCHED_KEY] = 0  # last seen long ago
    session.save()

    response = client.get("/")

    assert response.cookies["sessionid"]["max-age"] == 12 * 3600
    assert client.session[IdleTimeoutMiddleware.TOUCHED_KEY] > 0


def test_it_does_not_rewrite_the_session_on_every_request(home, owner):
    client = _signed_in(owner)
    client.get("/")

    again = client.get("/")

    assert "sessionid" not in again.cookies


@override_settings(SESSION_COOKIE_AGE=-1)
def test_it_signs_out_a_session_that_was_idle_longer_than_the_timeout(home, owner):
    client = Client()
    client.force_login(owner)  # saved with an expiry already in the past

    assert client.get("/providers/").status_code == 302
