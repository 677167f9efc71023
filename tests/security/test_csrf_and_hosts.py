"""CSRF on every change (plain forms, htmx requests, API PUTs made with a session) and host
header validation."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from admin_panel.models import AuditEntry
from tests.security.site import NON_CHANGING_POSTS, page_routes, snapshot

pytestmark = pytest.mark.django_db

POST_ROUTES = [p for p in page_routes() if p[0] != "logout"]


@pytest.fixture
def strict_client(owner) -> Client:
    """A signed-in staff browser whose requests are CSRF-checked like real ones."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    return client


def _token(client: Client) -> str:
    client.get("/")
    return client.cookies["csrftoken"].value


@pytest.mark.parametrize(("name", "route"), POST_ROUTES)
def test_it_refuses_every_post_without_the_csrf_token(strict_client, site, name, route):
    before = snapshot(site.home)
    entries = AuditEntry.objects.count()
    body = {"content": "csrf attack", "bank_id": "attacker", "action": "approve", "pending_id": "all"}

    plain = strict_client.post(site.url(name, route), body)
    htmx = strict_client.post(site.url(name, route), body, HTTP_HX_REQUEST="true")
    _token(strict_client)
    forged = strict_client.post(site.url(name, route), {**body, "csrfmiddlewaretoken": "x" * 64},
                                HTTP_X_CSRFTOKEN="y" * 64, HTTP_HX_REQUEST="true")

    assert plain.status_code in {403, 405}, (name, plain.status_code)
    assert htmx.status_code in {403, 405}, (name, htmx.status_code)
    assert forged.status_code in {403, 405}, (name, forged.status_code)
    assert snapshot(site.home) == before
    assert AuditEntry.objects.count() == entries


def test_it_accepts_an_htmx_post_carrying_the_header_htmx_sends(strict_client, owner, site):
    from admin_panel.services import providers as provider_services

    provider_services.save_provider_settings(user=owner, channel="panel", home=site.home, name="hindsight",
                                             values={"bank_id": "bank-three"})
    entry = AuditEntry.objects.order_by("-pk").first()
    token = _token(strict_client)

    response = strict_client.post(f"/audit/{entry.pk}/revert/", HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=token)

    assert response.status_code == 302
    assert json.loads((site.home / "hindsight" / "config.json").read_text())["bank_id"] == "bank-two"


def test_it_puts_the_csrf_header_for_htmx_on_every_page(owner_client, site):
    html = owner_client.get("/audit/").content.decode()

    assert "<body hx-headers='{\"X-CSRFToken\": \"" in html


def test_it_refuses_an_api_put_made_with_a_session_but_no_csrf_token(strict_client, site):
    before = snapshot(site.home)

    response = strict_client.put("/api/memory/providers/hindsight/config",
                                 json.dumps({"values": {"bank_id": "attacker"}}), content_type="application/json")
    activation = strict_client.put("/api/memory/provider", json.dumps({"provider": "hindsight"}),
                                   content_type="application/json")

    assert response.status_code == 403 and activation.status_code == 403
    assert response.json()["detail"].startswith("CSRF Failed")
    assert snapshot(site.home) == before


def test_it_accepts_an_api_put_made_with_a_session_and_the_csrf_header(strict_client, site):
    token = _token(strict_client)

    response = strict_client.put("/api/memory/providers/hindsight/config",
                                 json.dumps({"values": {"bank_id": "with-token"}}), content_type="application/json",
                                 HTTP_X_CSRFTOKEN=token)

    assert response.status_code == 200
    assert json.loads((site.home / "hindsight" / "config.json").read_text())["bank_id"] == "with-token"


def test_it_treats_the_back_to_form_post_as_a_change_request_too(strict_client, site):
    assert {"provider_detail"} == NON_CHANGING_POSTS
    assert strict_client.post("/providers/hindsight/", {"bank_id": "x"}).status_code == 403


# --- host header -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("host", "path"), [
    ("evil.example", "/audit/"),
    ("127.0.0.1.evil.example", "/providers/hindsight/"),
    ("localhost:8000@evil.example", "/api/memory"),
    ("[::1]evil", "/memory/"),
    ("", "/accounts/login/"),
    ("a" * 300, "/settings/"),
])
def test_it_answers_a_foreign_host_header_with_400_and_no_page(site, owner, host, path):
    client = Client(raise_request_exception=False)
    client.force_login(owner)

    response = client.get(path, HTTP_HOST=host)

    body = response.content.decode()
    assert response.status_code == 400, (host, path, response.status_code)
    assert str(site.home) not in body
    for text in ("Audit log", "bank-two", "Sign out", "memory_char_limit", "MEMORY.md"):
        assert text not in body, (host, path, text)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "localhost:8765", "127.0.0.1:8765"])
def test_it_serves_loopback_host_names(owner_client, site, host):
    assert owner_client.get("/audit/", HTTP_HOST=host).status_code == 200
