"""Links in the agent home (issue 29, finding 2): nothing outside the home is read or written
through a symlink; a link that stays inside the home is followed, as the agent follows it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import memory_core
from memory_core.config import set_write_approval
from tests.providers_ui.helpers import write
from tests.serving import child_env

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parent.parent.parent
OUTSIDE_TEXT = "root:x:0:0:root:/root:/bin/bash\nsecret-line-from-outside\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside the agent home, world-readable like /etc/passwd."""
    path = tmp_path / "elsewhere" / "passwd"
    path.parent.mkdir()
    path.write_text(OUTSIDE_TEXT, encoding="utf-8")
    path.chmod(0o644)
    return path


def _unchanged(path: Path, mode: int = 0o644) -> None:
    assert path.read_text(encoding="utf-8") == OUTSIDE_TEXT
    assert path.stat().st_mode & 0o777 == mode


def _listing(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


# --- memory stores ----------------------------------------------------------------------------------


def test_it_shows_a_store_linked_out_of_the_home_as_linked_and_read_only_without_its_contents(
    owner_client, home, outside
):
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").symlink_to(outside)
    (home / "memories" / "USER.md").write_text("Likes tea.", encoding="utf-8")

    content = owner_client.get("/memory/").content.decode()

    assert "secret-line-from-outside" not in content and "root:x:0:0" not in content
    assert 'id="store-memory-linked"' in content
    assert "memories/MEMORY.md is a link to a file outside the agent's home." in content
    assert "Linked, read-only" in content
    assert "Add an entry to MEMORY.md" not in content
    assert "Likes tea." in content  # the other store is unaffected


def test_it_refuses_an_add_through_a_linked_store_from_the_page_the_core_and_the_command_line(
    owner_client, home, outside
):
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").symlink_to(outside)

    response = owner_client.post("/memory/memory/add/", {"content": "New fact."})
    result = memory_core.add_entry(home=home, target="memory", content="Another fact.")
    command = subprocess.run(
        [sys.executable, "-m", "memory_core", "add", "memory", "Third fact.", "--home", str(home)],
        cwd=REPO, env=child_env(), capture_output=True, text=True, timeout=120,
    )

    assert response.status_code == 409
    assert "is a link to a file outside the agent&#x27;s home" in response.content.decode()
    assert result["success"] is False
    assert result["error"] == (
        "Refusing to write MEMORY.md: memories/MEMORY.md is a link to a file outside the agent's home; "
        "the panel does not write through links. Nothing was changed."
    )
    assert command.returncode == 1
    assert "is a link to a file outside the agent's home" in command.stdout + command.stderr
    _unchanged(outside)
    assert (home / "memories" / "MEMORY.md").is_symlink()
    assert _listing(outside.parent) == ["passwd"]


def test_it_refuses_a_memories_folder_linked_out_of_the_home(owner_client, home, tmp_path):
    elsewhere = tmp_path / "shared-notes"
    elsewhere.mkdir()
    (elsewhere / "MEMORY.md").write_text(OUTSIDE_TEXT, encoding="utf-8")
    (elsewhere / "MEMORY.md").chmod(0o644)
    (home / "memories").symlink_to(elsewhere, target_is_directory=True)

    content = owner_client.get("/memory/").content.decode()
    page_add = owner_client.post("/memory/user/add/", {"content": "New fact."})
    result = memory_core.add_entry(home=home, target="memory", content="Another fact.")

    assert "secret-line-from-outside" not in content
    assert 'id="store-memory-linked"' in content and 'id="store-user-linked"' in content
    assert "memories is a link to a file outside the agent's home." in content
    assert page_add.status_code == 409
    assert result["success"] is False and result["linked"] == "memories"
    # Neither a store, a lock file, a temp nor a backup was created there.
    assert _listing(elsewhere) == ["MEMORY.md"]
    _unchanged(elsewhere / "MEMORY.md")


def test_it_follows_a_link_that_stays_inside_the_home(owner_client, home):
    real = home / "notes" / "MEMORY.md"
    real.parent.mkdir()
    real.write_text("Kept in notes.", encoding="utf-8")
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").symlink_to(Path("..") / "notes" / "MEMORY.md")

    content = owner_client.get("/memory/").content.decode()
    response = owner_client.post("/memory/memory/add/", {"content": "Added through the link."})

    assert "Kept in notes." in content and 'id="store-memory-linked"' not in content
    assert response.status_code in (200, 302)
    assert (home / "memories" / "MEMORY.md").is_symlink()
    assert real.read_text(encoding="utf-8") == "Kept in notes.\n§\nAdded through the link."
    assert not [name for name in os.listdir(home / "notes") if name.endswith(".tmp")]


def test_it_does_not_list_or_read_a_drift_backup_linked_out_of_the_home(owner_client, home, outside):
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Fact.", encoding="utf-8")
    (home / "memories" / "MEMORY.md.bak.1").symlink_to(outside)

    response = owner_client.get("/memory/memory/backups/MEMORY.md.bak.1/")

    assert "secret-line-from-outside" not in response.content.decode()
    assert response.status_code < 500


# --- provider files, .env and config.yaml ------------------------------------------------------------


def _put(client, name: str, values: dict) -> object:
    return client.put(f"/api/memory/providers/{name}/config", data=json.dumps({"values": values}),
                      content_type="application/json")


def test_it_refuses_to_save_a_secret_into_a_linked_env_file_and_does_not_show_it(owner_client, home, tmp_path):
    outside = write(tmp_path / "elsewhere" / "env", "HINDSIGHT_API_KEY=outside-secret-value\n", 0o644)
    (home / ".env").symlink_to(outside)
    before = outside.read_bytes()

    shown = owner_client.get("/api/memory/providers/hindsight/config")
    page = owner_client.get("/providers/hindsight/")
    response = _put(owner_client, "hindsight", {"api_key": "hs-new-secret-123456"})

    assert shown.status_code == 200 and page.status_code == 200
    assert "outside-secret-value" not in shown.content.decode() + page.content.decode()
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "Cannot save: .env is a link to a file outside the agent's home; the panel does not write through links. "
        "Nothing was changed."
    )
    assert outside.read_bytes() == before and outside.stat().st_mode & 0o777 == 0o644
    assert (home / ".env").is_symlink()
    assert _listing(outside.parent) == ["env"]


