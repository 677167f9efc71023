"""Following an invitation or a password-reset link: the same one-time links as the first run.

Opening the link only checks it and remembers it in the session, then redirects so the token
leaves the address bar, the history and any Referer header. The link is used up when the form
is submitted: a link preview that opens it does not spend it.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.forms import SetPasswordForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from admin_panel.forms.accounts import NewAccountForm
from admin_panel.models import SignInLink
from admin_panel.permissions import role_label
from admin_panel.services import accounts
from admin_panel.services.sign_in_links import usable_link, usable_link_by_id, was_revoked

_SESSION_KEYS = {SignInLink.Purpose.INVITATION: "invitation_link", SignInLink.Purpose.PASSWORD_RESET: "reset_link"}
_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _invalid(request: HttpRequest, purpose: str, *, token: str = "") -> HttpResponse:
    """Refuse the link; a withdrawn one says so (the token opened, or else the one remembered)."""
    pk = request.session.pop(_SESSION_KEYS[purpose], None)
    withdrawn = was_revoked(purpose=purpose, token=token) if token else was_revoked(
        purpose=purpose, pk=pk if isinstance(pk, int) else None)
    return render(request, "account/link_invalid.html", {"purpose": purpose, "withdrawn": withdrawn}, status=403)


def _follow(request: HttpRequest, token: str, purpose: str, then: str) -> HttpResponse:
    link = usable_link(token=token, purpose=purpose)
    if link is None or (purpose == SignInLink.Purpose.PASSWORD_RESET and not link.account.is_active):
        return _invalid(request, purpose, token=token)
    request.session[_SESSION_KEYS[purpose]] = link.pk
    return redirect(then)


def _remembered(request: HttpRequest, purpose: str) -> SignInLink | None:
    pk = request.session.get(_SESSION_KEYS[purpose])
    return usable_link_by_id(pk=pk, purpose=purpose) if isinstance(pk, int) else None


@login_not_required
@never_cache
@require_GET
def follow_invitation(request: HttpRequest, token: str) -> HttpResponse:
    return _follow(request, token, SignInLink.Purpose.INVITATION, "invitation_accept")


@login_not_required
@never_cache
@require_http_methods(["GET", "POST"])
def accept_invitation(request: HttpRequest) -> HttpResponse:
    purpose = SignInLink.Purpose.INVITATION
    link = _remembered(request, purpose)
    if link is None:
        return _invalid(request, purpose)
    form = NewAccountForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        account = accounts.accept_invitation(
            link=link, username=form.cleaned_data["username"], password=form.cleaned_data["password1"]
        )
        if account is None:
            return _invalid(request, purpose)
        request.session.pop(_SESSION_KEYS[purpose], None)
        login(request, account, backend=_BACKEND)
        messages.success(request, _("Welcome. You are signed in as %(name)s (%(role)s).")
                         % {"name": account.get_username(), "role": role_label(link.role)})
        return redirect("home")
    return render(request, "account/invitation.html", {"form": form, "role_label": role_label(link.role)})


@login_not_required
@never_cache
@require_GET
def follow_reset_link(request: HttpRequest, token: str) -> HttpResponse:
    return _follow(request, token, SignInLink.Purpose.PASSWORD_RESET, "reset_password")


@login_not_required
@never_cache
@require_http_methods(["GET", "POST"])
def reset_password(request: HttpRequest) -> HttpResponse:
    purpose = SignInLink.Purpose.PASSWORD_RESET
    link = _remembered(request, purpose)
    if link is None or not link.account.is_active:
        return _invalid(request, purpose)
    form = SetPasswordForm(link.account, request.POST or None)
    if request.method == "POST" and form.is_valid():
        account = accounts.reset_password(link=link, password=form.cleaned_data["new_password1"])
        if account is None:
            return _invalid(request, purpose)
        request.session.pop(_SESSION_KEYS[purpose], None)
        login(request, account, backend=_BACKEND)
        messages.success(request, _("Your new password is set. Every other session of this account was signed out."))
        return redirect("account")
    return render(request, "account/reset_password.html", {"form": form, "account_name": link.account.get_username()})
