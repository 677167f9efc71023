"""Moving every stored secret of a home between ``.env`` and the OS keyring, all or nothing.

A move covers the ``env_key`` of every secret declared by every discoverable provider. It is one
save (``transaction.commit``) under the home lock, journalled with a ``move`` section, and ordered
so that a secret is in at least one store at every instant:

* to the keyring: the keyring entries are set first, then ``.env`` is replaced by a copy without
  those lines (every other byte kept, mode 0600);
* to ``.env``: ``.env`` is replaced first by a copy with the values, then the keyring entries are
  deleted.

A process killed in between leaves the journal; the next holder of the home lock rolls the move
forward (``finish_interrupted_move``): to the keyring, the values still in the old ``.env`` are
set again and the new ``.env`` put in place; to ``.env``, the new ``.env`` is put in place and the
keyring entries deleted. When that is impossible (the keyring is locked, ``.env`` changed
meanwhile) nothing is deleted anywhere: every secret is still in one store or both, and a warning
names the variables. Values are never journalled or logged.

A variable already set in both stores keeps the value the agent sees (the ``.env`` one, which
overrides its environment); the other copy is dropped.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from provider_schemas.errors import StorageParseError
from provider_schemas.homes import PROFILE_NAME_RE, root_home
from provider_schemas.saving import journal
from provider_schemas.saving.locks import home_lock
from provider_schemas.saving.transaction import FileWrite, KeyringOp, commit
from provider_schemas.secret_stores import ENV_FILE, KEYRING, SECRET_STORES
from provider_schemas.secret_stores.environment import declared_secret_variables
from provider_schemas.secret_stores.keyring_store import KeyringStore
from provider_schemas.storage.env_file import EnvDoc, read_env, render
from provider_schemas.storage.json_doc import real_target

logger = logging.getLogger(__name__)


@dataclass
class MovePlan:
    """What a move of ``home``'s secrets to ``to`` would do. ``names``: the variables whose value
    changes store (shown to the user before confirming); ``dropped``: variables set in both stores
    whose copy in the old store is removed."""

    home: Path
    to: str
    names: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    writes: list[FileWrite] = field(default_factory=list, repr=False)
    keyring_ops: list[KeyringOp] = field(default_factory=list, repr=False)

    @property
    def variables(self) -> list[str]:
        """Every variable the move touches (moved or dropped), sorted."""
        return sorted({*self.names, *self.dropped})

    @property
    def empty(self) -> bool:
        return not self.names and not self.dropped


def _env_write(home: Path, env: EnvDoc, changes: dict[str, str | None]) -> FileWrite:
    if env.encoding_error is not None:
        raise StorageParseError(file=".env", problem=env.encoding_error, fmt="UTF-8 text")
    path = Path(home) / ".env"
    try:
        old_mode: int | None = os.stat(path).st_mode & 0o777
    except OSError:
        old_mode = None
    return FileWrite(real_target(path), ".env", render(env, changes), env.raw, 0o600, old_mode)


def plan_move(*, home: Path, to: str, checked: bool = False) -> MovePlan:
    """The move of ``home``'s secrets into store ``to``. Raises ``SecretStoreUnavailable`` (the
    keyring failed its check; ``checked``: the caller has just run it) and ``StorageParseError``
    (``.env`` is not UTF-8 text)."""
    if to not in SECRET_STORES:
        raise ValueError(f"unknown secret store {to!r}")
    home = Path(home)
    keyring = KeyringStore(home)
    if not checked:
        keyring.require_usable()
    declared = declared_secret_variables(home=home)
    env = read_env(home / ".env")
    in_keyring = keyring.get_many(declared)
    plan = MovePlan(home=home, to=to)
    if to == KEYRING:
        for name in declared:
            value = env.non_empty(name)
            if value is not None:
                plan.names.append(name)
                plan.keyring_ops.append(KeyringOp(name, value))
        if plan.names:
            plan.writes.append(_env_write(home, env, {name: None for name in plan.names}))
        return plan
    changes: dict[str, str | None] = {}
    for name in declared:
        if name not in in_keyring:
            continue
        if env.non_empty(name) is None:
            plan.names.append(name)
            changes[name] = in_keyring[name]
        else:
            plan.dropped.append(name)  # the agent already reads the .env value; keep it
        plan.keyring_ops.append(KeyringOp(name, None))
    if changes:
        plan.writes.append(_env_write(home, env, changes))
    return plan


def move_secrets(*, home: Path, to: str, expected: list[str] | None = None) -> MovePlan:
    """Plan and commit the move of one home under its lock; returns what was moved.

    ``expected``: the variable names the user confirmed; when the stores changed since, nothing
    happens and ``MoveChanged`` is raised. Raises what ``plan_move`` and ``commit`` raise."""
    confirmed = None if expected is None else {str(home): expected}
    return move_secrets_of_homes(homes=[home], to=to, expected=confirmed)[0]


def every_profile_home(home: Path) -> list[Path]:
    """The default profile's home of ``home`` and every profile beside it (``<root>/profiles/<name>``)."""
    root = root_home(home)
    homes = [root]
    with contextlib.suppress(OSError):
        for entry in sorted(os.listdir(root / "profiles")):
            if PROFILE_NAME_RE.fullmatch(entry) and (root / "profiles" / entry).is_dir():
                homes.append(root / "profiles" / entry)
    return homes


