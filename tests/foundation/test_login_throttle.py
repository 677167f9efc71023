"""Repeated failed sign-ins lock out the username and the client address."""

from __future__ import annotations

import io

import pytest
from django.core.cache import cache

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LOCKED = b"Too many failed sign-in attempts"


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def _login(client, username, password, address="10.1.1.1"):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def test_it_locks_a_username_after_five_failures_even_with_the_right_password(client, owner):
    for _ in range(5):
        assert _login(client, "owner", "wrong").status_code == 200

    locked = _login(client, "owner", PASSWORD)

    assert locked.status_code == 429
    assert LOCKED in locked.content
    assert "_auth_user_id" not in client.session


def test_it_answers_the_same_for_an_unknown_username(client, owner):
    for _ in range(5):
        _login(client, "nobody", "wrong")

    locked = _login(client, "nobody", "wrong")

    assert locked.status_code == 429
    assert LOCKED in locked.content


def test_it_locks_an_address_that_tries_many_usernames(client, owner):
    for index in range(20):
        _login(client, f"guess{index}", "wrong", address="10.9.9.9")

    from_that_address = _login(client, "owner", PASSWORD, address="10.9.9.9")
    from_elsewhere = _login(client, "owner", PASSWORD, address="10.2.2.2")

    assert from_that_address.status_code == 429
    assert from_elsewhere.status_code == 302


def test_it_forgets_failures_after_a_successful_sign_in(client, owner):
    for _ in range(4):
        _login(client, "owner", "wrong")
    assert _login(client, "owner", PASSWORD).status_code == 302
    client.logout()

    for _ in range(4):
        _login(client, "owner", "wrong")

    assert _login(client, "owner", PASSWORD).status_code == 302


@pytest.mark.parametrize("spelling", ["ｏｗｎｅｒ", " owner\t", " " * 200 + "owner"])
def test_it_counts_every_spelling_that_signs_in_as_the_name_against_that_name(client, owner, spelling):
    for index in range(5):
        _login(client, spelling, "wrong", address=f"10.3.3.{index}")

    locked = _login(client, "owner", PASSWORD, address="10.4.4.4")

    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session


def test_it_signs_in_a_spelling_that_django_normalises_to_the_name(client, owner):
    # The premise of the test above: each spelling really is a way to sign in as "owner".
    assert _login(client, "ｏｗｎｅｒ", PASSWORD).status_code == 302


def test_it_counts_every_loopback_address_as_one_client(client, owner):
    addresses = ["127.0.0.1", "127.0.0.2", "127.1.2.3", "::1", "::ffff:127.0.0.5"]
    for index in range(20):
        _login(client, f"guess{index}", "wrong", address=addresses[index % len(addresses)])

    locked = _login(client, "owner", PASSWORD, address="127.0.0.9")

    assert locked.status_code == 429


def test_it_counts_an_ipv6_64_as_one_client_and_its_neighbour_as_another(client, owner):
    for index in range(20):
        _login(client, f"guess{index}", "wrong", address=f"2001:db8::{index + 1:x}")

    same_network = _login(client, "owner", PASSWORD, address="2001:db8::ffff:1")
    next_network = _login(client, "owner", PASSWORD, address="2001:db8:0:1::1")

    assert same_network.status_code == 429
    assert next_network.status_code == 302


def test_it_counts_an_ipv4_mapped_address_as_the_ipv4_address(client, owner):
    for index in range(20):
        _login(client, f"guess{index}", "wrong", address="10.7.7.7" if index % 2 else "::ffff:10.7.7.7")

    assert _login(client, "owner", PASSWORD, address="10.7.7.7").status_code == 429


def _reset_link_sign_in(client, account, password):
    """What the owner does when locked out: a link from ``manage.py user reset-link``, a new password."""
    from admin_panel.services.accounts import create_reset_link

    _link, token = create_reset_link(account=account, actor=None, channel="command")
    assert client.get(f"/accounts/reset/{token}/").status_code == 302
    return client.post("/accounts/reset/", {"new_password1": password, "new_password2": password})


def test_it_lets_a_locked_out_admin_in_with_a_reset_link_and_says_so_in_the_lockout(client, owner):
    for index in range(20):
        _login(client, "owner" if index < 5 else f"guess{index}", "wrong", address="127.0.0.1")
    locked = _login(client, "owner", PASSWORD, address="127.0.0.1")

    reset = _reset_link_sign_in(client, owner, "a brand new passphrase 7")

    assert locked.status_code == 429
    assert b"manage.py user reset-link YOUR-USERNAME" in locked.content
    assert reset.status_code == 302 and reset["Location"] == "/account/"
    assert client.get("/people/").status_code == 200


def test_it_starts_a_fresh_count_for_a_name_once_its_password_is_reset_with_a_link(client, owner):
    for index in range(5):
        _login(client, "owner", "wrong", address=f"10.5.5.{index}")
    assert _login(client, "owner", PASSWORD).status_code == 429
    _reset_link_sign_in(client, owner, "a brand new passphrase 7")
    client.logout()

    assert _login(client, "owner", "a brand new passphrase 7").status_code == 302


def test_it_starts_a_fresh_count_for_a_name_once_changepassword_set_a_new_one(client, owner, monkeypatch):
    from django.core.management import call_command

    for index in range(5):
        _login(client, "owner", "wrong", address=f"10.6.6.{index}")
    assert _login(client, "owner", PASSWORD).status_code == 429
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "a brand new passphrase 8")
    call_command("changepassword", "owner", stdout=io.StringIO())

    assert _login(client, "owner", "a brand new passphrase 8").status_code == 302
