"""A viewer crawls every route of the panel and every API method, by session and by token, and
changes nothing: not a file of the agent's home, not a row of the panel's database, not the keyring.
Every change is answered 403 (405 where the method does not exist), never 500, never with a secret."""

from __future__ import annotations

import json

import pytest
from django.apps import apps
from django.test import Client

from admin_panel.models import ApiToken, AuditEntry, token_digest
from admin_panel.services import providers as provider_services
from tests.security.site import OWN_ACCOUNT_ROUTES, api_routes, change_controls, page_routes, snapshot

pytestmark = pytest.mark.django_db

SECRET = "hs-secret-viewer-must-never-see-1234"
TOKEN = "viewer-token-for-the-crawl-0123456789"
BODY = {"role": "admin", "confirmed": "1", "name": "x", "content": "viewer was here", "values": "x",
        "v:bank_id": "viewer-bank", "provider": "hindsight", "action": "approve", "ids": "all",
        "new_password1": "a new long passphrase", "new_password2": "a new long passphrase"}
JSON_BODY = json.dumps({"values": {"bank_id": "viewer-bank", "api_key": "viewer-key"}, "provider": "hindsight"})
CHANGING_METHODS = ("post", "put", "patch", "delete")
# Columns that record reading, not changing: when a token was last used, when a user last signed in.
BOOKKEEPING = {("admin_panel", "apitoken"): {"last_used_at"}, ("auth", "user"): {"last_login"}}


def database() -> dict[str, list[tuple]]:
    """Every row of every table the panel keeps, browser sessions aside (a visit may refresh its own)."""
    rows = {}
    for model in apps.get_models():
        # Browser sessions (a visit may refresh its own) and budget samples (the panel's record of
        # what it saw, issue 18) are bookkeeping of reading, not changes.
        if model._meta.label_lower in ("sessions.session", "admin_panel.budgetsample"):
            continue
        skip = BOOKKEEPING.get((model._meta.app_label, model._meta.model_name), set())
        fields = [f.attname for f in model._meta.concrete_fields if f.attname not in skip]
        objects = model.objects.all()
        if model is AuditEntry:  # an export is audited as a read (issue 13), not a change
            objects = objects.exclude(kind=AuditEntry.Kind.SESSION_EXPORT)
        rows[model._meta.label] = sorted(map(repr, objects.order_by("pk").values_list(*fields)))
    return rows


@pytest.fixture
def crawl(site, viewer, dict_keyring):
    provider_services.set_secret_store(home=site.home, store="keyring", user=None, channel="command")
    provider_services.save_provider_settings(user=None, channel="command", home=site.home, name="hindsight",
                                             values={"api_key": SECRET})
    ApiToken.objects.create(name="crawl", token_digest=token_digest(TOKEN), user=viewer)
    by_session = Client()
    by_session.force_login(viewer)
    return site, {"session": by_session, "token": Client(HTTP_X_HERMES_SESSION_TOKEN=TOKEN)}, dict_keyring


def _state(site, keyring) -> tuple:
    return snapshot(site.home), database(), sorted(keyring.entries.items())


def _check_answer(response, where) -> None:
    body = response.content.decode("utf-8", "replace")
    assert response.status_code < 500, where
    assert SECRET not in body, where


def test_it_keeps_the_seeded_secret_in_the_keyring_for_the_crawl(crawl):
    site, _clients, keyring = crawl
    assert SECRET in keyring.entries.values()
    assert SECRET not in str(snapshot(site.home))


def test_it_lets_a_viewer_change_nothing_on_any_page(crawl):
    site, clients, keyring = crawl
    client = clients["session"]
    before = _state(site, keyring)
    for name, route in page_routes():
        if name in OWN_ACCOUNT_ROUTES or name == "logout":
            continue
        url = site.url(name, route)
        for method in CHANGING_METHODS:
            for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
                response = getattr(client, method)(url, BODY if method == "post" else JSON_BODY, **headers)
                _check_answer(response, (name, method))
                allowed = {403, 405, 302} if name == "provider_detail" else {403, 405}
                assert response.status_code in allowed, (name, method, response.status_code)
        got = client.get(url)
        _check_answer(got, (name, "get"))
        if got.status_code == 200 and "text/html" in got["Content-Type"]:
            assert change_controls(got.content.decode()) == [], name
    assert _state(site, keyring) == before


@pytest.mark.parametrize("how", ["session", "token"])
def test_it_lets_a_viewer_change_nothing_through_the_api(crawl, how):
    site, clients, keyring = crawl
    client = clients[how]
    before = _state(site, keyring)
    for name, route in api_routes():
        url = site.url(name, route)
        read = client.get(url)
        _check_answer(read, (name, "get"))
        assert read.status_code in {200, 404, 405}, (name, read.status_code)
        for method in CHANGING_METHODS:
            response = getattr(client, method)(url, JSON_BODY, content_type="application/json")
            _check_answer(response, (name, method))
            assert response.status_code in {403, 405}, (name, method, response.status_code)
            assert response["Content-Type"].startswith("application/json"), (name, method)
    assert _state(site, keyring) == before


def test_it_answers_a_viewers_api_change_with_forbidden_not_method_not_allowed_where_the_method_exists(crawl):
    _site, clients, _keyring = crawl
    for how in ("session", "token"):
        response = clients[how].put("/api/memory/provider", JSON_BODY, content_type="application/json")
        assert (response.status_code, response.json()) == (403, {"detail": "Forbidden"}), how
