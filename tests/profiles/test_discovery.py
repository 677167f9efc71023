"""Finding the root and every profile around the panel's home (docs/agent_formats.md §Session history "Profiles")."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from provider_schemas.profiles import (
    BAD_NAME,
    BROKEN_LINK,
    RESERVED,
    SHADOWED_BY_DEFAULT,
    UNREADABLE,
    InvalidProfileName,
    UnknownProfile,
    canonical_profile_name,
    discover_profiles,
    resolve_profile,
)
from tests.memory_core.conftest import run_unprivileged


def make_profiles(root: Path, *names: str) -> None:
    for name in names:
        (root / "profiles" / name / "memories").mkdir(parents=True)


def summary(found) -> list[tuple[str, str | None]]:
    return [(profile.name, profile.problem) for profile in found.profiles]


def test_it_finds_the_standard_root_and_its_profiles_from_the_root(user_home: Path) -> None:
    root = user_home / ".hermes"
    make_profiles(root, "ops", "coder")
    found = discover_profiles(home=root)
    assert found.root == root
    assert summary(found) == [("default", None), ("coder", None), ("ops", None)]
    assert found.current == "default"
    assert [p.is_current for p in found.profiles] == [True, False, False]


def test_it_finds_the_standard_root_from_inside_a_profile(user_home: Path) -> None:
    root = user_home / ".hermes"
    make_profiles(root, "coder", "ops")
    found = discover_profiles(home=root / "profiles" / "ops")
    assert found.root == root and found.current == "ops"
    assert [p.name for p in found.profiles if p.is_current] == ["ops"]
    assert found.get("default").home == root


def test_it_treats_a_home_outside_the_standard_root_as_its_own_root_docker_style(tmp_path: Path) -> None:
    data = tmp_path / "opt" / "data"
    make_profiles(data, "assistant")
    found = discover_profiles(home=data)
    assert found.root == data
    assert summary(found) == [("default", None), ("assistant", None)]


def test_it_finds_the_docker_style_root_from_one_of_its_profiles(tmp_path: Path) -> None:
    data = tmp_path / "opt" / "data"
    make_profiles(data, "assistant", "ops")
    found = discover_profiles(home=data / "profiles" / "assistant")
    assert found.root == data and found.current == "assistant"


def test_it_keeps_a_custom_home_inside_the_standard_root_as_custom(user_home: Path) -> None:
    root = user_home / ".hermes"
    custom = root / "experiments" / "one"
    custom.mkdir(parents=True)
    make_profiles(root, "coder")
    found = discover_profiles(home=custom)
    assert found.root == root and found.current == "custom"
    assert not any(p.is_current for p in found.profiles)


def test_it_lists_a_root_without_profiles_folder_as_the_default_profile_alone(tmp_path: Path) -> None:
    found = discover_profiles(home=tmp_path / "solo")
    assert summary(found) == [("default", None)]
    assert found.profiles_dir_error == ""


def test_it_lists_badly_named_reserved_and_shadowing_folders_with_their_problem(tmp_path: Path) -> None:
    root = tmp_path / "data"
    make_profiles(root, "ok", "Coder", "my profile", "-dash", "test", "default", "a" * 65)
    found = discover_profiles(home=root)
    problems = dict(summary(found)[1:])
    assert problems == {
        "ok": None,
        "Coder": BAD_NAME,
        "my profile": BAD_NAME,
        "-dash": BAD_NAME,
        "test": RESERVED,
        "default": SHADOWED_BY_DEFAULT,
        "a" * 65: BAD_NAME,
    }
    assert [p.name for p in found.usable] == ["default", "ok"]
    assert found.get("Coder") is None and found.get("test") is None


def test_it_accepts_the_longest_allowed_name_and_names_with_dash_and_underscore(tmp_path: Path) -> None:
    root = tmp_path / "data"
    make_profiles(root, "a" * 64, "o-p_s9")
    assert [p.problem for p in discover_profiles(home=root).profiles] == [None, None, None]


def test_it_skips_plain_files_and_hidden_folders_but_lists_a_dangling_symlink(tmp_path: Path) -> None:
    root = tmp_path / "data"
    make_profiles(root, "ops", ".trash")
    (root / "profiles" / "notes.txt").write_text("not a profile", encoding="utf-8")
    os.symlink(tmp_path / "gone", root / "profiles" / "lost")
    os.symlink(root / "profiles" / "ops", root / "profiles" / "alias")
    found = discover_profiles(home=root)
    assert summary(found) == [("default", None), ("alias", None), ("lost", BROKEN_LINK), ("ops", None)]


def test_it_reports_a_profiles_path_that_is_a_file_without_failing(tmp_path: Path) -> None:
    root = tmp_path / "data"
    root.mkdir()
    (root / "profiles").write_text("oops", encoding="utf-8")
    found = discover_profiles(home=root)
    assert summary(found) == [("default", None)]
    assert found.profiles_dir_error == "not a directory"


def _discover_summary(root: str) -> list[tuple[str, str | None]]:
    return summary(discover_profiles(home=Path(root)))


def test_it_lists_an_unreadable_profile_folder_as_unreadable() -> None:
    base = Path(tempfile.mkdtemp(prefix="profiles-"))
    try:
        os.chmod(base, 0o755)  # noqa: S103 - the unprivileged user must reach the root
        root = base / "data"
        make_profiles(root, "ops", "locked")
        for path in (root, root / "profiles", root / "profiles" / "ops", root / "profiles" / "ops" / "memories"):
            os.chmod(path, 0o755)  # noqa: S103
        os.chmod(root / "profiles" / "locked", 0o000)
        found = run_unprivileged(_discover_summary, str(root))
        assert found == [("default", None), ("locked", UNREADABLE), ("ops", None)]
    finally:
        os.chmod(base / "data" / "profiles" / "locked", 0o755)  # noqa: S103
        shutil.rmtree(base, ignore_errors=True)


def test_it_canonicalises_profile_names_like_the_agent() -> None:
    assert canonical_profile_name("  Ops ") == "ops"
    assert canonical_profile_name("DEFAULT") == "default"
    assert canonical_profile_name("   ") == "default"


def test_it_resolves_profile_parameters_with_the_agents_errors(tmp_path: Path) -> None:
    root = tmp_path / "data"
    make_profiles(root, "ops")
    home = root / "profiles" / "ops"
    assert resolve_profile(home=home, raw="") == home
    assert resolve_profile(home=home, raw="current") == home
    assert resolve_profile(home=home, raw="Default") == root
    assert resolve_profile(home=root, raw="OPS") == home
    with pytest.raises(InvalidProfileName) as bad:
        resolve_profile(home=root, raw="bad!")
    assert bad.value.detail == "Invalid profile name 'bad!'. Must match [a-z0-9][a-z0-9_-]{0,63}"
    with pytest.raises(InvalidProfileName) as reserved:
        resolve_profile(home=root, raw="test")
    assert reserved.value.detail.startswith("Profile name 'test' is reserved")
    assert "binary.  Pick" in reserved.value.detail
    with pytest.raises(UnknownProfile) as unknown:
        resolve_profile(home=root, raw="coder")
    assert unknown.value.detail == "Profile 'coder' does not exist."


def test_it_says_which_honcho_host_block_each_profile_uses(tmp_path: Path, user_home: Path) -> None:
    import json

    from provider_schemas.profiles import honcho_hosts

    root = tmp_path / "data"
    make_profiles(root, "coder", "ops", "own", "pinned")
    (root / "honcho.json").write_text(json.dumps({"hosts": {"hermes": {"workspace": "w"},
                                                            "hermes.ops": {"workspace": "legacy"}}}), encoding="utf-8")
    (root / "profiles" / "own" / "honcho.json").write_text("{}", encoding="utf-8")
    (root / "profiles" / "pinned" / ".env").write_text("HERMES_HONCHO_HOST=team\n", encoding="utf-8")
    rows = {row.profile: row for row in honcho_hosts(home=root)}
    assert (rows["default"].file, rows["default"].host, rows["default"].block_exists) == ("honcho.json", "hermes", True)
    assert (rows["coder"].host, rows["coder"].block, rows["coder"].shared, rows["coder"].block_exists) == (
        "hermes_coder", "hermes_coder", "root", False)
    assert (rows["ops"].host, rows["ops"].block, rows["ops"].block_exists) == ("hermes_ops", "hermes.ops", True)
    assert (rows["own"].file, rows["own"].shared) == ("profiles/own/honcho.json", None)
    assert (rows["pinned"].host, rows["pinned"].reason) == ("team", "env")


def test_it_follows_default_host_only_for_the_hermes_host_and_the_shared_global_file(user_home: Path) -> None:
    import json

    from provider_schemas.profiles import honcho_hosts

    root = user_home / ".hermes"
    make_profiles(root, "coder")
    (user_home / ".honcho").mkdir()
    (user_home / ".honcho" / "config.json").write_text(json.dumps({"defaultHost": "desk"}), encoding="utf-8")
    rows = {row.profile: row for row in honcho_hosts(home=root)}
    assert (rows["default"].host, rows["default"].reason, rows["default"].shared) == ("desk", "defaultHost", "global")
    assert (rows["default"].file, rows["coder"].host) == ("~/.honcho/config.json", "hermes_coder")
