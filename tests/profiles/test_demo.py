"""``serve --demo``: three profiles that differ, with problems worth seeing."""

from __future__ import annotations

from pathlib import Path

import pytest

from admin_panel.demo import seed_demo_home
from admin_panel.selectors.profiles import (
    FOLDER_PROBLEM,
    PROVIDER_NOT_READY,
    STORE_NEARLY_FULL,
    USER_PROFILE_DISABLED,
    profiles_overview,
)

pytestmark = pytest.mark.django_db


def test_it_seeds_three_profiles_that_differ_and_show_problems(home: Path) -> None:
    seed_demo_home(home)
    rows = {row.name: row for row in profiles_overview(home=home).rows}
    assert list(rows) == ["default", "Old Copy", "coder", "ops"]
    assert rows["default"].problems == [] and rows["coder"].problems == []
    assert {p.code for p in rows["ops"].problems} == {USER_PROFILE_DISABLED, STORE_NEARLY_FULL, PROVIDER_NOT_READY}
    assert [p.code for p in rows["Old Copy"].problems] == [FOLDER_PROBLEM]
    assert rows["coder"].provider["status"] == "ready"
    assert rows["ops"].cells["blocked"].value == 1 and rows["ops"].cells["pending"].value == 1
    assert {key for key, cell in rows["coder"].cells.items() if cell.differs} >= {"memory_char_limit", "provider"}


def test_it_changes_nothing_when_seeded_again(home: Path) -> None:
    seed_demo_home(home)
    before = {path: path.read_bytes() for path in home.rglob("*") if path.is_file() and "panel" not in path.parts}
    seed_demo_home(home)
    after = {path: path.read_bytes() for path in home.rglob("*") if path.is_file() and "panel" not in path.parts}
    assert after == before
