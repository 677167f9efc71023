"""The audit log names the profile of every change and can be filtered by it."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from django.apps import apps

from admin_panel.models import AuditEntry

from .helpers import make_profile, memory_config

pytestmark = pytest.mark.django_db


@pytest.fixture
def profiles(home: Path) -> dict[str, Path]:
    return {name: make_profile(home, name, config=memory_config(memory_char_limit=2200))
            for name in ("default", "coder", "ops")}


def _change_each(owner_client) -> None:
    owner_client.post("/settings/", {"v:memory_char_limit": "2300", "o:memory_char_limit": "2200"})
    owner_client.post("/profile/ops/settings/", {"v:memory_char_limit": "2400", "o:memory_char_limit": "2200"})
    owner_client.put("/api/memory/providers/hindsight/config?profile=coder",
                     json.dumps({"values": {"bank_id": "coder-bank"}}), content_type="application/json")


def test_it_records_the_profile_each_change_was_made_in(owner_client, profiles) -> None:
    _change_each(owner_client)
    recorded = list(AuditEntry.objects.order_by("pk").values_list("profile", "home", "kind"))
    assert recorded == [
        ("default", str(profiles["default"]), AuditEntry.Kind.MEMORY_SETTINGS),
        ("ops", str(profiles["ops"]), AuditEntry.Kind.MEMORY_SETTINGS),
        ("coder", str(profiles["coder"]), AuditEntry.Kind.PROVIDER_SETTINGS),
    ]


def test_it_filters_the_audit_log_by_profile_and_exports_the_filtered_rows(viewer_client, owner_client,
                                                                          profiles) -> None:
    _change_each(owner_client)
    page = viewer_client.get("/audit/", {"of_profile": "ops"}).content.decode()
    everything = viewer_client.get("/audit/").content.decode()
    exported = viewer_client.get("/audit/", {"of_profile": "coder", "format": "jsonl"})
    records = [json.loads(line) for line in b"".join(exported.streaming_content).decode().splitlines()]

    assert '<option value="ops" selected>ops</option>' in page
    assert "1 change" in page and "2200 → 2400" in page and "→ 2300" not in page
    assert "3 changes" in everything
    assert [(r["profile"], r["kind"]) for r in records] == [("coder", "provider_settings")]


def test_it_fills_in_the_profile_of_entries_recorded_before_it_was_kept(profiles) -> None:
    fill = importlib.import_module("admin_panel.migrations.0009_audit_profile").fill_profiles
    for home in (profiles["ops"], profiles["default"]):
        AuditEntry.objects.create(channel="panel", home=str(home), kind=AuditEntry.Kind.MEMORY_SETTINGS,
                                  summary="old row", profile="")

    fill(apps, None)

    assert list(AuditEntry.objects.order_by("pk").values_list("profile", flat=True)) == ["ops", "default"]


def test_it_records_a_change_to_the_panels_own_accounts_against_the_panels_home_on_any_profile(
    owner_client, home, profiles
) -> None:
    owner_client.post("/profile/ops/account/tokens/", {"name": "laptop"})
    entry = AuditEntry.objects.get(kind=AuditEntry.Kind.API_TOKEN)
    assert (entry.home, entry.profile) == (str(home), "default")
