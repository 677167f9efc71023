"""Authentication for the JSON API.

Two ways in, as docs/api.md §Common rules says: a panel API token in ``X-Hermes-Session-Token`` (or
``Authorization: Bearer``), for scripts; or the browser session of a signed-in user, which must
carry Django's CSRF token on every change. Anything else is ``401 {"detail": "Unauthorized"}``.
Errors are always JSON: an API client never receives an HTML page.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from datetime import timedelta
from functools import lru_cache, wraps
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import RequestDataTooBig
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from admin_panel.forms.json_body import decode_json_body
from admin_panel.models import ApiToken, token_digest
from admin_panel.permissions import can_change, can_view
from admin_panel.services.write_errors import DISK_FULL_STATUS, disk_full_text, is_disk_full
from memory_core.caching import MISSING, KeyedCache

logger = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
TOKEN_HEADER = "HTTP_X_HERMES_SESSION_TOKEN"  # noqa: S105 - a header name, not a secret


def api_json(data: Any, status: int = 200) -> JsonResponse:
    """JSON with non-ASCII kept literally, like the agent's own API."""
    return JsonResponse(data, status=status, safe=False, json_dumps_params={"ensure_ascii": False})


def api_json_bytes(data: Any) -> bytes:
    """The body ``api_json`` would send, alone (for answers kept between requests)."""
    return json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False).encode("utf-8")


def api_error(detail: str, status: int, **extra: Any) -> JsonResponse:
    return api_json({"detail": detail, **extra}, status=status)


def presented_token(request: HttpRequest) -> str | None:
    token = request.META.get(TOKEN_HEADER, "").strip()
    if token:
        return token
    authorization = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return None


# last_used_at is a "when was this token last used" hint, not an audit trail: it is written at
# most once a minute per token, so a read request needs no write transaction.
LAST_USED_RESOLUTION = timedelta(minutes=1)


@lru_cache(maxsize=1)
def _token_lookup() -> tuple[str, list[str], list[list[Any]], list[Any]]:
    """One SQL statement for token, revocation and account, built once: the ORM would compile the
    same query again on every API request (a third of its time)."""
    user_model = get_user_model()
    quote = connection.ops.quote_name
    fields = list(user_model._meta.concrete_fields)
    columns = ", ".join(f"u.{quote(field.column)}" for field in fields)
    sql = (
        # Only quoted model names are formatted in; the token digest is a parameter.
        f"SELECT t.{quote('id')}, t.{quote('last_used_at')}, {columns} "  # noqa: S608
        f"FROM {quote(ApiToken._meta.db_table)} t JOIN {quote(user_model._meta.db_table)} u "
        f"ON u.{quote(user_model._meta.pk.column)} = t.{quote(ApiToken._meta.get_field('user').column)} "
        f"WHERE t.{quote('token_digest')} = %s AND t.{quote('revoked_at')} IS NULL"
    )
    converters = [connection.ops.get_db_converters(field.get_col("u")) + field.get_db_converters(connection)
                  for field in fields]
    last_used = ApiToken._meta.get_field("last_used_at")
    last_used_converters = connection.ops.get_db_converters(last_used.get_col("t")) + last_used.get_db_converters(
        connection)
    return sql, [field.attname for field in fields], converters, last_used_converters


def _convert(value: Any, converters: list[Any], expression: Any) -> Any:
    for converter in converters:
        value = converter(value, expression, connection)
    return value


# The lookup's answer per token digest, kept with the state of the database's files it was read
# under: any commit to the panel's database (a revocation, a deactivated account, a changed role;
# by this process or another) changes the database file or its write-ahead log, and the next
# request reads again. Nothing is kept while those files changed within the last second (two
# commits within one tick of the file system's clock could otherwise leave the same state).
_RACY_NS = 1_000_000_000
_token_cache = KeyedCache("API token lookups per token digest", size=64)  # docs/caching.md


