"""Repeated failed sign-ins lock out the username and the client address."""

from __future__ import annotations

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