def move_secrets_of_homes(
    *, homes: list[Path], to: str, expected: dict[str, list[str]] | None = None
) -> list[MovePlan]:
    """``move_secrets`` over several homes (every profile), all or nothing: every home is locked
    and planned before anything is written (one refusal stops all), and when a later home fails
    the homes already moved are put back exactly (``.env`` bytes and keyring entries).

    ``expected``: confirmed variable names per home (``str(home)``)."""
    ordered = sorted(dict.fromkeys(Path(os.path.realpath(h)) for h in homes))  # one lock order: no deadlock
    with contextlib.ExitStack() as stack:
        for home in ordered:
            stack.enter_context(home_lock(home))
        plans = [plan_move(home=home, to=to) for home in ordered]
        if expected is not None:
            confirmed = {str(Path(os.path.realpath(k))): sorted(v) for k, v in expected.items()}
            if any(confirmed.get(str(plan.home), []) != plan.variables for plan in plans):
                raise MoveChanged(sorted({n for plan in plans for n in plan.variables}))
        done: list[tuple[MovePlan, dict[str, str]]] = []
        try:
            for plan in plans:
                if plan.empty:
                    continue
                store = KeyringStore(plan.home)
                previous = store.get_many(plan.variables)
                commit(plan.writes, plan.keyring_ops, store, home=plan.home if plan.writes else None,
                       move={"to": to, "names": plan.variables})
                done.append((plan, previous))
        except BaseException:
            for plan, previous in reversed(done):
                _put_back(plan, previous)
            raise
    return plans


def _put_back(plan: MovePlan, previous: dict[str, str]) -> None:
    """Undo a committed move: ``.env`` back to its old bytes, keyring entries to their old values.
    Itself a move in the other direction (same ordering and journal), so a crash here is safe too."""
    store = KeyringStore(plan.home)
    writes = []
    for w in plan.writes:
        current = journal.file_sha256(w.target)
        current_bytes = w.target.read_bytes() if current is not None else None
        writes.append(FileWrite(w.target, w.label, w.old or b"", current_bytes, w.old_mode or 0o600, w.mode))
    ops = [KeyringOp(name, previous.get(name)) for name in plan.variables]
    back = ENV_FILE if plan.to == KEYRING else KEYRING
    try:
        commit(writes, ops, store, home=plan.home if writes else None, move={"to": back, "names": plan.variables})
    except Exception:
        logger.warning("Could not put back the secrets moved in %s: %s", plan.home, ", ".join(plan.variables))


class MoveChanged(Exception):
    """The secrets to move are not the ones the user confirmed (someone saved meanwhile)."""

    def __init__(self, variables: list[str]) -> None:
        self.variables = variables
        super().__init__("The stored secrets changed since the move was reviewed; review it again.")


# -- recovery -------------------------------------------------------------------------------------


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

    if to not in SECRET_STORES or len(entries) > 1:
        return give_up("the journal is not a move this version wrote")
    renamed: list[Path] = []
    try:
        for entry in entries:
            current = journal.file_sha256(entry.target)
            if current == entry.new_sha256:
                continue
            if current != entry.old_sha256 or journal.file_sha256(entry.temp) != entry.new_sha256:
                return give_up(f"{entry.target} changed since the interrupted move")
            if to == KEYRING:
                # The old .env still holds every value: set them (again) before they leave it.
                old = read_env(entry.target)
                keyring.require_usable()
                for name in names:
                    value = old.non_empty(name)
                    if value is not None:
                        keyring.set(name, value)
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
