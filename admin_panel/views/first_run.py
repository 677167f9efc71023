"""The first-run flow: a printed one-time link, then choosing the first account."""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from admin_panel.agent_home import current_home
from admin_panel.forms.accounts import NewAccountForm
from admin_panel.models import AuditEntry
from admin_panel.services.audit import record
from admin_panel.services.sign_in_links import accounts_exist, claim_sign_in_link

_SESSION_KEY = "first_run_claimed"


@login_not_required
@never_cache
@require_GET
def follow_sign_in_link(request: HttpRequest, token: str) -> HttpResponse:
    if accounts_exist() or not claim_sign_in_link(token=token):
        return render(request, "first_run/link_invalid.html", status=403)
    request.session.cycle_key()
    request.session[_SESSION_KEY] = True
    # Redirect so the token leaves the address bar, the history and any Referer header.
    return redirect("first_run_account")


@login_not_required
@never_cache
@require_http_methods(["GET", "POST"])
def choose_first_account(request: HttpRequest) -> HttpResponse:
    if not request.session.get(_SESSION_KEY) or accounts_exist():
        request.session.pop(_SESSION_KEY, None)
        return render(request, "first_run/link_invalid.html", status=403)
    form = NewAccountForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save(commit=False)
        user.is_staff = True
        user.is_superuser = True
        user.save()
        record(
            user=user,
            channel="panel",
            home=current_home(),
            kind=AuditEntry.Kind.ACCOUNT,
            summary=f"Created the first account, {user.get_username()}, with the sign-in link",
            details={"action": "create", "account": user.get_username(), "staff": True},
        )
        request.session.pop(_SESSION_KEY, None)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("home")
    return render(request, "first_run/choose_account.html", {"form": form})
