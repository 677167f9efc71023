"""The one-time sign-in link that ``serve`` prints while no account exists."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from admin_panel.models import SignInLink
from admin_panel.services.sign_in_links import create_sign_in_link
from tests.serving import running_server

pytestmark = pytest.mark.django_db


def _choose_account(client, username="dana", password="a long and new passphrase"):
    return client.post(
        "/accounts/first-run/",
        {"username": username, "password1": password, "password2": password},
    )


def test_it_signs_in_once_and_lets_the_user_choose_an_account(client):
    token = create_sign_in_link()

    response = client.get(f"/accounts/first-run/{token}/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/first-run/"

    form_page = client.get("/accounts/first-run/")
    assert form_page.status_code == 200
    assert b"Choose the username and password" in form_page.content

    created = _choose_account(client)
    assert created.status_code == 302
    user = get_user_model().objects.get(username="dana")
    assert user.is_staff and user.is_superuser
    assert client.get("/").status_code == 200


def test_it_refuses_the_link_a_second_time(client):
    token = create_sign_in_link()
    assert client.get(f"/accounts/first-run/{token}/").status_code == 302

    other = client.__class__()
    again = other.get(f"/accounts/first-run/{token}/")
    assert again.status_code == 403
    assert b"cannot be used" in again.content
    assert other.get("/accounts/first-run/").status_code == 403


def test_it_refuses_an_expired_link(client):
    token = create_sign_in_link()
    SignInLink.objects.update(created_at=timezone.now() - timedelta(minutes=15, seconds=1))

    assert client.get(f"/accounts/first-run/{token}/").status_code == 403
    assert SignInLink.objects.get().used_at is None


def test_it_accepts_a_link_just_inside_its_lifetime(client):
    token = create_sign_in_link()
    SignInLink.objects.update(created_at=timezone.now() - timedelta(minutes=14))

    assert client.get(f"/accounts/first-run/{token}/").status_code == 302


def test_it_refuses_a_wrong_token(client):
    create_sign_in_link()

    assert client.get("/accounts/first-run/not-the-token/").status_code == 403
    assert client.get("/accounts/first-run/").status_code == 403
    assert SignInLink.objects.get().used_at is None


def test_it_refuses_the_account_form_without_a_claimed_link(client):
    response = _choose_account(client)

    assert response.status_code == 403
    assert not get_user_model().objects.exists()


def test_it_refuses_a_valid_link_once_an_account_exists(client, owner):
    token = create_sign_in_link()

    assert client.get(f"/accounts/first-run/{token}/").status_code == 403


def test_it_stores_only_a_digest_of_the_token():
    token = create_sign_in_link()

    stored = SignInLink.objects.get()
    assert token not in stored.token_digest
    assert len(stored.token_digest) == 64


@pytest.mark.slow
def test_it_prints_the_token_only_on_its_own_console_line(tmp_path):
    with running_server(hermes_home=tmp_path / "home", data_dir=tmp_path / "data") as server:
        line = server.wait_for_line("/accounts/first-run/")
        server.wait_until_listening()
        token = re.search(r"/accounts/first-run/([^/\s]+)/", line).group(1)
        base = f"http://127.0.0.1:{server.port}"
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        assert opener.open(f"{base}/accounts/first-run/{token}/").status == 200  # followed the redirect
        for url in (f"{base}/accounts/first-run/{token}/", f"{base}/accounts/first-run/{token}x/"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(url)
            assert refused.value.code == 403
        server.wait_for_line("Forbidden")  # the refusals were logged, with the token redacted

    lines_with_token = [candidate for candidate in server.lines if token in candidate]
    assert lines_with_token == [line]
