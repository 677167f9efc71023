"""Login throttling: lock out repeated failures per username and per client address.

Counts live in Django's cache (the panel runs as one process). A locked username or address is
refused even with the right password, and the message is the same whether or not the username
exists, so the lockout cannot be used to discover accounts.

What is counted is what Django signs in, so no spelling of a name or address buys more attempts
(docs/security.md, "Sign-in throttle"):
- a username as the sign-in form cleans it (surrounding white space stripped, then NFKC, as
  ``UsernameField`` does): "ａｄｍｉｎ" and " admin" count against "admin";
- an address as the client it stands for: every loopback address (127.0.0.0/8, ::1 and their
  IPv4-mapped forms) is one client, an IPv4-mapped IPv6 address is its IPv4 address, and an IPv6
  address counts for its /64 (one network's addresses are one client's to choose);
- a name's count belongs to the account's current password: a new password (a reset link, the
  account page, ``manage.py changepassword``) starts a fresh count, so the owner is not kept out
  by failures an attacker made before.
The one-time links (first run, invitation, password reset) sign in without the login form and
are never throttled here: a locked-out owner gets in with ``manage.py user reset-link NAME``.
"""

from __future__ import annotations

import hashlib
import ipaddress
import time
import unicodedata

from django.contrib.auth import get_user_model
from django.core.cache import cache

WINDOW_SECONDS = 15 * 60
MAX_FAILURES_PER_USERNAME = 5
MAX_FAILURES_PER_ADDRESS = 20
LOOPBACK = "loopback"


def _username_max_length() -> int:
    model = get_user_model()
    return model._meta.get_field(model.USERNAME_FIELD).max_length or 254


def normalise_username(username: str) -> str:
    """The name the sign-in form authenticates for this input (Django's ``UsernameField``)."""
    value = username.strip()
    if len(value) > _username_max_length():
        return value  # refused by the form before any sign-in; normalising it would only cost time
    return unicodedata.normalize("NFKC", value)


def client_of(address: str) -> str:
    """The client an address stands for: all of loopback is one, an IPv6 address is its /64."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address.strip().lower()
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return LOOPBACK
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


def _password_mark(name: str) -> str:
    """A short digest of the account's stored password hash, or "" when no account has this name."""
    model = get_user_model()
    stored = model._default_manager.filter(**{model.USERNAME_FIELD: name}).values_list("password", flat=True).first()
    return hashlib.sha256(stored.encode("utf-8")).hexdigest()[:16] if stored else ""


def _key(kind: str, value: str) -> str:
    digest = hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]
    return f"login-failures:{kind}:{digest}"


def _user_key(username: str) -> str:
    name = normalise_username(username)
    return _key("user", f"{name}\0{_password_mark(name)}")


def _address_key(address: str) -> str:
    return _key("addr", client_of(address))


def _recent(key: str, now: float) -> list[float]:
    return [stamp for stamp in cache.get(key, []) if now - stamp < WINDOW_SECONDS]


def is_locked_out(*, username: str, address: str) -> bool:
    now = time.time()
    return (
        len(_recent(_user_key(username), now)) >= MAX_FAILURES_PER_USERNAME
        or len(_recent(_address_key(address), now)) >= MAX_FAILURES_PER_ADDRESS
    )


def record_failure(*, username: str, address: str) -> None:
    now = time.time()
    for key in (_user_key(username), _address_key(address)):
        cache.set(key, [*_recent(key, now), now], timeout=WINDOW_SECONDS)


def clear_failures(*, username: str) -> None:
    cache.delete(_user_key(username))