def test_it_refuses_to_save_a_linked_honcho_file(owner_client, home, tmp_path):
    outside = write(tmp_path / "elsewhere" / "honcho.json",
                    '{"hosts": {"hermes": {"workspace": "outside-workspace-name"}}}\n', 0o644)
    (home / "honcho.json").symlink_to(outside)
    before = outside.read_bytes()

    shown = owner_client.get("/api/memory/providers/honcho/config")
    page = owner_client.get("/providers/honcho/")
    response = _put(owner_client, "honcho", {"baseUrl": "http://127.0.0.1:8000"})

    assert shown.status_code == 200 and page.status_code == 200
    assert "outside-workspace-name" not in shown.content.decode() + page.content.decode()
    assert "honcho.json is a link to a file outside the agent" in page.content.decode()
    assert response.status_code == 409
    assert "honcho.json is a link to a file outside the agent's home" in response.json()["detail"]
    assert outside.read_bytes() == before
    assert _listing(outside.parent) == ["honcho.json"]


def test_it_does_not_create_or_lock_a_file_through_a_linked_honcho_lock(owner_client, home, tmp_path):
    write(home / "honcho.json", '{"hosts": {"hermes": {"workspace": "w"}}}\n')
    target = tmp_path / "elsewhere" / "created-through-the-link"
    target.parent.mkdir()
    (home / "honcho.json.lock").symlink_to(target)

    shown = owner_client.get("/providers/honcho/")
    response = _put(owner_client, "honcho", {"baseUrl": "http://127.0.0.1:8000"})

    assert shown.status_code == 200
    assert response.status_code == 409
    assert "honcho.json.lock is a link to a file outside the agent's home" in response.json()["detail"]
    assert not target.exists()
    assert json.loads((home / "honcho.json").read_text()) == {"hosts": {"hermes": {"workspace": "w"}}}


