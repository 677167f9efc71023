"""Who may see and who may change.

Two roles. Admin may do everything; an admin is an account with Django's ``is_staff`` flag (the
only place the word "staff" belongs; the tests call their admin account ``owner``). Viewer (a
member of the ``viewers`` group, which a migration creates) may see settings, stores and the audit
log and change nothing. Other signed-in users see nothing but a refusal. Nobody, ever, sees a
secret value: there is no permission for that because no page has one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

VIEWERS_GROUP = "viewers"
ADMIN = "admin"
VIEWER = "viewer"
ROLES = (ADMIN, VIEWER)
ROLE_LABELS = {ADMIN: _("Admin"), VIEWER: _("Viewer")}

View = Callable[..., HttpResponse]


def can_change(user: AbstractBaseUser | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.is_active and user.is_staff)


def can_view(user: AbstractBaseUser | AnonymousUser) -> bool:
    if can_change(user):
        return True
    return bool(user.is_authenticated and user.is_active and user.groups.filter(name=VIEWERS_GROUP).exists())


def role_of(user: AbstractBaseUser | AnonymousUser) -> str:
    """``"admin"``, ``"viewer"`` or ``""`` (no role: the account sees nothing). An admin wins, so an
    account never has two roles."""
    if not user.is_authenticated:
        return ""
    if user.is_staff:
        return ADMIN
    return VIEWER if user.groups.filter(name=VIEWERS_GROUP).exists() else ""


def role_label(role: str) -> str:
    return str(ROLE_LABELS.get(role, _("No role")))


def _refuse(request: HttpRequest) -> HttpResponse:
    return render(request, "errors/forbidden.html", status=403)


def viewer_required(view: View) -> View:
    """Pages that show state: admins and viewers."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not can_view(request.user):
            return _refuse(request)
        return view(request, *args, **kwargs)

    return wrapper


def admin_required(view: View) -> View:
    """Anything that changes a file, a secret or the panel's state: admins only."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not can_change(request.user):
            return _refuse(request)
        return view(request, *args, **kwargs)

    return wrapper

