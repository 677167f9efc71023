"""The home lock across processes, crash-atomic two-file saves (intent journal, roll-forward) and
the clean-up of our own stale temps, with real processes killed by SIGKILL at exact points."""

from __future__ import annotations

import fcntl
import json
import logging
import multiprocessing
import os
import signal
from pathlib import Path

import pytest

from provider_schemas import save_provider
from provider_schemas.errors import SaveFailed
from provider_schemas.saving.journal import JournalEntry, journal_path, sha256, write_journal
from provider_schemas.saving.locks import home_lock, lock_path, recover

from . import journal_workers
from .conftest import install_plugin

OLD = {"note": "old note", "api_key": "sk-old-1111"}
NEW = {"note": "new note", "api_key": "sk-new-2222"}


def _spawn(target, *args) -> int:
    process = multiprocessing.get_context("spawn").Process(target=target, args=args)
    process.start()
    process.join(timeout=120)
    assert process.exitcode is not None, "the child never finished"
    return process.exitcode


def _note(home: Path) -> str:
    return json.loads((home / "jsonprov.json").read_text(encoding="utf-8"))["note"]


def _env(home: Path) -> str:
    return (home / ".env").read_text(encoding="utf-8")


def _temps(home: Path) -> list[str]:
    return sorted(p.name for p in home.rglob("*.tmp"))


@pytest.fixture
def saved_home(agent_home: Path, plugin) -> Path:
    """jsonprov saved once: its note in ``jsonprov.json``, its key in ``.env`` (a two-file save)."""
    plugin("jsonprov")
    save_provider(home=agent_home, name="jsonprov", values=OLD)
    assert _note(agent_home) == "old note" and "sk-old-1111" in _env(agent_home)
    return agent_home


def _kill_between_renames(home: Path, user_home: Path) -> None:
    code = _spawn(journal_workers.save_killed_after_renames, str(home), str(user_home), "jsonprov", NEW, 1)
    assert code == -signal.SIGKILL
    # The half-done pair the kill left: first file new, second old, the journal says what to finish.
    assert _note(home) == "new note"
    assert "sk-old-1111" in _env(home)
    assert journal_path(home).exists()


# -- roll-forward ---------------------------------------------------------------------------------


def test_it_completes_a_save_killed_between_its_two_renames_when_recovering(saved_home, user_home) -> None:
    _kill_between_renames(saved_home, user_home)

    recovery = recover(home=saved_home)

    assert recovery is not None and recovery.completed
    assert _note(saved_home) == "new note"
    assert "JSONPROV_API_KEY=sk-new-2222\n" in _env(saved_home)
    assert not journal_path(saved_home).exists()
    assert _temps(saved_home) == []


def test_it_completes_a_killed_save_before_the_next_save_writes(saved_home, user_home) -> None:
    _kill_between_renames(saved_home, user_home)

    save_provider(home=saved_home, name="jsonprov", values={"limit": "7"})

    data = json.loads((saved_home / "jsonprov.json").read_text(encoding="utf-8"))
    assert data["note"] == "new note" and data["limit"] == 7
    assert "JSONPROV_API_KEY=sk-new-2222\n" in _env(saved_home)
    assert not journal_path(saved_home).exists()
    assert _temps(saved_home) == []


def test_it_leaves_both_files_old_when_killed_before_the_journal_and_the_next_save_drops_the_temps(
    saved_home, user_home
) -> None:
    code = _spawn(journal_workers.save_killed_before_journal, str(saved_home), str(user_home), "jsonprov", NEW)
    assert code == -signal.SIGKILL
    assert _note(saved_home) == "old note" and "sk-old-1111" in _env(saved_home)
    assert len(_temps(saved_home)) == 2  # the killed save's new versions, never renamed
    assert not journal_path(saved_home).exists()

    assert recover(home=saved_home) is None
    save_provider(home=saved_home, name="jsonprov", values={"limit": "3"})

    assert _note(saved_home) == "old note" and "sk-old-1111" in _env(saved_home)
    assert _temps(saved_home) == []


