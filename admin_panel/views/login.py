"""Django's standard login form, with throttling in front of it."""

from __future__ import annotations

import logging

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.forms.utils import ErrorDict
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from admin_panel.services.login_throttle import clear_failures, is_locked_out, record_failure

logger = logging.getLogger("admin_panel.sign_in")


def client_address(request: HttpRequest) -> str:
    return request.META.get("REMOTE_ADDR", "") or "unknown"


class ThrottledLoginView(auth_views.LoginView):
    def post(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        # Whole, not cut short: the form strips surrounding spaces before its length check, so a
        # cut-off name could differ from the one that signs in (services/login_throttle.py).
        username = request.POST.get("username", "")
        address = client_address(request)
        if is_locked_out(username=username, address=address):
            form: AuthenticationForm = self.get_form()
            # Not validated: checking the password while locked out would defeat the lockout.
            form.cleaned_data = {}
            form._errors = ErrorDict()
            # One-time links are not throttled: the rightful owner always has a way in.
            form.add_error(None, _("Too many failed sign-in attempts. Wait 15 minutes, then try again, or sign in "
                                   "with a one-time link: on the panel's machine, run "
                                   "manage.py user reset-link YOUR-USERNAME."))
            # The username is not logged: people type their password into it by mistake.
            logger.warning("Refused sign-in from %s: locked out after repeated failures", address)
            return self.render_to_response(self.get_context_data(form=form), status=429)
        response = super().post(request, *args, **kwargs)
        if request.user.is_authenticated:
            clear_failures(username=username)
        else:
            record_failure(username=username, address=address)
            logger.warning("Refused sign-in from %s: wrong username or password", address)
        return response
