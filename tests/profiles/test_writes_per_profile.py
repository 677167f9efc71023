"""Every change made on a profile's pages (or through the API with ``profile=``) lands in that
profile's files, and the other profiles' files stay byte for byte as they were.

The crawl walks every route of the panel (tests/security/site.py), so a route added later is
covered without touching this file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core import pending
from tests.security.site import OWN_ACCOUNT_ROUTES, api_routes, page_routes, seed_site

from .helpers import make_profile, memory_config, snapshot

pytestmark = pytest.mark.django_db

# Plausible values for every form of the panel (unused keys are ignored by the forms).
BODY = {"content": "Written on the ops page.", "v:bank_id": "ops-bank", "o:bank_id": "bank-two",
        "v:memory_char_limit": "3000", "o:memory_char_limit": "2200", "provider": "hindsight",
        "action": "approve", "ids": "all", "confirmed": "1", "entry": "memory:sample", "name": "x"}
JSON_BODY = json.dumps({"values": {"bank_id": "api-bank"}, "provider": "holographic"})


@pytest.fixture
def profiles(home: Path, owner) -> dict[str, Path]:
    """Three profiles with something on every page of each; the default one is the panel's home."""
    ops = make_profile(home, "ops")
    coder = make_profile(home, "coder")
    seed_site(coder, user=owner)
    seed_site(home, user=owner)
    return {"default": home, "coder": coder, "ops": ops}


def _others(homes: dict[str, Path], chosen: str) -> dict[str, dict[str, bytes]]:
    return {name: snapshot(path) for name, path in homes.items() if name != chosen}


def test_it_changes_only_the_chosen_profile_on_every_write_route(owner_client, home, owner, profiles) -> None:
    site = seed_site(profiles["ops"], user=owner)
    others = _others(profiles, "ops")
    ops_before = snapshot(profiles["ops"])
    answered = []
    for name, route in page_routes():
        if name in OWN_ACCOUNT_ROUTES or name == "logout":
            continue
        url = "/profile/ops" + site.url(name, route)
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            response = owner_client.post(url, BODY, **headers)
            assert response.status_code < 500, (name, response.status_code)
            # The answer after a change stays on the profile: a redirect or an htmx redirect.
            for header in ("Location", "HX-Redirect", "HX-Location"):
                target = response.get(header, "")
                if target.startswith("/"):
                    assert target.startswith("/profile/ops/"), (name, header, target)
            answered.append((name, response.status_code))
    assert _others(profiles, "ops") == others
    assert snapshot(profiles["ops"]) != ops_before
    assert any(status == 302 for _name, status in answered)


def test_it_changes_only_the_chosen_profile_through_every_api_route(owner_client, owner, profiles) -> None:
    site = seed_site(profiles["ops"], user=owner)
    others = _others(profiles, "ops")
    ops_before = snapshot(profiles["ops"])
    for name, route in api_routes():
        url = site.url(name, route) + "?profile=ops"
        response = owner_client.put(url, JSON_BODY, content_type="application/json")
        assert response.status_code < 500, (name, response.status_code)
    assert _others(profiles, "ops") == others
    ops_files = snapshot(profiles["ops"])
    assert ops_files != ops_before
    assert "holographic" in ops_files["config.yaml"].decode()
    assert "api-bank" in ops_files["hindsight/config.json"].decode()


@pytest.mark.parametrize("address", ["/profile/ops/settings/", "/settings/?profile=ops"])
def test_it_saves_memory_settings_in_the_chosen_profile(owner_client, profiles, address) -> None:
    others = _others(profiles, "ops")
    response = owner_client.post(address, {"v:memory_char_limit": "3100", "o:memory_char_limit": "2200"})
    assert response.status_code == 302
    assert response["Location"].startswith("/profile/ops/settings/")
    assert "memory_char_limit: 3100" in (profiles["ops"] / "config.yaml").read_text(encoding="utf-8")
    assert _others(profiles, "ops") == others


def test_it_saves_provider_settings_and_activates_in_the_chosen_profile(owner_client, profiles) -> None:
    others = _others(profiles, "coder")
    owner_client.post("/profile/coder/providers/hindsight/save/", {"v:bank_id": "coder-bank", "o:bank_id": "bank-two"})
    owner_client.post("/profile/coder/providers/holographic/activate/")
    coder = snapshot(profiles["coder"])
    assert json.loads(coder["hindsight/config.json"])["bank_id"] == "coder-bank"
    assert "holographic" in coder["config.yaml"].decode()
    assert _others(profiles, "coder") == others


def test_it_adds_approves_and_deletes_memory_entries_in_the_chosen_profile(owner_client, profiles) -> None:
    ops = profiles["ops"]
    (ops / "config.yaml").write_text(memory_config(write_approval=True), encoding="utf-8")
    staged = pending.stage(ops, payload={"action": "add", "target": "user", "content": "Ops user fact",
                                         "old_text": None}, summary="add to user: Ops user fact")
    others = _others(profiles, "ops")
    owner_client.post("/profile/ops/memory/memory/add/", {"content": "Ops memory fact."})
    owner_client.post("/profile/ops/memory/pending/action/", {"action": "approve", "pending_id": staged["id"]})
    assert "Ops memory fact." in (ops / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    assert "Ops user fact" in (ops / "memories" / "USER.md").read_text(encoding="utf-8")
    assert pending.list_pending(ops) == []
    assert _others(profiles, "ops") == others


def test_it_refuses_a_name_that_is_no_profile_and_one_that_does_not_exist_and_writes_nothing(
    owner_client, profiles
) -> None:
    everything = _others(profiles, "")
    bad = owner_client.post("/profile/Not a name!/settings/", {"v:memory_char_limit": "3100"})
    reserved = owner_client.get("/profile/sudo/memory/")
    unknown = owner_client.post("/settings/?profile=nope", {"v:memory_char_limit": "3100"})
    assert (bad.status_code, reserved.status_code, unknown.status_code) == (400, 400, 404)
    assert "is not a profile name" in bad.content.decode()
    assert "reserved name" in reserved.content.decode()
    assert "The agent has no profile called “nope”" in unknown.content.decode()
    assert _others(profiles, "") == everything


def test_it_answers_an_unknown_profile_in_the_api_with_the_agents_words(owner_client, profiles) -> None:
    response = owner_client.put("/api/memory/provider?profile=nope", JSON_BODY, content_type="application/json")
    assert (response.status_code, response.json()) == (404, {"detail": "Profile 'nope' does not exist."})


def test_it_lets_a_viewer_change_nothing_on_a_profiles_pages(viewer_client, owner, profiles) -> None:
    site = seed_site(profiles["ops"], user=owner)
    everything = _others(profiles, "")
    for name, route in page_routes():
        if name in OWN_ACCOUNT_ROUTES or name == "logout":
            continue
        response = viewer_client.post("/profile/ops" + site.url(name, route), BODY)
        allowed = {403, 405, 302} if name == "provider_detail" else {403, 405}
        assert response.status_code in allowed, (name, response.status_code)
    assert _others(profiles, "") == everything


def test_it_takes_no_profile_prefix_on_the_api_which_names_its_profile_with_the_parameter(owner_client,
                                                                                         profiles) -> None:
    everything = _others(profiles, "")
    response = owner_client.put("/profile/ops/api/memory/provider", JSON_BODY, content_type="application/json")
    assert (response.status_code, response.json()) == (404, {"detail": "Not Found"})
    assert _others(profiles, "") == everything
