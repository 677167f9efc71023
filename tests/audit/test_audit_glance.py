"""The audit list at a glance: each row says what changed, a secret only as set / replaced /
cleared, long values shortened, and the way to revert a change is on the row."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.test import Client

from admin_panel.models import AuditEntry
from admin_panel.services import providers as provider_services
from admin_panel.services.audit import record

pytestmark = pytest.mark.django_db

SECRET = "hs-glance-SECRET-0042-never-shown"


def _rows(client) -> list[str]:
    page = client.get("/audit/").content.decode()
    return [html_lib.unescape(re.sub(r"<[^>]+>", " ", row)) for row in re.findall(r"<tr>(.*?)</tr>", page, re.S)][1:]


def _save(home, owner, values):
    provider_services.save_provider_settings(user=owner, channel="panel", home=home, name="hindsight", values=values)


def test_it_shows_the_old_and_new_value_of_each_changed_key_on_the_row(owner_client, owner, home):
    _save(home, owner, {"bank_id": "acc-one"})
    _save(home, owner, {"bank_id": "acc-two"})

    newest = _rows(owner_client)[0]

    assert "bank_id: acc-one → acc-two" in newest


def test_it_shows_a_secret_as_set_or_replaced_and_never_its_value(owner_client, owner, home):
    _save(home, owner, {"api_key": SECRET})
    _save(home, owner, {"api_key": SECRET + "-2"})

    rows = _rows(owner_client)
    page = owner_client.get("/audit/").content.decode()

    assert "api_key: replaced" in rows[0] and "api_key: set" in rows[1]
    assert SECRET not in page


def test_it_shortens_long_values_to_one_line(owner_client, owner, home):
    record(user=owner, channel="panel", home=home, kind=AuditEntry.Kind.PROVIDER_SETTINGS, provider="hindsight",
           summary="Saved", details={"changes": [{"key": "prompt", "location": "config.json",
                                                  "old": "short", "new": "word " * 50 + "\nsecond line"}]})

    row = _rows(owner_client)[0]

    assert re.search(r"prompt: short → (word ){7}word…", row)
    assert "second line" not in row


def test_it_shows_the_role_change_and_who_acted_with_their_role(owner_client, owner, viewer, home):
    from admin_panel.services import accounts

    accounts.set_role(account=viewer, role="admin", actor=owner, channel="panel")

    row = " ".join(_rows(owner_client)[0].split())

    assert "owner (Admin)" in row and "Changed the role of viewer from Viewer to Admin" in row


def test_it_shows_the_role_someone_had_when_they_acted_not_their_role_now(owner_client, owner, viewer, home):
    from admin_panel.services import accounts

    accounts.set_role(account=viewer, role="admin", actor=owner, channel="panel")
    viewer.refresh_from_db()
    _save(home, viewer, {"bank_id": "saved-as-admin"})
    accounts.set_role(account=viewer, role="viewer", actor=owner, channel="panel")

    saved = next(" ".join(row.split()) for row in _rows(owner_client) if "saved-as-admin" in row)
    assert "viewer (Admin)" in saved


def test_it_offers_the_revert_on_the_row_to_admins_and_not_to_viewers(owner, viewer, home):
    _save(home, owner, {"bank_id": "acc-one"})
    _save(home, owner, {"bank_id": "acc-two"})
    newest = AuditEntry.objects.order_by("-pk").first()
    admin, looker = Client(), Client()
    admin.force_login(owner)
    looker.force_login(viewer)

    assert f'href="/audit/{newest.pk}/#revert"' in admin.get("/audit/").content.decode()
    assert "#revert" not in looker.get("/audit/").content.decode()
    assert admin.post(f"/audit/{newest.pk}/revert/").status_code == 302

    assert f'href="/audit/{newest.pk}/#revert"' not in admin.get("/audit/").content.decode()
