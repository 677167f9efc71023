"""Forms of the account pages: a new account's username and password, roles, token names."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from admin_panel.permissions import ROLE_LABELS


class NewAccountForm(UserCreationForm):
    """Username and password of a new account: the first one (first run) or an invited one."""

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)


class RoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=list(ROLE_LABELS.items()))


class TokenNameForm(forms.Form):
    name = forms.CharField(label=_("Token name"), max_length=100, strip=True,
                           help_text=_("A label to recognise the token by, such as the script that uses it."))