def _database_state() -> tuple[Any, ...] | None:
    """(inode, size, mtime, ctime) of the panel's database file and its log; None for a database
    without files (in memory) or one that cannot be stat'ed."""
    name = connection.settings_dict.get("NAME")
    if not name or str(name).startswith(("file:", ":memory:")):
        return None
    parts: list[Any] = []
    for path in (os.fspath(name), os.fspath(name) + "-wal"):
        try:
            info = os.stat(path)
        except FileNotFoundError:
            parts.append(None)
            continue
        except (OSError, ValueError):
            return None
        parts.append((info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return tuple(parts) if parts[0] is not None else None


def _settled(state: tuple[Any, ...]) -> bool:
    newest = max(max(part[2], part[3]) for part in state if part is not None)
    return newest < time.time_ns() - _RACY_NS


def _token_row(digest: str) -> Any:
    sql = _token_lookup()[0]
    # Inside a transaction this connection's own uncommitted changes are not in the files yet.
    # The state is taken before the read: a commit during it makes the next state differ.
    state = None if connection.in_atomic_block else _database_state()
    if state is not None:
        hit = _token_cache.get(digest, state)
        if hit is not MISSING:
            return hit
    with connection.cursor() as cursor:
        cursor.execute(sql, [digest])
        row = cursor.fetchone()
    if state is not None and _settled(state):
        _token_cache.put(digest, state, row)
    return row


def _user_for_token(token: str):
    """The token's account, as the database holds it now: a revoked token or a deactivated account
    stops on its next request (the row is re-read whenever the database changed)."""
    if len(token) > 200:
        return None
    _sql, names, converters, last_used_converters = _token_lookup()
    row = _token_row(token_digest(token))
    if row is None:
        return None
    user_model = get_user_model()
    fields = user_model._meta.concrete_fields
    values = [_convert(value, converters[i], fields[i]) for i, value in enumerate(row[2:])]
    user = user_model.from_db(connection.alias, names, values)
    if not user.is_active:
        return None
    last_used_field = ApiToken._meta.get_field("last_used_at")
    last_used = _convert(row[1], last_used_converters, last_used_field)
    now = timezone.now()
    if last_used is None or now - last_used >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=row[0]).update(last_used_at=now)
    return user


class _CsrfCheck(CsrfViewMiddleware):
    def _reject(self, request: HttpRequest, reason: str) -> HttpResponse:
        return api_error(f"CSRF Failed: {reason}", 403)


def _csrf_failure(request: HttpRequest) -> HttpResponse | None:
    return _CsrfCheck(lambda r: HttpResponse()).process_view(request, None, (), {})


View = Callable[..., HttpResponse]


def api_endpoint(*, methods: tuple[str, ...]) -> Callable[[View], View]:
    """Wrap an API view: method check, authentication, CSRF for sessions, roles, JSON errors."""

    allowed = frozenset(methods)

    def decorate(view: View) -> View:
        @login_not_required
        @csrf_exempt  # CSRF is enforced below for cookie sessions only; token clients have no cookie
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            token = presented_token(request)
            if token is not None:
                user = _user_for_token(token)
                via_session = False
            else:
                user = request.user if request.user.is_authenticated else None
                via_session = True
            if user is None:
                return api_error("Unauthorized", 401)
            if request.method not in allowed:
                response = api_error("Method Not Allowed", 405)
                response["Allow"] = ", ".join(sorted(allowed))
                return response
            unsafe = request.method not in SAFE_METHODS
            if via_session and unsafe:
                failure = _csrf_failure(request)
                if failure is not None:
                    return failure
            if not (can_change(user) if unsafe else can_view(user)):
                return api_error("Forbidden", 403)
            request.user = user
            try:
                return view(request, *args, **kwargs)
            except Exception as exc:
                if is_disk_full(exc):  # any write path the view did not answer itself
                    logger.warning("API write refused, the disk is full: %s %s", request.method, request.path)
                    return api_error(disk_full_text(), DISK_FULL_STATUS)
                logger.exception("API request failed: %s %s", request.method, request.path)
                return api_error("Internal server error", 500)

        return wrapper

    return decorate


def read_json_body(request: HttpRequest) -> Any:
    """The parsed body, or raise ``ValueError`` with the 422 text of docs/api.md §Common rules."""
    try:
        body = request.body
    except RequestDataTooBig:
        raise ValueError("Request body is too large") from None
    return decode_json_body(body)  # BodyNotJson is a ValueError carrying the sentence
