"""Temp files a killed save left behind, removed at start-up (docs/safe_paths.md, "Leftover temp files").

Two kinds, each removed only where nobody can be writing it:

* ``.<name>.memory-panel.<random>.tmp`` (provider files, ``.env``, ``config.yaml``): every panel
  save writes them while holding the home lock, so with that lock held a temp is a leftover unless
  a save journal still names it (then it is evidence for the journal's recovery and is kept);
* ``.mem_<8 hex>.tmp`` in ``memories/`` (the store's atomic write): every writer, the agent and
  the panel alike, holds the store's ``flock`` while its temp exists; they are removed only while
  this process holds both stores' locks, taken without waiting (a busy lock: that folder is left
  for the next start).

The locks are what guarantees that no live process is writing a removed file; when the home lock
is this process's only (its file cannot be opened, so other processes are not excluded), provider
temps are left alone. On top of that only regular files last changed before the clean-up began
are removed, only in the home's own folders (the home, its direct subfolders, ``memories/``, and
the same in each profile), never through a link. Nothing else is touched.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from pathlib import Path

from memory_core import safe_paths
from memory_core.files import is_temp_name
from memory_core.locking import exclusive_lock
from provider_schemas.saving import journal
from provider_schemas.saving.locks import held_home, home_lock

logger = logging.getLogger(__name__)

_SKIPPED_FOLDERS = {"profiles", "memories", "sessions", "logs", "node_modules", ".git"}


def _folders(home: Path) -> list[Path]:
    """The home and its direct subfolders that are real folders (a link is never entered)."""
    folders = [home]
    with contextlib.suppress(OSError):
        for entry in os.scandir(home):
            if entry.name not in _SKIPPED_FOLDERS and entry.is_dir(follow_symlinks=False):
                folders.append(Path(entry.path))
    return folders


def _profile_homes(home: Path) -> list[Path]:
    homes = [home]
    with contextlib.suppress(OSError):
        profiles = home / "profiles"
        if not profiles.is_symlink():
            homes += [Path(e.path) for e in os.scandir(profiles) if e.is_dir(follow_symlinks=False)]
    return homes


def _remove_in_home(home: Path, started: float) -> list[str]:
    removed: list[str] = []
    with home_lock(home):
        keep = {str(path) for path in journal.protected_temps(home)}
        other_processes_excluded = held_home() is not None
        for folder in _folders(home) if other_processes_excluded else ():
            names = safe_paths.remove_stale_temps(
                folder,
                home,
                matches=lambda name, folder=folder: journal.is_our_temp(name) and str(folder / name) not in keep,
                older_than=started,
            )
            removed += [safe_paths.display_name(folder / name, home) for name in names]
    memories = home / "memories"
    if not memories.is_dir() or safe_paths.leaving_link(memories, home) is not None:
        return removed
    with contextlib.suppress(OSError):
        if not any(is_temp_name(name) for name in os.listdir(memories)):
            return removed  # nothing to do: no lock file is created for nothing
    try:
        with contextlib.ExitStack() as stack:
            for name in ("MEMORY.md.lock", "USER.md.lock"):
                if not stack.enter_context(exclusive_lock(memories / name, home=home, blocking=False)):
                    return removed
            names = safe_paths.remove_stale_temps(memories, home, matches=is_temp_name, older_than=started)
            removed += [f"memories/{name}" for name in names]
    except OSError as exc:  # a lock file that cannot be opened: leave the folder alone
        logger.info("Left memories/ of %s alone at start-up: %s", home.name, exc.strerror or type(exc).__name__)
    return removed


def remove_leftover_temps(*, home: Path, started: float | None = None) -> list[str]:
    """Remove the panel's leftover temp files in ``home`` and its profiles; returns their names
    (relative to ``home``). Files changed at or after ``started`` (default: now) are kept."""
    started = time.time() if started is None else started
    home = Path(home)
    removed: list[str] = []
    for each in _profile_homes(home):
        if each != home and safe_paths.leaving_link(each, home) is not None:
            continue
        prefix = "" if each == home else safe_paths.display_name(each, home) + "/"
        removed += [prefix + name for name in _remove_in_home(each, started)]
    if removed:
        logger.info("Removed %d temp file(s) left by an interrupted save: %s", len(removed), ", ".join(removed))
    return removed
