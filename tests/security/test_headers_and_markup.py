"""Every page: the security headers, and markup a strict CSP allows (no inline script or style,
no event-handler attributes, no hx-on, no javascript: URLs)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from admin_panel.middleware import CONTENT_SECURITY_POLICY
from tests.conftest import PASSWORD
from tests.security.markup import csp_problems
from tests.security.site import OWN_ACCOUNT_ROUTES, STAFF_ROUTES, VIEWER_PAGES, page_routes

pytestmark = pytest.mark.django_db

EXPECTED_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
GET_PAGES = [p for p in page_routes() if p[0] in VIEWER_PAGES | STAFF_ROUTES | OWN_ACCOUNT_ROUTES]


def _assert_headers(response, where: str) -> None:
    assert response["Content-Security-Policy"] == EXPECTED_CSP, where
    assert response["X-Frame-Options"] == "DENY", where
    assert response["X-Content-Type-Options"] == "nosniff", where
    assert response["Referrer-Policy"] == "same-origin", where
    assert response["Cross-Origin-Opener-Policy"] == "same-origin", where


def test_it_sends_exactly_the_documented_policy():
    assert CONTENT_SECURITY_POLICY == EXPECTED_CSP
    assert "unsafe-inline" not in EXPECTED_CSP and "unsafe-eval" not in EXPECTED_CSP


@pytest.mark.parametrize(("name", "route"), GET_PAGES)
def test_it_sends_the_headers_and_strict_markup_on_every_page(owner_client, site, name, route):
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = owner_client.get(site.url(name, route), **headers)

        assert response.status_code < 500, (name, response.status_code)
        _assert_headers(response, name)
        if response.status_code in (301, 302, 405):
            continue
        assert csp_problems(response.content.decode()) == [], (name, headers)


@pytest.mark.parametrize("url", ["/accounts/login/", "/accounts/first-run/not-a-token/", "/no-such-page/"])
def test_it_sends_the_headers_and_strict_markup_before_sign_in(client, home, url):
    response = client.get(url)

    _assert_headers(response, url)
    assert csp_problems(response.content.decode()) == [], url


def test_it_sends_the_headers_on_403_404_and_api_answers(client, other_user, owner_client, site):
    responses = {
        "404": owner_client.get("/no-such-page/"),
        "api": owner_client.get("/api/memory"),
        "api 404": owner_client.get("/api/memory/providers/..%2F/config"),
        "api 401": Client().get("/api/memory"),
    }
    client.force_login(other_user)
    responses["403"] = client.get("/audit/")

    for where, response in responses.items():
        _assert_headers(response, where)
        if "text/html" in response["Content-Type"]:
            assert csp_problems(response.content.decode()) == [], where


def test_it_configures_htmx_to_need_no_inline_style_and_no_eval(owner_client, site):
    html = owner_client.get("/").content.decode()
    start = html.index('name="htmx-config" content=\'') + len('name="htmx-config" content=\'')
    config = json.loads(html[start:html.index("'", start)])

    assert config["includeIndicatorStyles"] is False
    assert config["allowEval"] is False
    assert config["allowScriptTags"] is False


def test_it_finds_the_problems_it_looks_for():
    bad = ('<script>alert(1)</script><p style="x">a</p><a href="javascript:alert(1)" onclick="x">b</a>'
           '<div hx-on:click="x"></div><style>p{}</style>')

    assert len(csp_problems(bad)) == 6
    assert csp_problems('<script src="/static/a.js" defer></script><p class="x">ok</p>') == []


def test_it_sets_session_and_csrf_cookies_httponly_and_samesite(client, owner, home):
    login_page = client.get("/accounts/login/")
    signed_in = client.post("/accounts/login/", {"username": owner.username, "password": PASSWORD})

    csrf = login_page.cookies["csrftoken"]
    session = signed_in.cookies["sessionid"]
    assert csrf["httponly"] and csrf["samesite"] == "Lax"
    assert session["httponly"] and session["samesite"] == "Lax"
