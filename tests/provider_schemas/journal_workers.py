"""Child processes for the save-journal tests (spawn start method: importable, no pytest).

The kill workers end their own process with SIGKILL at an exact point of a save, so nothing of
Python's clean-up runs, as after ``kill -9`` or a power cut.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _wait_for(path: Path, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} never appeared")
        time.sleep(0.01)


def save_killed_after_renames(home: str, user_home: str, name: str, values: dict[str, Any], renames: int) -> None:
    """Save, and die right after the ``renames``-th ``os.replace`` of the commit."""
    os.environ["HOME"] = user_home
    from provider_schemas import save_provider

    real_replace = os.replace
    done = {"n": 0}

    def replace_then_maybe_die(src: Any, dst: Any) -> None:
        real_replace(src, dst)
        done["n"] += 1
        if done["n"] == renames:
            _die()

    os.replace = replace_then_maybe_die  # type: ignore[assignment]
    save_provider(home=Path(home), name=name, values=values)


def save_killed_before_journal(home: str, user_home: str, name: str, values: dict[str, Any]) -> None:
    """Save, and die once every temp is written but before the intent journal exists."""
    os.environ["HOME"] = user_home
    from provider_schemas import save_provider
    from provider_schemas.saving import journal

    def die(*_args: Any, **_kwargs: Any) -> None:
        _die()

    journal.write_journal = die  # type: ignore[assignment]
    save_provider(home=Path(home), name=name, values=values)


def _lock_has_waiter(lock_file: Path) -> bool:
    """True when /proc/locks shows a process blocked on an flock of ``lock_file``."""
    inode = os.stat(lock_file).st_ino
    with open("/proc/locks", encoding="ascii") as handle:
        for line in handle:
            parts = line.split()
            if "->" in parts and "FLOCK" in parts and any(p.endswith(f":{inode}") for p in parts):
                return True
    return False


def save_holding_the_lock(home: str, user_home: str, markers: str, values: dict[str, Any]) -> str:
    """Take the home lock, wait until another process is blocked on it, save, mark, release."""
    os.environ["HOME"] = user_home
    from provider_schemas import save_provider
    from provider_schemas.saving.locks import home_lock, lock_path

    marks = Path(markers)
    _wait_for(marks / "B-planned")
    with home_lock(Path(home)):
        (marks / "A-holds").write_text(str(os.getpid()), encoding="utf-8")
        deadline = time.monotonic() + 180
        while not _lock_has_waiter(lock_path(Path(home))):
            if time.monotonic() > deadline:
                raise TimeoutError("the other process never waited for the lock")
            time.sleep(0.01)
        save_provider(home=Path(home), name="jsonprov", values=values)
        (marks / "A-saved").write_text("", encoding="utf-8")
    return "saved"


def plan_then_commit_after_the_other(home: str, user_home: str, markers: str, values: dict[str, Any]) -> dict[str, Any]:
    """Plan a save, let the other process take the lock, then commit the plan (blocks on the lock)."""
    os.environ["HOME"] = user_home
    from provider_schemas import commit_save, plan_save
    from provider_schemas.errors import ConflictError
    from provider_schemas.saving.locks import home_lock

    marks = Path(markers)
    plan = plan_save(home=Path(home), name="jsonprov", values=values)
    (marks / "B-planned").write_text("", encoding="utf-8")
    _wait_for(marks / "A-holds")
    with home_lock(Path(home)):
        # The first thing seen with the lock held: the other save is already complete.
        other_done = (marks / "A-saved").exists()
        try:
            commit_save(plan)
            outcome = "saved"
        except ConflictError as exc:
            outcome = f"conflict: {exc}"
    return {"other_done_when_locked": other_done, "outcome": outcome}
