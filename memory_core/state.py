"""Read-only views of a home's stores for the panel (selectors). No lock, no write.

Readers rely on the writers' atomic rename, exactly as the agent's own readers do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from memory_core import safe_paths
from memory_core.config import MemoryConfig, config_path, read_memory_config
from memory_core.drift import DriftInfo, backup_sort_key, detect_drift, is_backup_name, text_digest
from memory_core.entries import (
    TARGETS,
    char_count,
    file_name_for,
    parse_entries,
    percent,
    split_pieces,
    usage_text,
)
from memory_core.files import read_store_file
from memory_core.fingerprints import fingerprint_of
from memory_core.home import resolve_home
from memory_core.pending import pending_dir
from memory_core.snapshot import render_block
from memory_core.threats import MEMORY_SCOPE, ThreatFinding, scan_detailed

Home = str | os.PathLike[str] | None

STATUS_OK = "ok"
STATUS_MISSING = "missing"
STATUS_UNREADABLE = "unreadable"
STATUS_DRIFTED = "drifted"
# memory-panel: the file (or memories/) is a link leading out of the home; never read or written.
STATUS_LINKED = "linked"


@dataclass(frozen=True)
class EntryView:
    index: int
    text: str
    chars: int
    share_of_budget: float  # chars / limit (0.0 when the limit is 0 or less)
    findings: list[ThreatFinding] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        """The agent would show a [BLOCKED: ...] placeholder instead of this entry."""
        return bool(self.findings)


@dataclass(frozen=True)
class BackupFile:
    name: str
    path: str
    mtime: float
    size: int


@dataclass(frozen=True)
class StoreState:
    target: str
    file_name: str
    path: str
    exists: bool
    enabled: bool
    readable: bool
    error: str | None
    entries: list[EntryView]
    total_chars: int
    limit: int
    percent: int
    usage: str
    over_budget: bool
    drift: DriftInfo | None
    backups: list[BackupFile]
    snapshot: str  # the block the agent will inject at its next session start ("" when empty)
    duplicates_dropped: int
    size_bytes: int
    # text_digest of the decoded text ("" when unreadable): what resolve_drift expects back.
    digest: str = ""
    # The store leads out of the home through a link (``linked_name``, relative to the home).
    linked: bool = False
    linked_name: str = ""

    @property
    def status(self) -> str:
        if self.linked:
            return STATUS_LINKED
        if not self.readable:
            return STATUS_UNREADABLE
        if self.drift is not None:
            return STATUS_DRIFTED
        if not self.exists:
            return STATUS_MISSING
        return STATUS_OK

    @property
    def blocked_count(self) -> int:
        return sum(1 for entry in self.entries if entry.blocked)


def list_backups(home: Home, target: str) -> list[BackupFile]:
    """Drift backups of ``target``'s file, oldest first."""
    directory = resolve_home(home) / "memories"
    file_name = file_name_for(target)
    backups = []
    if safe_paths.leaving_link(directory, resolve_home(home)) is not None:
        return []
    try:
        scanned = list(os.scandir(directory))
    except OSError:
        return []
    for entry in scanned:
        if not is_backup_name(entry.name, file_name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        backups.append(BackupFile(entry.name, str(Path(entry.path).absolute()), info.st_mtime, info.st_size))
    backups.sort(key=lambda backup: backup_sort_key(backup.name))
    return backups


def read_store_state(*, home: Home, target: str, config: MemoryConfig | None = None) -> StoreState:
    """Everything the panel shows about one store, read fresh from disk."""
    if target not in TARGETS:
        raise ValueError(f"Invalid target '{target}'. Use 'memory' or 'user'.")
    config = read_memory_config(home) if config is None else config
    limit = config.limit_for(target)
    file_name = file_name_for(target)
    root = resolve_home(home)
    path = root / "memories" / file_name
    read = read_store_file(path, home=root)
    text = read.text or ""
    pieces = split_pieces(text)
    live = parse_entries(text)
    total = char_count(live)
    views = [
        EntryView(
            index=index,
            text=entry,
            chars=len(entry),
            share_of_budget=(len(entry) / limit) if limit > 0 else 0.0,
            findings=scan_detailed(entry, MEMORY_SCOPE),
        )
        for index, entry in enumerate(live)
    ]
    return StoreState(
        target=target,
        file_name=file_name,
        path=str(path),
        exists=read.exists,
        enabled=config.enabled_for(target),
        readable=read.readable,
        error=read.error,
        entries=views,
        total_chars=total,
        limit=limit,
        percent=percent(total, limit),
        usage=usage_text(total, limit),
        over_budget=total > limit,
        drift=detect_drift(text, limit) if read.readable else None,
        backups=list_backups(home, target),
        snapshot=render_block(target, live, limit, log=False),
        duplicates_dropped=len(pieces) - len(live),
        size_bytes=read.size,
        digest=text_digest(text) if read.readable else "",
        linked=read.linked,
        linked_name=(safe_paths.leaving_link(path, root) or file_name) if read.linked else "",
    )


def read_all_states(*, home: Home, config: MemoryConfig | None = None) -> dict[str, StoreState]:
    config = read_memory_config(home) if config is None else config
    return {target: read_store_state(home=home, target=target, config=config) for target in TARGETS}


def fingerprint_paths(home: Home) -> tuple[Path, ...]:
    """The files and folders whose change the memory pages show (also what a change feed watches)."""
    root = resolve_home(home)
    memories = root / "memories"
    return (
        memories / "MEMORY.md",
        memories / "USER.md",
        memories,
        pending_dir(root),
        config_path(root),
    )


def fingerprint(home: Home) -> str:
    """Changes whenever either store, its backups, the pending queue or config.yaml changes.

    Only ``stat`` calls, no reads: cheap enough to poll every few seconds. Reading the stores
    leaves it unchanged (see memory_core/fingerprints.py).
    """
    return fingerprint_of(fingerprint_paths(home))
