"""The profiles page as each persona sees it, and its link in the navigation."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import make_profile, memory_config

pytestmark = pytest.mark.django_db


def test_it_shows_one_row_per_profile_to_a_viewer(viewer_client, home: Path) -> None:
    make_profile(home, "ops", config=memory_config(user_profile_enabled=False), memory="x" * 2150)
    make_profile(home, "coder")
    html = viewer_client.get("/profiles/").content.decode()
    assert html.count('data-profile="') == 3
    assert 'data-profile="ops"' in html and "User profile is switched off" in html
    assert "MEMORY.md is over 90% full" in html
    assert 'href="/profile/ops/settings/#set-user_profile_enabled"' in html


def test_it_refuses_a_signed_in_user_without_a_role_and_sends_anonymous_to_sign_in(client, other_user, home) -> None:
    assert client.get("/profiles/").status_code == 302
    client.force_login(other_user)
    assert client.get("/profiles/").status_code == 403


def test_it_escapes_folder_names(viewer_client, home: Path) -> None:
    make_profile(home, "<b>x")
    html = viewer_client.get("/profiles/").content.decode()
    assert "<b>x" not in html and "&lt;b&gt;x" in html


def test_it_links_profiles_in_the_navigation_only_with_two_or_more(owner_client, home: Path) -> None:
    assert 'href="/profiles/"' not in owner_client.get("/").content.decode()
    make_profile(home, "ops")
    assert 'href="/profiles/"' in owner_client.get("/").content.decode()


def test_it_shows_on_the_honcho_page_which_host_block_each_profile_uses(viewer_client, home: Path) -> None:
    import json

    make_profile(home, "ops")
    (home / "honcho.json").write_text(json.dumps({"hosts": {"hermes": {"workspace": "w"}}}), encoding="utf-8")
    html = viewer_client.get("/providers/honcho/").content.decode()
    table = html.split('id="honcho-profiles"')[1].split("</section>")[0]
    assert "<code>hosts.hermes</code>" in table and "<code>hosts.hermes_ops</code>" in table
    assert "not created yet" in table.split('data-profile="ops"')[1]


def test_it_leaves_the_honcho_page_as_it_was_with_a_single_profile(viewer_client, home: Path) -> None:
    assert 'id="honcho-profiles"' not in viewer_client.get("/providers/honcho/").content.decode()