def test_it_refuses_to_save_a_linked_config_yaml(owner_client, home, tmp_path):
    outside = write(tmp_path / "elsewhere" / "config.yaml", "memory:\n  memory_char_limit: 4321\n", 0o644)
    (home / "config.yaml").symlink_to(outside)
    before = outside.read_bytes()

    page = owner_client.get("/settings/")
    saved = owner_client.post("/settings/", {"v:memory_char_limit": "3000", "o:memory_char_limit": "2200"})
    activated = owner_client.put("/api/memory/provider", data=json.dumps({"provider": "holographic"}),
                                 content_type="application/json")

    assert page.status_code == 200 and saved.status_code < 500 and activated.status_code == 409
    assert 'value="4321"' not in page.content.decode() and 'value="2200"' in page.content.decode()
    assert "config.yaml is a link to a file outside the agent&#x27;s home" in saved.content.decode()
    assert "config.yaml is a link to a file outside the agent's home" in activated.json()["detail"]
    with pytest.raises(ValueError, match=r"config\.yaml is a link to a file outside the agent's home"):
        set_write_approval(home, True)
    assert outside.read_bytes() == before
    assert yaml.safe_load(outside.read_text()) == {"memory": {"memory_char_limit": 4321}}
    assert _listing(outside.parent) == ["config.yaml"]


def test_it_refuses_a_session_database_linked_out_of_the_home(owner_client, home, tmp_path):
    from memory_core.history.db import HistoryUnavailable, open_history

    outside = tmp_path / "elsewhere" / "state.db"
    outside.parent.mkdir()
    outside.write_bytes(b"")
    (home / "state.db").symlink_to(outside)

    with pytest.raises(HistoryUnavailable) as caught, open_history(home):
        pass

    assert caught.value.state == "unreadable"
    assert "link to a file outside the agent's home" in caught.value.detail


def test_it_explains_a_linked_store_and_its_refusal_in_chinese(owner_client, home, outside):
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").symlink_to(outside)
    owner_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})

    page = owner_client.get("/memory/").content.decode()
    refused = owner_client.post("/memory/memory/add/", {"content": "New fact."}).content.decode()

    assert "链接，只读" in page
    assert "memories/MEMORY.md 是指向智能体主目录之外文件的链接。" in page
    assert "是指向智能体主目录之外文件的链接；面板不会通过链接" in refused


def test_it_does_not_follow_a_link_swapped_in_between_the_check_and_the_open(home, tmp_path, monkeypatch):
    from memory_core import safe_paths

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Fact.", encoding="utf-8")
    checked = safe_paths._resolved_parts

    def check_then_swap(path, root):
        parts = checked(path, root)  # the check passes: memories/ is a real folder here
        if (home / "memories").is_dir() and not (home / "memories").is_symlink():
            (home / "memories").rename(home / "memories-moved")
            (home / "memories").symlink_to(elsewhere, target_is_directory=True)
        return parts

    monkeypatch.setattr(safe_paths, "_resolved_parts", check_then_swap)
    # The general path, the one that checks and then opens (a plain memories/ folder is opened once
    # with O_NOFOLLOW and has no such window; see the next test).
    monkeypatch.setattr(safe_paths, "plain_folder", lambda home, parts: None)
    result = memory_core.add_entry(home=home, target="memory", content="New fact.")

    assert result["success"] is False
    assert "is a link to a file outside the agent's home" in result["error"]
    assert _listing(elsewhere) == []
    assert (home / "memories-moved" / "MEMORY.md").read_text(encoding="utf-8") == "Fact."


def test_it_writes_into_the_folder_it_opened_when_a_link_replaces_memories_afterwards(home, tmp_path, monkeypatch):
    from memory_core import safe_paths

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Fact.", encoding="utf-8")
    opened = safe_paths.plain_folder

    def open_then_swap(root, parts):
        fd = opened(root, parts)  # memories/ is a real folder when it is opened
        (home / "memories").rename(home / "memories-moved")
        (home / "memories").symlink_to(elsewhere, target_is_directory=True)
        return fd

    monkeypatch.setattr(safe_paths, "plain_folder", open_then_swap)
    memory_core.add_entry(home=home, target="memory", content="New fact.")

    assert _listing(elsewhere) == []  # whatever the outcome, nothing went through the new link
    assert (home / "memories-moved" / "MEMORY.md").read_text(encoding="utf-8").startswith("Fact.")