def test_it_never_rolls_forward_over_a_file_someone_changed_after_the_crash(saved_home, user_home, caplog) -> None:
    _kill_between_renames(saved_home, user_home)
    agent_env = "# the agent rewrote this\nJSONPROV_API_KEY=sk-agent-3333\n"
    (saved_home / ".env").write_text(agent_env, encoding="utf-8")
    caplog.set_level(logging.WARNING, logger="provider_schemas.saving.journal")

    recovery = recover(home=saved_home)

    assert recovery is not None and not recovery.completed
    assert _env(saved_home) == agent_env
    assert _note(saved_home) == "new note"
    assert not journal_path(saved_home).exists()
    assert recovery.failed_copy is not None and recovery.failed_copy.name.startswith("save-journal.failed-")
    assert json.loads(recovery.failed_copy.read_text(encoding="utf-8"))["files"]
    assert "changed by someone else" in caplog.text
    for secret in ("sk-agent-3333", "sk-new-2222", "sk-old-1111"):
        assert secret not in caplog.text
        assert secret not in recovery.failed_copy.read_text(encoding="utf-8")
    # The unrenamed new version stays as evidence, even through later saves.
    save_provider(home=saved_home, name="jsonprov", values={"limit": "4"})
    assert [name for name in _temps(saved_home) if name.startswith("..env.memory-panel.")]
    assert _env(saved_home) == agent_env


def test_it_leaves_the_files_alone_when_the_new_version_of_a_file_is_gone(saved_home, user_home, caplog) -> None:
    _kill_between_renames(saved_home, user_home)
    for name in _temps(saved_home):
        (saved_home / name).unlink()
    caplog.set_level(logging.WARNING, logger="provider_schemas.saving.journal")

    recovery = recover(home=saved_home)

    assert recovery is not None and not recovery.completed
    assert _note(saved_home) == "new note" and "sk-old-1111" in _env(saved_home)
    assert "is missing" in caplog.text
    assert list((saved_home / "panel").glob("save-journal.failed-*.json")) == [recovery.failed_copy]
    assert not journal_path(saved_home).exists()


def test_it_warns_by_name_about_keyring_entries_an_interrupted_save_was_changing(agent_home, caplog) -> None:
    target = agent_home / "settings.json"
    target.write_text("{}", encoding="utf-8")
    with home_lock(agent_home):
        write_journal(agent_home, [JournalEntry(agent_home / ".gone.tmp", target, sha256(b"{}") or "", None)],
                      ["JSONPROV_API_KEY"])
    caplog.set_level(logging.WARNING, logger="provider_schemas.saving.journal")

    recovery = recover(home=agent_home)  # the file already holds its new bytes: nothing to rename

    assert recovery is not None and recovery.completed and recovery.renamed == []
    assert recovery.keyring_names == ["JSONPROV_API_KEY"]
    assert "keyring entries JSONPROV_API_KEY" in caplog.text
    assert not journal_path(agent_home).exists()


def test_it_drops_the_journal_when_a_rename_fails_and_everything_is_rolled_back(saved_home, monkeypatch) -> None:
    real_replace = os.replace
    calls = {"n": 0}

    def second_rename_fails(src, dst):
        calls["n"] += 1
        if calls["n"] == 2:
            assert journal_path(saved_home).exists()  # the intent was on disk before the renames
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", second_rename_fails)
    with pytest.raises(SaveFailed):
        save_provider(home=saved_home, name="jsonprov", values=NEW)
    monkeypatch.setattr(os, "replace", real_replace)

    assert not journal_path(saved_home).exists()
    assert recover(home=saved_home) is None  # a rolled-back save is never rolled forward
    assert _note(saved_home) == "old note" and "sk-old-1111" in _env(saved_home)
    assert _temps(saved_home) == []


def test_it_writes_no_journal_for_a_one_file_save(saved_home, monkeypatch) -> None:
    from provider_schemas.saving import journal

    written: list[Path] = []
    real_write = journal.write_journal
    monkeypatch.setattr(
        journal, "write_journal", lambda home, *a, **kw: written.append(home) or real_write(home, *a, **kw)
    )

    save_provider(home=saved_home, name="jsonprov", values={"note": "only the json file"})
    save_provider(home=saved_home, name="jsonprov", values={"note": "both again", "api_key": "sk-x-4444"})

    assert written == [Path(os.path.realpath(saved_home))]


