"""Who may see and who may change.

Staff may do everything. Members of the ``viewers`` group may see settings, stores and the audit
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

VIEWERS_GROUP = "viewers"

View = Callable[..., HttpResponse]


def can_change(user: AbstractBaseUser | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.is_active and user.is_staff)


def can_view(user: AbstractBaseUser | AnonymousUser) -> bool:
    if can_change(user):
        return True
    return bool(user.is_authenticated and user.is_active and user.groups.filter(name=VIEWERS_GROUP).exists())


def _refuse(request: HttpRequest) -> HttpResponse:
    return render(request, "errors/forbidden.html", status=403)


def viewer_required(view: View) -> View:
    """Pages that show state: staff and viewers."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not can_view(request.user):
            return _refuse(request)
        return view(request, *args, **kwargs)

    return wrapper


def staff_required(view: View) -> View:
    """Anything that changes a file, a secret or the panel's state: staff only."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not can_change(request.user):
            return _refuse(request)
        return view(request, *args, **kwargs)

    return wrapper
