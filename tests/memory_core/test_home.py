"""The one module for where the agent's home is and what a profile may be called."""

from __future__ import annotations

from pathlib import Path

import pytest

import provider_schemas
from admin_panel.paths import resolve_hermes_home
from memory_core import home as homes
from provider_schemas import profiles


def test_it_takes_hermes_home_from_the_environment_with_the_user_folder_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))

    assert homes.default_home({"HERMES_HOME": "  ~/agent  "}) == tmp_path / "agent"
    assert homes.default_home({"HERMES_HOME": "   "}) == tmp_path / ".hermes"
    assert resolve_hermes_home({"HERMES_HOME": "relative"}) == Path("relative").absolute()


def test_it_uses_local_app_data_for_the_default_home_on_windows(tmp_path, monkeypatch):
    monkeypatch.setattr(homes, "_on_windows", lambda: True)
    local = tmp_path / "Local"

    assert homes.default_home({"LOCALAPPDATA": str(local)}) == local / "hermes"
    # The panel's settings and the engines agree: both follow the same platform rule.
    assert resolve_hermes_home({"LOCALAPPDATA": str(local)}) == (local / "hermes").absolute()


def test_it_counts_every_folder_inside_the_platform_home_as_belonging_to_it(tmp_path, monkeypatch):
    monkeypatch.setattr(homes, "_on_windows", lambda: True)
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path))
    native = tmp_path / "hermes"
    (native / "profiles" / "work").mkdir(parents=True)

    assert homes.root_home(native / "profiles" / "work") == native
    assert homes.profile_name(native / "profiles" / "work") == "work"
    assert provider_schemas.root_home(native) == native


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [("", "default"), ("  DeFault ", "default"), (" Work ", "work"), ("ops-2", "ops-2")],
)
def test_it_normalises_a_profile_name_as_the_agent_does(raw, canonical):
    assert homes.canonical_profile_name(raw) == canonical


@pytest.mark.parametrize("name", sorted(homes.RESERVED_PROFILE_NAMES))
def test_it_refuses_every_reserved_name_unless_only_the_spelling_is_checked(name, tmp_path):
    with pytest.raises(homes.InvalidProfileName) as refused:
        homes.check_profile_name(name)

    assert refused.value.reserved
    assert f"Profile name '{name}' is reserved" in refused.value.detail
    assert homes.check_profile_name(name, reserved=False) == name
    assert homes.profile_home(home=tmp_path, profile=name) == tmp_path / "profiles" / name
    with pytest.raises(homes.InvalidProfileName):
        homes.profile_home(home=tmp_path, profile=name, reserved=True)


@pytest.mark.parametrize("name", ["Work", "-x", "a" * 65, "a/b", "..", "wörk"])
def test_it_refuses_a_name_the_agent_would_not_use_as_a_folder(name, tmp_path):
    with pytest.raises(homes.InvalidProfileName) as refused:
        homes.profile_home(home=tmp_path, profile=name)

    assert not refused.value.reserved
    assert refused.value.detail == f"Invalid profile name {name!r}. Must match [a-z0-9][a-z0-9_-]{{0,63}}"
    assert isinstance(refused.value, ValueError)  # the commands' existing handling still applies


def test_it_is_the_same_rule_every_layer_uses():
    assert profiles.InvalidProfileName is homes.InvalidProfileName
    assert profiles.RESERVED_NAMES is homes.RESERVED_PROFILE_NAMES
    assert provider_schemas.profile_home is homes.profile_home
    assert provider_schemas.homes.PROFILE_NAME_RE is homes.PROFILE_NAME_RE


def test_it_moves_secrets_of_the_same_profiles_the_profiles_page_lists(tmp_path):
    from provider_schemas.saving.secret_moves import every_profile_home

    root = tmp_path / "hermes"
    for name in ("work", "sudo", "default", "Bad"):
        (root / "profiles" / name).mkdir(parents=True)

    listed = [profile.home for profile in profiles.discover_profiles(home=root).usable]

    assert every_profile_home(root) == listed == [root, root / "profiles" / "work"]
