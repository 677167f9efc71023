"""The invitation and password-reset forms, reached through their links, in Simplified Chinese."""

from __future__ import annotations

import pytest
from django.test import Client

from admin_panel.services import accounts
from tests.i18n.test_rendered_pages import english_in_page

pytestmark = pytest.mark.django_db


def test_it_shows_the_invitation_form_and_its_errors_in_chinese(home):
    client = Client(headers={"Accept-Language": "zh-CN"})
    assert client.get(f"/accounts/invitation/{accounts.invite(role='viewer', actor=None, channel='command')[1]}/") \
        .status_code == 302
    form = client.get("/accounts/invitation/")
    refused = client.post("/accounts/invitation/", {"username": "dana", "password1": "short", "password2": "x"})

    assert (form.status_code, refused.status_code) == (200, 200)
    assert "查看者" in form.content.decode()
    for response in (form, refused):
        assert english_in_page(response.content.decode(), content=[]) == []


def test_it_shows_the_reset_form_and_its_errors_in_chinese(home, viewer):
    client = Client(headers={"Accept-Language": "zh-CN"})
    token = accounts.create_reset_link(account=viewer, actor=None, channel="command")[1]
    assert client.get(f"/accounts/reset/{token}/").status_code == 302
    form = client.get("/accounts/reset/")
    refused = client.post("/accounts/reset/", {"new_password1": "short", "new_password2": "x"})

    assert (form.status_code, refused.status_code) == (200, 200)
    for response in (form, refused):
        assert english_in_page(response.content.decode(), content=["viewer"]) == []