# -- stale temps ----------------------------------------------------------------------------------


def test_it_removes_only_its_own_stale_temps_beside_the_files_it_writes(saved_home) -> None:
    ours = [".jsonprov.json.memory-panel.k2j4_x9a.tmp", "..env.memory-panel.abcdefgh.tmp",
            ".config.yaml.memory-panel.zz99zz99.tmp"]
    foreign = [
        ".config.yaml.tmp",  # someone else's
        ".env_q1w2e3r4.tmp",  # the agent's own .env temps
        ".config_k3j4l5.tmp",  # the agent's config.yaml temps
        ".jsonprov.json.tmp",
        ".jsonprov.json.memory-panel.notes",  # not a .tmp
    ]
    for name in ours + foreign:
        (saved_home / name).write_text("leftover", encoding="utf-8")
    elsewhere = saved_home / "hindsight" / ".config.json.memory-panel.abcdefgh.tmp"  # a folder not written
    elsewhere.parent.mkdir()
    elsewhere.write_text("leftover", encoding="utf-8")

    save_provider(home=saved_home, name="jsonprov", values={"note": "cleaned"})

    present = {p.name for p in saved_home.iterdir()}
    assert not present & set(ours)
    assert set(foreign) <= present
    assert elsewhere.exists()


# -- the lock -------------------------------------------------------------------------------------


def _free_for_another_process(home: Path) -> bool:
    """An flock on a new open file description conflicts like another process's would."""
    fd = os.open(lock_path(home), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def test_it_lets_one_thread_take_the_home_lock_again_inside_itself(saved_home) -> None:
    with home_lock(saved_home):
        with home_lock(saved_home):
            save_provider(home=saved_home, name="jsonprov", values={"note": "nested"})
            assert not _free_for_another_process(saved_home)
        assert not _free_for_another_process(saved_home)  # still held by the outer level
    assert _free_for_another_process(saved_home)
    assert _note(saved_home) == "nested"
    mode = lock_path(saved_home).stat().st_mode & 0o777
    assert (mode, lock_path(saved_home).parent.stat().st_mode & 0o777) == (0o600, 0o700)


@pytest.mark.parametrize("b_values", [{"note": "from B"}, {"limit": "8"}])
def test_it_serialises_saves_of_two_processes_and_refuses_the_stale_one(
    saved_home, user_home, tmp_path, b_values
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        second = pool.apply_async(
            journal_workers.plan_then_commit_after_the_other,
            (str(saved_home), str(user_home), str(markers), b_values),
        )
        first = pool.apply_async(
            journal_workers.save_holding_the_lock,
            (str(saved_home), str(user_home), str(markers), {"note": "from A", "api_key": "sk-a-6666"}),
        )
        assert first.get(timeout=120) == "saved"
        result = second.get(timeout=120)

    # A saw B blocked on the lock; B got it only once A's save was complete, and its plan, made
    # before that save, is refused as a conflict (the planning code's rule) rather than applied blindly.
    assert result["other_done_when_locked"] is True
    assert result["outcome"].startswith("conflict: Changed elsewhere since the form was loaded: Note (note)")
    data = json.loads((saved_home / "jsonprov.json").read_text(encoding="utf-8"))
    assert data["note"] == "from A" and "limit" not in data
    assert "JSONPROV_API_KEY=sk-a-6666\n" in _env(saved_home)


def test_it_still_saves_inside_one_process_when_the_lock_file_cannot_be_created(tmp_path, caplog) -> None:
    agent_home = tmp_path / "home-without-panel-folder"
    agent_home.mkdir()
    install_plugin(agent_home, "jsonprov", fixture="jsonprov")
    (agent_home / "panel").write_text("not a folder", encoding="utf-8")
    caplog.set_level(logging.WARNING)

    save_provider(home=agent_home, name="jsonprov", values=NEW)
    save_provider(home=agent_home, name="jsonprov", values={"note": "again"})

    assert _note(agent_home) == "again" and "sk-new-2222" in _env(agent_home)
    assert caplog.text.count("Cannot open the save lock") == 1
    assert "no journal protects it" in caplog.text
    assert (agent_home / "panel").read_text(encoding="utf-8") == "not a folder"
    assert "sk-new-2222" not in caplog.text
