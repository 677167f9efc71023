"""The People page: every account with its role, invitations, role changes, deactivation and reset
links; the last active admin is protected; everything is audited."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from admin_panel.models import ApiToken, AuditEntry, token_digest
from admin_panel.permissions import ADMIN, VIEWER, VIEWERS_GROUP, role_of
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LINK = re.compile(r'value="(http://testserver/accounts/(?:invitation|reset)/([^/"]+)/)"')


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _token_client(user, token: str = "a-token-for-the-test-0123456789") -> Client:
    ApiToken.objects.create(name="t", token_digest=token_digest(token), user=user)
    return Client(HTTP_X_HERMES_SESSION_TOKEN=token)


def test_it_creates_the_viewers_group_in_a_migration():
    assert Group.objects.filter(name=VIEWERS_GROUP).exists()


def test_it_lists_every_account_with_role_status_last_sign_in_and_token_count(home, owner_client, owner, viewer):
    _token_client(viewer)
    viewer.is_active = False
    viewer.save()

    html = owner_client.get("/people/").content.decode()

    people = owner_client.get("/people/").context["people"]
    assert [(p.username, p.role, p.is_active, p.token_count) for p in people] == [
        ("owner", ADMIN, True, 0), ("viewer", VIEWER, False, 1)]
    assert "deactivated" in html and "Reactivate" in html


def test_it_shows_people_in_the_navigation_to_admins_only(home, owner, viewer):
    owner_client, viewer_client = _signed_in(owner), _signed_in(viewer)
    assert "/people/" in [item["url"] for item in owner_client.get("/").context["nav_items"]]
    assert "/people/" not in [item["url"] for item in viewer_client.get("/").context["nav_items"]]
    assert viewer_client.get("/people/").status_code == 403


def test_it_shows_who_is_signed_in_with_which_role(home, owner, viewer):
    owner_client, viewer_client = _signed_in(owner), _signed_in(viewer)
    assert "Signed in as owner (Admin)" in owner_client.get("/").content.decode()
    assert "Signed in as viewer (Viewer)" in viewer_client.get("/").content.decode()


def test_it_shows_an_invitation_link_once_and_stores_only_its_digest(home, owner_client):
    response = owner_client.post("/people/invite/", {"role": "viewer"})

    html = response.content.decode()
    url, token = LINK.search(html).groups()
    assert response["Cache-Control"].startswith("no-store") or "no-store" in response["Cache-Control"]
    assert "data-copy-target" in html
    assert token not in owner_client.get("/people/").content.decode()
    assert token not in str(list(AuditEntry.objects.values()))
    entry = AuditEntry.objects.get(kind=AuditEntry.Kind.INVITATION)
    assert entry.username == "owner" and entry.details["role"] == "viewer"
    assert Client().get(url).status_code == 302


def test_it_refuses_an_invitation_with_an_unknown_role(home, owner_client):
    response = owner_client.post("/people/invite/", {"role": "superuser"})

    assert response.status_code == 400
    assert not AuditEntry.objects.filter(kind=AuditEntry.Kind.INVITATION).exists()


def test_it_asks_before_demoting_an_admin_and_then_demotes(home, owner_client, django_user_model):
    ops = django_user_model.objects.create_user(username="ops", password=PASSWORD, is_staff=True)

    asked = owner_client.post(f"/people/{ops.pk}/role/", {"role": "viewer"})
    ops.refresh_from_db()
    assert asked.status_code == 200 and "Make ops a Viewer?" in asked.content.decode()
    assert role_of(ops) == ADMIN

    done = owner_client.post(f"/people/{ops.pk}/role/", {"role": "viewer", "confirmed": "1"})

    ops.refresh_from_db()
    assert done.status_code == 302 and role_of(ops) == VIEWER
    assert not ops.is_superuser and ops.groups.filter(name=VIEWERS_GROUP).exists()
    entry = AuditEntry.objects.get(kind=AuditEntry.Kind.ROLE)
    assert entry.details == {"account": "ops", "old": "admin", "new": "viewer"}


def test_it_promotes_a_viewer_without_asking_and_gives_exactly_one_role(home, owner_client, viewer):
    response = owner_client.post(f"/people/{viewer.pk}/role/", {"role": "admin"})

    viewer.refresh_from_db()
    assert response.status_code == 302
    assert role_of(viewer) == ADMIN and not viewer.groups.filter(name=VIEWERS_GROUP).exists()


def test_it_never_demotes_or_deactivates_the_last_active_admin(home, owner_client, owner, viewer):
    demoted = owner_client.post(f"/people/{owner.pk}/role/", {"role": "viewer", "confirmed": "1"})
    deactivated = owner_client.post(f"/people/{owner.pk}/deactivate/", {"confirmed": "1"})

    owner.refresh_from_db()
    assert demoted.status_code == 409 and deactivated.status_code == 409
    assert "This is the last active admin" in demoted.content.decode()
    assert "This is the last active admin" in deactivated.content.decode()
    assert role_of(owner) == ADMIN and owner.is_active
    assert not AuditEntry.objects.filter(kind__in=[AuditEntry.Kind.ROLE, AuditEntry.Kind.ACCESS]).exists()


def test_it_counts_only_active_admins_when_protecting_the_last_one(home, owner_client, owner, django_user_model):
    django_user_model.objects.create_user(username="gone", password=PASSWORD, is_staff=True, is_active=False)

    assert owner_client.post(f"/people/{owner.pk}/deactivate/", {"confirmed": "1"}).status_code == 409


def test_it_asks_before_deactivating(home, owner_client, viewer):
    asked = owner_client.post(f"/people/{viewer.pk}/deactivate/")

    viewer.refresh_from_db()
    assert asked.status_code == 200 and "Deactivate viewer?" in asked.content.decode()
    assert viewer.is_active


def test_it_stops_a_deactivated_users_session_and_token_on_the_next_request(home, owner_client, viewer):
    session = _signed_in(viewer)
    token = _token_client(viewer)
    assert session.get("/providers/").status_code == 200
    assert token.get("/api/memory").status_code == 200

    owner_client.post(f"/people/{viewer.pk}/deactivate/", {"confirmed": "1"})

    assert session.get("/providers/").status_code == 302  # to the sign-in page
    assert token.get("/api/memory").status_code == 401
    assert not Client().login(username="viewer", password=PASSWORD)
    entry = AuditEntry.objects.get(kind=AuditEntry.Kind.ACCESS)
    assert entry.details == {"action": "deactivate", "account": "viewer", "role": "viewer", "sessions_ended": 1}


def test_it_lets_a_reactivated_user_sign_in_again(home, owner_client, viewer):
    owner_client.post(f"/people/{viewer.pk}/deactivate/", {"confirmed": "1"})

    owner_client.post(f"/people/{viewer.pk}/activate/")

    assert Client().login(username="viewer", password=PASSWORD)
    assert [e.details["action"] for e in AuditEntry.objects.filter(kind=AuditEntry.Kind.ACCESS).order_by("pk")] == [
        "deactivate", "activate"]


def test_it_issues_a_one_time_password_reset_link(home, owner_client, viewer):
    response = owner_client.post(f"/people/{viewer.pk}/reset-link/")

    url, token = LINK.search(response.content.decode()).groups()
    assert "/accounts/reset/" in url
    browser = Client()
    assert browser.get(url).status_code == 302
    assert browser.post("/accounts/reset/", {"new_password1": "a brand new passphrase",
                                             "new_password2": "a brand new passphrase"}).status_code == 302
    viewer.refresh_from_db()
    assert viewer.check_password("a brand new passphrase")
    assert AuditEntry.objects.filter(kind=AuditEntry.Kind.RESET_LINK, username="owner").exists()
    assert token not in str(list(AuditEntry.objects.values()))


@pytest.mark.parametrize("path", ["/people/invite/", "/people/{pk}/role/", "/people/{pk}/deactivate/",
                                  "/people/{pk}/activate/", "/people/{pk}/reset-link/"])
def test_it_refuses_every_people_action_to_a_viewer(home, viewer_client, owner, path):
    response = viewer_client.post(path.format(pk=owner.pk), {"role": "viewer", "confirmed": "1"})

    owner.refresh_from_db()
    assert response.status_code == 403
    assert role_of(owner) == ADMIN and owner.is_active
    assert not AuditEntry.objects.exists()
