"""Completing what a killed panel process left half-done, run by the next holder of the home lock.

A plain save's journal is rolled forward file by file (``complete_pending``); a journal with a
``move`` section belongs to a move of secrets between ``.env`` and the keyring and is finished by
``finish_interrupted_move``, which takes the values from the store that still holds them. The
journal's format and the protocol that writes it are in ``provider_schemas.saving.journal``; this
module sits above it and below the lock (``locks`` calls ``complete_pending`` on every outermost
acquisition), so neither imports the other back.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from provider_schemas.saving import journal
from provider_schemas.secret_stores import ENV_FILE, KEYRING, SECRET_STORES
from provider_schemas.secret_stores.keyring_store import KeyringStore
from provider_schemas.storage import honcho as honcho_storage
from provider_schemas.storage.env_file import read_env
from provider_schemas.storage.json_doc import read_json_doc, real_target

# Warnings keep the journal's logger name: they are about the journal, wherever the code lives.
logger = logging.getLogger("provider_schemas.saving.journal")

OAUTH_PREFIX = "hch-at-"  # an OAuth access token in Honcho's host block: never moved


def complete_pending(home: Path) -> journal.Recovery | None:
    """Finish a save that a killed process left half-done. Call with the home lock held.

    Returns None when there is no journal. Never raises for a bad or stuck journal: it is set aside
    and a warning logged (paths and reasons only)."""
    path = journal.journal_path(home)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        logger.warning("Cannot read the save journal %s: %s", path, exc.strerror or type(exc).__name__)
        return journal.Recovery(completed=False, problems=["journal unreadable"])
    try:
        entries, keyring_names = journal.parse_journal(raw)
    except (ValueError, UnicodeDecodeError):
        # Most likely a kill while it was being written, before any rename; kept for inspection anyway.
        failed = journal.set_aside(path)
        logger.warning("Ignored an incomplete or damaged save journal %s (kept as %s)", path, failed)
        return journal.Recovery(completed=False, problems=["journal damaged"], failed_copy=failed)

    move = journal.move_section(raw)
    if move is not None:
        return finish_interrupted_move(home, entries, move)

    pending: list[journal.JournalEntry] = []
    problems: list[str] = []
    for entry in entries:
        current = journal.file_sha256(entry.target)
        if current == entry.new_sha256:
            continue
        if journal.file_sha256(entry.temp) != entry.new_sha256:
            problems.append(f"{entry.target}: its new version ({entry.temp}) is missing")
        elif current != entry.old_sha256:
            problems.append(f"{entry.target}: changed by someone else since the interrupted save")
        else:
            pending.append(entry)
    if problems:
        failed = journal.set_aside(path)
        logger.warning(
            "An interrupted save could not be completed; files left as they are, journal kept as %s: %s",
            failed,
            "; ".join(problems),
        )
        return journal.Recovery(completed=False, problems=problems, keyring_names=keyring_names, failed_copy=failed)

    renamed: list[Path] = []
    try:
        for entry in pending:
            os.replace(entry.temp, entry.target)
            journal.fsync_dir(entry.target.parent)
            renamed.append(entry.target)
    except OSError as exc:
        failed = journal.set_aside(path)
        problem = f"{exc.filename or ''}: {exc.strerror or type(exc).__name__}"
        logger.warning("Completing an interrupted save failed (journal kept as %s): %s", failed, problem)
        return journal.Recovery(completed=False, renamed=renamed, problems=[problem], keyring_names=keyring_names,
                        failed_copy=failed)
    journal.remove_journal(home)
    if renamed:
        logger.warning("Completed an interrupted save: %s", ", ".join(str(p) for p in renamed))
    if keyring_names:
        logger.warning(
            "An interrupted save was changing keyring entries %s; check them and save again if needed",
            ", ".join(keyring_names),
        )
    return journal.Recovery(completed=True, renamed=renamed, keyring_names=keyring_names)


def finish_interrupted_move(home: Path, entries: list[journal.JournalEntry], move: dict) -> journal.Recovery:
    """Roll forward a move a killed process left half-done (called by ``journal.complete_pending``
    with the home lock held). Never raises; never deletes a value that is not safely elsewhere."""
    path = journal.journal_path(home)
    to = move.get("to")
    names = [n for n in move.get("names", []) if isinstance(n, str)]
    keyring = KeyringStore(Path(home))

    def give_up(problem: str) -> journal.Recovery:
        failed = journal.set_aside(path)
        logger.warning(
            "An interrupted move of secrets to %s could not be finished (%s); nothing was deleted, so "
            "%s are still in .env, the keyring or both. Journal kept as %s; run the move again.",
            to, problem, ", ".join(names), failed,
        )
        return journal.Recovery(completed=False, problems=[problem], keyring_names=names, failed_copy=failed)

    if to not in SECRET_STORES or len(entries) > 2:
        return give_up("the journal is not a move this version wrote")
    pending: list[journal.JournalEntry] = []
    for entry in entries:
        current = journal.file_sha256(entry.target)
        if current == entry.new_sha256:
            continue
        if current != entry.old_sha256 or journal.file_sha256(entry.temp) != entry.new_sha256:
            return give_up(f"{entry.target} changed since the interrupted move")
        pending.append(entry)
    renamed: list[Path] = []
    try:
        if to == KEYRING and len(pending) == len(entries):
            # Killed before the first rename: the old files still hold every value; set them (again)
            # before they leave. (Once a file was renamed, every keyring entry had been set.)
            keyring.require_usable()
            for name, value in _old_values(home, pending, names, move.get("host_block")).items():
                keyring.set(name, value)
        for entry in pending:
            os.replace(entry.temp, entry.target)
            journal.fsync_dir(entry.target.parent)
            renamed.append(entry.target)
        if to == ENV_FILE:
            keyring.require_usable()
            for name in names:
                keyring.delete(name)
    except Exception as exc:  # a locked keyring, a failed rename: keep both copies
        return give_up(type(exc).__name__ + (f": {exc.check.problem}" if getattr(exc, "check", None) else ""))
    journal.remove_journal(home)
    logger.warning("Finished an interrupted move of secrets to %s: %s", to, ", ".join(names))
    return journal.Recovery(completed=True, renamed=renamed, keyring_names=names)


def _old_values(home: Path, entries: list[journal.JournalEntry], names: list[str], host: object) -> dict[str, str]:
    """The values a move to the keyring takes from the files it has not replaced yet: ``.env``
    first, then Honcho's host block (which the plugin reads first, so it wins)."""
    values: dict[str, str] = {}
    env_target = real_target(Path(home) / ".env")
    for entry in sorted(entries, key=lambda e: e.target != env_target):
        if entry.target == env_target:
            old = read_env(entry.target)
            values.update({n: v for n in names if (v := old.non_empty(n)) is not None})
        elif isinstance(host, dict) and isinstance(host.get("slots"), dict):
            slots = {str(k): str(v) for k, v in host["slots"].items() if k in names}
            doc = read_json_doc(entry.target, label=entry.target.name)
            values.update(host_block_values(doc.data, str(host.get("block", "")), slots))
    return values


def host_block_values(data: object, block: str, slots: dict[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    if not isinstance(data, dict):
        return found
    entries = honcho_storage.host_block(data, block)
    for name, slot in slots.items():
        value = entries.get(slot)
        if isinstance(value, str) and value.strip() and not value.startswith(OAUTH_PREFIX):
            found[name] = value
    return found
