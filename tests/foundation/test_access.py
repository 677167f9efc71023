"""Every page needs a signed-in user."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db

# Reachable before signing in: the sign-in pages themselves, the one-time links (first run,
# invitations, password resets), the language choice and the browser's icon.
PUBLIC = {"login", "first_run_account", "first_run_link", "set_language", "invitation_accept", "invitation_link",
          "reset_password", "reset_link", "favicon"}


def _named_routes(resolver: URLResolver, prefix: str = "") -> list[tuple[str, str]]:
    found = []
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            found += _named_routes(pattern, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and pattern.name:
            found.append((pattern.name, prefix + str(pattern.pattern)))
    return found


def _sample_path(route: str) -> str:
    """Fill each converter with a plausible value so the route resolves."""
    import re

    filled = re.sub(r"<(?:str:|slug:)?(\w+)>", "sample", route)
    filled = re.sub(r"<int:\w+>", "1", filled)
    filled = re.sub(r"<path:\w+>", "sample/path", filled)
    return "/" + filled.lstrip("^").rstrip("$")


def _page_routes() -> list[tuple[str, str]]:
    return [(name, route) for name, route in _named_routes(get_resolver())
            if name not in PUBLIC and not route.startswith("api/")]


def _api_routes() -> list[tuple[str, str]]:
    return [(name, route) for name, route in _named_routes(get_resolver()) if route.startswith("api/")]


def test_it_has_pages_to_protect():
    assert ("home", "") in _page_routes()


@pytest.mark.parametrize(("name", "route"), _page_routes())
def test_it_redirects_anonymous_visitors_to_the_login_page(client, name, route):
    path = _sample_path(route)

    for method in ("get", "post"):
        response = getattr(client, method)(path)
        assert response.status_code == 302, (name, method)
        assert response["Location"].startswith("/accounts/login/?next="), (name, method)


@pytest.mark.parametrize(("name", "route"), _api_routes())
def test_it_answers_api_calls_without_a_session_with_401_or_403(client, name, route):
    path = _sample_path(route)

    for method in ("get", "put", "post"):
        response = getattr(client, method)(path)
        assert response.status_code in {401, 403, 405}, (name, method)
        assert "text/html" not in response.get("Content-Type", ""), (name, method)


def test_it_shows_the_home_page_to_a_signed_in_user(owner_client):
    response = owner_client.get("/")

    assert response.status_code == 200
    assert b"Overview" in response.content


def test_it_says_on_the_overview_what_each_page_it_may_open_is_for(viewer_client, home):
    html = viewer_client.get("/").content.decode()

    assert "revert a settings change" in html
    assert "review blocked entries and pending writes" in html
    assert "as you write it" not in html  # the schema preview is staff-only


def test_it_signs_in_through_the_standard_login_form(client, owner):
    from tests.conftest import PASSWORD

    response = client.post("/accounts/login/", {"username": "owner", "password": PASSWORD})

    assert response.status_code == 302
    assert client.get("/").status_code == 200


def test_it_does_not_say_whether_a_username_exists(client, owner):
    wrong_password = client.post("/accounts/login/", {"username": "owner", "password": "nope"})
    unknown_user = client.post("/accounts/login/", {"username": "nobody", "password": "nope"})

    assert wrong_password.status_code == unknown_user.status_code == 200
    assert wrong_password.context["form"].non_field_errors() == unknown_user.context["form"].non_field_errors()


def test_it_remembers_the_chosen_language(client, owner_client):
    response = owner_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})

    assert response.status_code == 302
    assert owner_client.cookies["django_language"].value == "zh-hans"
    assert owner_client.get("/").headers["Content-Language"] == "zh-hans"
