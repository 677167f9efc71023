"""How large a request body each address accepts: the one table, applied by the ASGI bridge
(``admin_panel/asgi.py``) before a byte of the body is read. docs/request_bodies.md explains it.

Imports nothing from Django: the settings module takes Django's own body limit from here, so the
bridge and Django refuse the same bodies.
"""

from __future__ import annotations

import re

KIB = 1024
MIB = 1024 * KIB

# Reachable without signing in (sign-in, account links, language switch, static files): a few
# short fields at most. Anyone can send to these, so they get the smallest limit.
PUBLIC_BODY_BYTES = 64 * KIB
# Every signed-in form post and the API. The largest real need: a memory entry of the form's
# 200,000 characters (forms/memory.py), percent-encoded at up to 12 bytes per character; the
# schema preview's paste (256 KB of source) is refused in words by its own view below this.
# Also Django's DATA_UPLOAD_MAX_MEMORY_SIZE (its default), so Django agrees with the bridge.
SIGNED_IN_BODY_BYTES = 5 * MIB // 2
# The pages' event streams are GETs that take no body.
STREAM_BODY_BYTES = 0
# A body up to this size is read first and checked by Django afterwards, as before (most requests;
# no extra step). A larger one, or one of unknown length (chunked), is read only after its sender
# showed a valid session (and, for a browser's change, its CSRF cookie) or a valid API token.
UNCHECKED_BODY_BYTES = 64 * KIB

STREAM_SUFFIX = "/events/"
PUBLIC_PREFIXES = (
    "/accounts/login/",
    "/accounts/logout/",
    "/accounts/first-run/",
    "/accounts/invitation/",
    "/accounts/reset/",
    "/i18n/setlang/",
    "/static/",
)
API_PREFIX = "/api/"
# Another profile's pages: /profile/<name>/<page> (admin_panel/profile_choice.py takes it off).
_PROFILE = re.compile(r"^/profile/[^/]*(/.*)?$", re.DOTALL)


def page_path(path: str) -> str:
    """The panel's own route of a request path, without a chosen profile's prefix."""
    match = _PROFILE.match(path)
    if match is None:
        return path
    return match.group(1) or "/"


def is_stream(path: str) -> bool:
    return path.endswith(STREAM_SUFFIX)


def is_api(path: str) -> bool:
    return page_path(path).startswith(API_PREFIX)


def body_limit(path: str) -> int:
    """The most body bytes a request to ``path`` may carry."""
    if path.endswith(STREAM_SUFFIX):
        return STREAM_BODY_BYTES
    if page_path(path).startswith(PUBLIC_PREFIXES):
        return PUBLIC_BODY_BYTES
    return SIGNED_IN_BODY_BYTES


def needs_sign_in_first(*, declared: int | None, limit: int) -> bool:
    """Whether the sender must be signed in before the body is read: a body that may pass
    ``UNCHECKED_BODY_BYTES`` (above it, or of unknown length: ``declared`` is None, chunked) to an
    address whose limit is larger than that."""
    return limit > UNCHECKED_BODY_BYTES and (declared is None or declared > UNCHECKED_BODY_BYTES)
