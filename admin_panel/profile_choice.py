"""Which profile a request works on, carried in the address: ``/profile/<name>/<page>``.

The panel's own home (the one it was started on) has no prefix: its addresses stay as they are.
Another profile's pages live under ``/profile/<name>/``. The middleware takes the prefix off before
URL resolution, makes it Django's script prefix for the request (so every ``{% url %}``,
``reverse()`` and redirect, hence every link, form action, htmx request, poll and event stream,
keeps the profile on its own) and makes the profile's home what ``current_home()`` answers, so
every read, write and lock of the request lands in that profile.

``?profile=<name>`` (the API's way, docs/api.md §Common rules) is accepted on pages too: a GET is sent on to the
prefixed address, any other method works on that profile as if it were prefixed. The JSON API keeps
its own ``profile=`` handling and takes no prefix.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import get_script_prefix, reverse, set_script_prefix

from admin_panel.agent_home import panel_home, working_on
from provider_schemas.profiles import (
    InvalidProfileName,
    UnknownProfile,
    canonical_profile_name,
    resolve_profile,
)

PREFIX = "profile"
_PREFIXED = re.compile(rf"^/{PREFIX}/([^/]*)(/.*)?$", re.DOTALL)
QUERY_KEY = "profile"
_CHOSEN_PART = re.compile(rf"{PREFIX}/[^/]*/$")


def _is_api(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def is_panel_home(home: Path) -> bool:
    return _same(home, panel_home())


def profile_path(name: str | None, path: str, *, base: str = "/") -> str:
    """The address of ``path`` (a path inside the panel, starting with ``/``) for profile ``name``;
    ``None`` or the panel's own home: the plain address."""
    if name is None:
        return base.rstrip("/") + path
    return f"{base}{PREFIX}/{quote(name, safe='')}{path}"


def _query_without_profile(request: HttpRequest) -> str:
    pairs = [(key, value) for key, values in request.GET.lists() if key != QUERY_KEY for value in values]
    return ("?" + urlencode(pairs)) if pairs else ""


def _refusal(request: HttpRequest, exc: InvalidProfileName | UnknownProfile, *, status: int, api: bool) -> HttpResponse:
    if api:
        from admin_panel.api_auth import api_error

        return api_error(exc.detail, status)
    context = {"profile_name": exc.name, "invalid": status == 400,
               "reserved": isinstance(exc, InvalidProfileName) and exc.reserved}
    return render(request, "profiles/no_such_profile.html", context, status=status)


class ProfileMiddleware:
    """Sets ``request.panel_profile`` (the chosen profile's name, None for the panel's own home) and
    ``request.panel_base`` (the script prefix without any profile); see the module docstring."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        base = get_script_prefix()
        request.panel_profile = None  # type: ignore[attr-defined]
        request.panel_base = base  # type: ignore[attr-defined]
        match = _PREFIXED.match(request.path_info)
        from_query = False
        if match:
            raw, rest = match.group(1), match.group(2) or "/"
            if _is_api(rest):
                from admin_panel.api_auth import api_error

                return api_error("Not Found", 404)
        elif QUERY_KEY in request.GET and not _is_api(request.path_info):
            raw, rest, from_query = request.GET[QUERY_KEY], request.path_info, True
        else:
            return self.get_response(request)
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            # Nothing about profiles is said before signing in: the sign-in page sends the person
            # back to the full address afterwards, where the name is checked.
            request.path_info = rest
            return self.get_response(request)
        try:
            home = resolve_profile(home=panel_home(), raw=raw)
        except InvalidProfileName as exc:
            return _refusal(request, exc, status=400, api=False)
        except UnknownProfile as exc:
            return _refusal(request, exc, status=404, api=False)
        own = is_panel_home(home)
        name = None if own else canonical_profile_name(raw)
        if request.method in ("GET", "HEAD") and (from_query or own or name != raw):
            # One address per page: the query form, "Ops" and the panel's own home by name are
            # sent to the canonical one.
            return HttpResponseRedirect(profile_path(name, rest, base=base) + _query_without_profile(request))
        request.path_info = rest
        if name is None:
            return self.get_response(request)
        request.panel_profile = name  # type: ignore[attr-defined]
        set_script_prefix(profile_path(name, "/", base=base))
        try:
            with working_on(home):
                return self.get_response(request)
        finally:
            set_script_prefix(base)


def base_prefix() -> str:
    """The script prefix without the chosen profile's part (what ``/`` of the panel is)."""
    return _CHOSEN_PART.sub("", get_script_prefix())


def plain_path(url: str) -> str:
    """``url`` from ``reverse()`` as a path inside the panel, without any prefix."""
    prefix = get_script_prefix()
    return "/" + url[len(prefix):] if url.startswith(prefix) else url


def address(url_name: str, *, profile: str | None, args: tuple[str, ...] = ()) -> str:
    """The address of a page for ``profile`` (None: the panel's own home), whichever profile the
    current request is on."""
    return profile_path(profile, plain_path(reverse(url_name, args=args)), base=base_prefix())
