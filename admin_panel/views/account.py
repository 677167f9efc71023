"""The own account page (every account with a role): role, password, other sessions, API tokens.

These change only the signed-in account itself, so a viewer may use them too; what a viewer's
token may do is the viewer's role: read.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import update_session_auth_hash
from django.contrib.auth.forms import PasswordChangeForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from admin_panel.forms.accounts import TokenNameForm
from admin_panel.models import ApiToken
from admin_panel.permissions import can_change, role_label, role_of, viewer_required
from admin_panel.selectors.accounts import api_tokens_of
from admin_panel.services import accounts


def _password_form(request: HttpRequest, data: Any = None) -> PasswordChangeForm:
    form = PasswordChangeForm(request.user, data)
    # The page has three sections: focus stays where the reader is, not in the first password box.
    form.fields["old_password"].widget.attrs.pop("autofocus", None)
    return form


def _page(request: HttpRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    context: dict[str, Any] = {
        "role_label": role_label(role_of(request.user)),
        "can_change": can_change(request.user),
        "password_form": _password_form(request),
        "token_form": TokenNameForm(),
        "tokens": api_tokens_of(request.user),
    }
    context.update(extra)
    response = render(request, "account/page.html", context, status=status)
    response["Cache-Control"] = "no-store"
    return response


@require_GET
@viewer_required
def account_page(request: HttpRequest) -> HttpResponse:
    return _page(request)


@require_POST
@viewer_required
def account_password(request: HttpRequest) -> HttpResponse:
    form = _password_form(request, request.POST)
    if not form.is_valid():
        return _page(request, status=400, password_form=form)
    form.save()
    update_session_auth_hash(request, form.user)  # this session stays; every other one is signed out
    accounts.record_password_change(account=request.user)
    messages.success(request, _("Your password is changed. Your other sessions were signed out."))
    return redirect("account")


@require_POST
@viewer_required
def account_sign_out_others(request: HttpRequest) -> HttpResponse:
    ended = accounts.sign_out_other_sessions(account=request.user, keep_session_key=request.session.session_key)
    messages.success(request, _("Signed out of %(count)s other session(s).") % {"count": ended})
    return redirect("account")


@never_cache
@require_POST
@viewer_required
def account_token_create(request: HttpRequest) -> HttpResponse:
    form = TokenNameForm(request.POST)
    if not form.is_valid():
        return _page(request, status=400, token_form=form)
    created, token = accounts.create_api_token(account=request.user, name=form.cleaned_data["name"],
                                               actor=request.user, channel="panel")
    return _page(request, new_token=token, new_token_record=created)


@require_POST
@viewer_required
def account_token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    if not request.POST.get("confirmed"):
        return render(request, "account/revoke_confirm.html", {"token": token})
    if accounts.revoke_api_token(token=token, actor=request.user, channel="panel"):
        messages.success(request, _("The API token %(name)s is revoked.") % {"name": token.name})
    return redirect("account")
