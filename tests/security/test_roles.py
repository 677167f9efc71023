"""Roles: staff change everything; viewers see every state page and API GET and change nothing;
a signed-in user with neither role gets 403 everywhere."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from admin_panel.models import ApiToken, AuditEntry, token_digest
from tests.security.site import (
    ANY_USER_ROUTES,
    MEMORY_TEXT,
    NON_CHANGING_POSTS,
    OWN_ACCOUNT_ROUTES,
    STAFF_ROUTES,
    VIEWER_PAGES,
    api_routes,
    change_controls,
    page_routes,
    snapshot,
)

pytestmark = pytest.mark.django_db

PAGES = [p for p in page_routes() if p[0] != "logout"]
PAGE_NAMES = {name for name, _route in PAGES}
CHANGE_BODY = {
    "content": "viewer was here", "text": "viewer was here", "values": "x", "bank_id": "viewer-bank",
    "provider": "hindsight", "action": "approve", "ids": "all", "entry": "x", "refs": "memory:x",
    "secret_store": "keyring", "memory_char_limit": "1",
}


def test_it_classifies_every_route_as_a_viewer_page_or_a_staff_route():
    unclassified = PAGE_NAMES - VIEWER_PAGES - STAFF_ROUTES - ANY_USER_ROUTES - OWN_ACCOUNT_ROUTES

    assert not unclassified, f"decide who may use these routes: {sorted(unclassified)}"


@pytest.mark.parametrize(("name", "route"), [p for p in PAGES if p[0] in VIEWER_PAGES])
def test_it_shows_every_state_page_to_a_viewer_without_change_controls(viewer_client, site, name, route):
    response = viewer_client.get(site.url(name, route))

    assert response.status_code == 200, (name, response.status_code)
    assert change_controls(response.content.decode()) == [], name


@pytest.mark.parametrize(("name", "route"), [p for p in PAGES if p[0] not in OWN_ACCOUNT_ROUTES])
def test_it_refuses_every_change_by_a_viewer_and_writes_nothing(viewer_client, site, name, route):
    before = snapshot(site.home)
    entries = AuditEntry.objects.count()

    response = viewer_client.post(site.url(name, route), CHANGE_BODY)
    htmx = viewer_client.post(site.url(name, route), CHANGE_BODY, HTTP_HX_REQUEST="true")

    allowed = {403, 405, 302} if name in NON_CHANGING_POSTS else {403, 405}
    assert response.status_code in allowed, (name, response.status_code)
    assert htmx.status_code in allowed, (name, htmx.status_code)
    assert snapshot(site.home) == before, name
    assert AuditEntry.objects.count() == entries


@pytest.mark.parametrize(("name", "route"), [p for p in PAGES if p[0] in STAFF_ROUTES])
def test_it_refuses_staff_only_pages_to_a_viewer(viewer_client, site, name, route):
    assert viewer_client.get(site.url(name, route)).status_code in {403, 405}, name


@pytest.mark.parametrize(("name", "route"), [p for p in PAGES if p[0] not in ANY_USER_ROUTES])
def test_it_refuses_everything_to_a_signed_in_user_without_a_role(client, other_user, site, name, route):
    client.force_login(other_user)
    before = snapshot(site.home)

    got = client.get(site.url(name, route))
    posted = client.post(site.url(name, route), CHANGE_BODY)

    assert got.status_code in {403, 405}, (name, got.status_code)
    assert posted.status_code in {403, 405}, (name, posted.status_code)
    assert snapshot(site.home) == before


def test_it_shows_a_user_without_a_role_nothing_of_the_agent_home_on_the_landing_page(client, other_user, site):
    client.force_login(other_user)

    html = client.get("/").content.decode()

    assert MEMORY_TEXT.splitlines()[0] not in html
    assert client.post("/").status_code == 405


@pytest.mark.parametrize(("name", "route"), [p for p in PAGES if p[0] in VIEWER_PAGES])
def test_it_shows_every_state_page_to_staff(owner_client, site, name, route):
    assert owner_client.get(site.url(name, route)).status_code == 200, name


# --- API -------------------------------------------------------------------------------------------

API_GETS = ["/api/memory", "/api/memory/providers/hindsight/config", "/api/memory/providers/mytool/config"]
API_PUTS = [
    ("/api/memory/providers/hindsight/config", {"values": {"bank_id": "viewer-bank"}}),
    ("/api/memory/provider", {"provider": "hindsight"}),
]


def _token_client(user) -> Client:
    token = f"token-for-{user.username}-0123456789"
    ApiToken.objects.create(name="test", token_digest=token_digest(token), user=user)
    return Client(HTTP_X_HERMES_SESSION_TOKEN=token)


def test_it_knows_every_api_route():
    assert {name for name, _route in api_routes()} >= {"api_memory", "api_memory_provider", "api_provider_config"}


@pytest.mark.parametrize("url", API_GETS)
def test_it_answers_api_reads_for_a_viewer_by_session_and_by_token(viewer_client, viewer, site, url):
    assert viewer_client.get(url).status_code == 200
    assert _token_client(viewer).get(url).status_code == 200


@pytest.mark.parametrize(("url", "body"), API_PUTS)
def test_it_refuses_api_changes_to_a_viewer_by_session_and_by_token(viewer_client, viewer, site, url, body):
    before = snapshot(site.home)

    by_session = viewer_client.put(url, json.dumps(body), content_type="application/json")
    by_token = _token_client(viewer).put(url, json.dumps(body), content_type="application/json")

    assert by_session.status_code == 403 and by_token.status_code == 403
    assert by_token.json() == {"detail": "Forbidden"}
    assert snapshot(site.home) == before


@pytest.mark.parametrize("url", API_GETS)
def test_it_refuses_api_reads_to_a_user_without_a_role(client, other_user, site, url):
    client.force_login(other_user)

    assert client.get(url).status_code == 403
    assert _token_client(other_user).get(url).status_code == 403


def test_it_accepts_api_changes_from_staff_by_token(owner, site):
    response = _token_client(owner).put("/api/memory/providers/hindsight/config",
                                        json.dumps({"values": {"bank_id": "staff-bank"}}),
                                        content_type="application/json")

    assert response.status_code == 200
    assert json.loads((site.home / "hindsight" / "config.json").read_text())["bank_id"] == "staff-bank"
    assert AuditEntry.objects.order_by("-pk").first().channel == "api"


def test_it_refuses_a_revoked_or_inactive_users_token(owner, site, django_user_model):
    client = _token_client(owner)
    owner.is_active = False
    owner.save()

    assert client.get("/api/memory").status_code == 401


def test_it_links_only_the_pages_each_persona_may_open(owner, viewer, other_user):
    from django.test import Client

    def nav_for(user):
        client = Client()
        client.force_login(user)
        return client.get("/").context["nav_items"]

    owner_nav, viewer_nav, nobody_nav = nav_for(owner), nav_for(viewer), nav_for(other_user)

    assert "/schema-preview/" in [item["url"] for item in owner_nav]
    assert "/schema-preview/" not in [item["url"] for item in viewer_nav]
    assert "/memory/" in [item["url"] for item in viewer_nav]
    assert nobody_nav == []
