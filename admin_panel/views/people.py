"""The People page (admins only): every account, invitations, roles, access and reset links.

Changes that take access away (a demotion to viewer, a deactivation, withdrawing an invitation) ask
for confirmation first:
the form posts without ``confirmed`` and gets the confirmation page, which posts again with it.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from admin_panel.forms.accounts import RoleForm
from admin_panel.models import SignInLink
from admin_panel.permissions import ADMIN, VIEWER, admin_required, role_label, role_of
from admin_panel.selectors.accounts import pending_invitations, people
from admin_panel.services import accounts
from admin_panel.services.sign_in_links import ACCOUNT_LINK_MAX_AGE, link_path


def refusal_text(exc: accounts.AccountRefused) -> str:
    if exc.code == accounts.AccountRefused.LAST_ADMIN:
        return _("This is the last active admin. Make another account an admin first: "
                 "the panel must always have someone who can change it.")
    return _("Choose a role: admin or viewer.")


def _page(request: HttpRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    context: dict[str, Any] = {"people": people(), "invitations": pending_invitations(),
                               "invite_form": RoleForm(initial={"role": VIEWER}),
                               "roles": [(ADMIN, role_label(ADMIN)), (VIEWER, role_label(VIEWER))]}
    context.update(extra)
    return render(request, "people/list.html", context, status=status)


@require_GET
@admin_required
def people_list(request: HttpRequest) -> HttpResponse:
    return _page(request)


def _show_link(
    request: HttpRequest, *, purpose: str, token: str, account_name: str = "", role: str = ""
) -> HttpResponse:
    url = request.build_absolute_uri(link_path(purpose=purpose, token=token))
    hours = int(ACCOUNT_LINK_MAX_AGE.total_seconds() // 3600)
    response = render(request, "people/link_created.html", {
        "url": url, "purpose": purpose, "account_name": account_name, "role_label": role_label(role), "hours": hours,
    })
    response["Cache-Control"] = "no-store"  # shown once: not kept by the browser or a proxy
    return response


@never_cache
@require_POST
@admin_required
def people_invite(request: HttpRequest) -> HttpResponse:
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _page(request, status=400, error=_("Choose a role: admin or viewer."))
    role = form.cleaned_data["role"]
    _link, token = accounts.invite(role=role, actor=request.user, channel="panel")
    return _show_link(request, purpose=SignInLink.Purpose.INVITATION, token=token, role=role)


def _confirm(request: HttpRequest, *, account, action: str, role: str = "") -> HttpResponse:
    return render(request, "people/confirm.html", {"account": account, "action": action, "role": role,
                                                   "role_label": role_label(role), "is_self": account == request.user})


@require_POST
@admin_required
def people_set_role(request: HttpRequest, pk: int) -> HttpResponse:
    account = get_object_or_404(get_user_model(), pk=pk)
    form = RoleForm(request.POST)
    if not form.is_valid():
        return _page(request, status=400, error=_("Choose a role: admin or viewer."))
    role = form.cleaned_data["role"]
    if role_of(account) == ADMIN and role != ADMIN and not request.POST.get("confirmed"):
        return _confirm(request, account=account, action="role", role=role)
    try:
        changed = accounts.set_role(account=account, role=role, actor=request.user, channel="panel")
    except accounts.AccountRefused as exc:
        return _page(request, status=409, error=refusal_text(exc))
    if changed:
        messages.success(request, _("%(name)s is now: %(role)s.") % {"name": account.get_username(),
                                                                       "role": role_label(role)})
    if account == request.user and role != ADMIN:
        return redirect("home")
    return redirect("people")


@require_POST
@admin_required
def people_deactivate(request: HttpRequest, pk: int) -> HttpResponse:
    account = get_object_or_404(get_user_model(), pk=pk)
    if not request.POST.get("confirmed"):
        return _confirm(request, account=account, action="deactivate")
    try:
        accounts.deactivate(account=account, actor=request.user, channel="panel")
    except accounts.AccountRefused as exc:
        return _page(request, status=409, error=refusal_text(exc))
    messages.success(request, _("%(name)s is deactivated: their sessions ended and their API tokens stopped "
                                "working.") % {"name": account.get_username()})
    return redirect("people")


@require_POST
@admin_required
def people_activate(request: HttpRequest, pk: int) -> HttpResponse:
    account = get_object_or_404(get_user_model(), pk=pk)
    if accounts.activate(account=account, actor=request.user, channel="panel"):
        messages.success(request, _("%(name)s may sign in again.") % {"name": account.get_username()})
    return redirect("people")


@never_cache
@require_POST
@admin_required
def people_reset_link(request: HttpRequest, pk: int) -> HttpResponse:
    account = get_object_or_404(get_user_model(), pk=pk, is_active=True)
    _link, token = accounts.create_reset_link(account=account, actor=request.user, channel="panel")
    return _show_link(request, purpose=SignInLink.Purpose.PASSWORD_RESET, token=token,
                      account_name=account.get_username())


def _no_longer_pending(request: HttpRequest) -> HttpResponse:
    return _page(request, status=409, error=_("This invitation can no longer be withdrawn: it was used, it "
                                              "expired or it was already withdrawn."))


@require_POST
@admin_required
def people_revoke_invitation(request: HttpRequest, pk: int) -> HttpResponse:
    link = get_object_or_404(SignInLink, pk=pk, purpose=SignInLink.Purpose.INVITATION)
    invitation = next((found for found in pending_invitations() if found.pk == link.pk), None)
    if invitation is None:
        return _no_longer_pending(request)
    if not request.POST.get("confirmed"):
        return render(request, "people/revoke_invitation.html", {"invitation": invitation})
    if not accounts.revoke_invitation(link=link, actor=request.user, channel="panel"):
        return _no_longer_pending(request)
    messages.success(request, _("The invitation for a new %(role)s is withdrawn: its link no longer opens.")
                     % {"role": invitation.role_label})
    return redirect("people")
