"""Moving every stored secret of a home between ``.env`` and the OS keyring, all or nothing.

A move covers the ``env_key`` of every secret declared by every discoverable provider. It is one
save (``transaction.commit``) under the home lock, journalled with a ``move`` section, and ordered
so that a secret is in at least one store at every instant:

* to the keyring: the keyring entries are set first, then ``.env`` is replaced by a copy without
  those lines (every other byte kept, mode 0600);
* to ``.env``: ``.env`` is replaced first by a copy with the values, then the keyring entries are
  deleted.

A process killed in between leaves the journal; the next holder of the home lock rolls the move
forward (``saving.recovery.finish_interrupted_move``): to the keyring, the values still in the old
``.env`` are set again and the new ``.env`` put in place; to ``.env``, the new ``.env`` is put in place and the
keyring entries deleted. When that is impossible (the keyring is locked, ``.env`` changed
meanwhile) nothing is deleted anywhere: every secret is still in one store or both, and a warning
names the variables. Values are never journalled or logged.

A variable already set in both stores keeps the value the agent sees (the ``.env`` one, which
overrides its environment); the other copy is dropped.

Honcho's key is also mirrored in plain text into its host block of ``honcho.json`` with the env file
store (0.19.0 behaviour), and the plugin reads that copy first. A move to the keyring takes the
host-block value (the one the agent loads) into the keyring and removes it from the block, in the
same commit and journal; a move back to ``.env`` does not re-create it, so the agent then loads the
key from ``HONCHO_API_KEY``. An OAuth access token in the block is never touched.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from memory_core.home import is_profile_folder
from provider_schemas.config_schema import STORAGE_HONCHO_HOST_BLOCK
from provider_schemas.errors import StorageParseError
from provider_schemas.homes import root_home
from provider_schemas.loading.discovery import discover
from provider_schemas.reading.secret_values import declared_secret_variables
from provider_schemas.saving import journal
from provider_schemas.saving.locks import home_lock
from provider_schemas.saving.recovery import host_block_values
from provider_schemas.saving.transaction import FileWrite, KeyringOp, commit
from provider_schemas.secret_stores import ENV_FILE, KEYRING, SECRET_STORES
from provider_schemas.secret_stores.keyring_store import KeyringStore
from provider_schemas.storage import honcho as honcho_storage
from provider_schemas.storage.env_file import EnvDoc, read_env, render
from provider_schemas.storage.json_doc import JsonDoc, real_target, render_json

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
    host_block: HostBlockSecrets | None = field(default=None, repr=False)

    @property
    def journal_move(self) -> dict[str, object]:
        """The journal's ``move`` section: names only, never values."""
        move: dict[str, object] = {"to": self.to, "names": self.variables}
        if self.host_block is not None and self.to == KEYRING:
            move["host_block"] = {"block": self.host_block.block, "slots": self.host_block.slots}
        return move

    @property
    def shadowed(self) -> list[str]:
        """Variables moved out of Honcho's host block that a top-level key of the same file then
        beats (the plugin reads host, then top level, then the environment): the agent would load
        that other key after the move. Shown before confirming."""
        if self.host_block is None or self.to != KEYRING:
            return []
        return list(self.host_block.root_set)

    @property
    def shadowing_file(self) -> str:
        return self.host_block.doc.label if self.host_block is not None else ""

    @property
    def variables(self) -> list[str]:
        """Every variable the move touches (moved or dropped), sorted."""
        return sorted({*self.names, *self.dropped})

    @property
    def empty(self) -> bool:
        return not self.names and not self.dropped


@dataclass
class HostBlockSecrets:
    """Plain-text secrets in the active host block of Honcho's file. ``slots``: variable → key in
    the block; ``values``: variable → value (never journalled)."""

    doc: JsonDoc
    block: str
    slots: dict[str, str]
    values: dict[str, str] = field(repr=False)
    root_set: list[str] = field(default_factory=list)  # also set at the file's top level (every host's)


def host_block_secrets(*, home: Path, env: EnvDoc) -> HostBlockSecrets | None:
    """The plain-text secrets in ``home``'s Honcho host block, when there are any."""
    for entry in discover(home=home).providers:
        schema = entry.schema
        if schema is None or schema.storage != STORAGE_HONCHO_HOST_BLOCK:
            continue
        slots = {f.env_key: f.key for f in schema.fields if f.is_secret and f.env_key and f.scope != "root"}
        if not slots:
            return None
        target, doc = honcho_storage.resolve_target(home, env_host=env.non_empty("HERMES_HONCHO_HOST"))
        if doc.data is None:
            return None  # no file, or one the plugin cannot parse either: it holds no key the agent reads
        block = honcho_storage.block_key(doc.data, target.host)
        values = host_block_values(doc.data, block, slots)
        if not values:
            return None
        root_set = [n for n in values if isinstance(doc.data.get(slots[n]), str) and doc.data[slots[n]].strip()]
        return HostBlockSecrets(doc, block, {n: slots[n] for n in values}, values, root_set)
    return None


def _host_block_write(found: HostBlockSecrets) -> FileWrite:
    data = found.doc.copy_data()
    block = honcho_storage.writable_block(data, found.block)
    for slot in found.slots.values():
        block.pop(slot, None)
    path = found.doc.path
    try:
        old_mode: int | None = os.stat(path).st_mode & 0o777
    except OSError:
        old_mode = None
    mode = old_mode if old_mode is not None else 0o600
    return FileWrite(real_target(path), found.doc.label, render_json(data), found.doc.raw, mode, old_mode)


def _env_write(home: Path, env: EnvDoc, changes: dict[str, str | None]) -> FileWrite:
    if env.encoding_error is not None:
        raise StorageParseError(file=".env", problem=env.encoding_error, fmt="UTF-8 text")
    path = Path(home) / ".env"
    try:
        old_mode: int | None = os.stat(path).st_mode & 0o777
    except OSError:
        old_mode = None
    return FileWrite(real_target(path, home=home, label=".env"), ".env", render(env, changes), env.raw, 0o600, old_mode)


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
        host = host_block_secrets(home=home, env=env)
        in_host = host.values if host is not None else {}
        for name in declared:
            # The plugin reads the host-block copy before HONCHO_API_KEY: keep the one it loads.
            value = in_host.get(name, env.non_empty(name))
            if value is not None:
                plan.names.append(name)
                plan.keyring_ops.append(KeyringOp(name, value))
        from_env = [name for name in plan.names if env.non_empty(name) is not None]
        if from_env:
            plan.writes.append(_env_write(home, env, {name: None for name in from_env}))
        if host is not None:
            plan.host_block = host
            plan.writes.append(_host_block_write(host))
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
    """The default profile's home of ``home`` and every profile beside it (``<root>/profiles/<name>``),
    by the same rule as the profiles page (docs/agent_formats.md §Homes and profiles)."""
    root = root_home(home)
    homes = [root]
    with contextlib.suppress(OSError):
        for entry in sorted(os.listdir(root / "profiles")):
            if is_profile_folder(entry) and (root / "profiles" / entry).is_dir():
                homes.append(root / "profiles" / entry)
    return homes


def move_secrets_of_homes(
    *, homes: list[Path], to: str, expected: dict[str, list[str]] | None = None
) -> list[MovePlan]:
    """``move_secrets`` over several homes (every profile), all or nothing: every home is locked
    and planned before anything is written (one refusal stops all), and when a later home fails
    the homes already moved are put back exactly (``.env`` bytes and keyring entries).

    Over several homes the move is also crash-safe as one operation: a group journal in the first
    home's panel folder names the homes and the target store before the first home is written, and
    is removed once every home is done (or put back). A process killed in between leaves it; the
    next start (``finish_interrupted_group``) moves the homes not yet moved, so no profile is left
    behind in the old store.

    ``expected``: confirmed variable names per home (``str(home)``)."""
    ordered = sorted(dict.fromkeys(Path(os.path.realpath(h)) for h in homes))  # one lock order: no deadlock
    with contextlib.ExitStack() as stack:
        for home in ordered:
            stack.enter_context(home_lock(home))
        if len(ordered) > 1:
            finish_interrupted_group(ordered[0])  # an earlier killed move of every profile comes first
        plans = [plan_move(home=home, to=to) for home in ordered]
        if expected is not None:
            confirmed = {str(Path(os.path.realpath(k))): sorted(v) for k, v in expected.items()}
            if any(confirmed.get(str(plan.home), []) != plan.variables for plan in plans):
                raise MoveChanged(sorted({n for plan in plans for n in plan.variables}))
        _lock_honcho_files(stack, ordered)
        group = None
        if len(ordered) > 1 and any(not plan.empty for plan in plans):
            group = _write_group_journal(root_home(ordered[0]), to=to, homes=ordered)
        done: list[tuple[MovePlan, dict[str, str]]] = []
        try:
            for index, planned in enumerate(plans):
                if planned.empty:
                    continue
                # Planned again: profiles sharing the default profile's honcho.json see the file
                # as the homes before them left it.
                plan = plan_move(home=planned.home, to=to, checked=True) if index else planned
                plans[index] = plan
                _commit_plan(plan, done)
        except BaseException:
            for plan, previous in reversed(done):
                _put_back(plan, previous)
            if group is not None:
                _remove_group_journal(group)
            raise
        if group is not None:
            _remove_group_journal(group)
    return plans


def _commit_plan(plan: MovePlan, done: list[tuple[MovePlan, dict[str, str]]]) -> None:
    if plan.empty:
        return
    store = KeyringStore(plan.home)
    previous = store.get_many(plan.variables)
    commit(plan.writes, plan.keyring_ops, store, home=plan.home if plan.writes else None, move=plan.journal_move)
    done.append((plan, previous))


def _lock_honcho_files(stack: contextlib.ExitStack, homes: list[Path]) -> None:
    """Honcho's own file lock (the agent's OAuth refresh takes it) on every file a move may edit."""
    paths = {os.path.realpath(honcho_storage.choose_file(home)[0]) for home in homes}
    for path in sorted(paths):
        if os.path.exists(path):
            stack.enter_context(honcho_storage.file_lock(Path(path)))


# -- one move over every profile: the group journal -------------------------------------------------

GROUP_JOURNAL = "secret-move-group.json"


def group_journal_path(home: Path) -> Path:
    return journal.panel_dir(home) / GROUP_JOURNAL


def _write_group_journal(home: Path, *, to: str, homes: list[Path]) -> Path:
    """Names and store only; fsynced before the first home is written."""
    path = group_journal_path(home)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    data = json.dumps({"version": 1, "to": to, "homes": [str(h) for h in homes]}, indent=1).encode("utf-8")
    temp = journal.write_temp(path, data, 0o600)
    os.replace(temp, path)
    journal.fsync_dir(path.parent)
    return path


def _remove_group_journal(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    journal.fsync_dir(path.parent)


@dataclass
class GroupRecovery:
    """What ``finish_interrupted_group`` found: the store and homes of the interrupted move."""

    to: str
    homes: list[Path]
    completed: bool
    problem: str = ""


def finish_interrupted_group(home: Path) -> GroupRecovery | None:
    """Finish a move of every profile that a killed process left half-done (called at start-up
    with the default profile's home). Takes every home's lock, which first completes each home's own
    interrupted commit, then moves what each home still holds in the old store. None: nothing to do.
    Never raises: when the move cannot be finished (a locked keyring), the journal stays for the
    next start, nothing is deleted and a warning names the homes."""
    path = group_journal_path(root_home(Path(home)))
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
        to = doc["to"]
        homes = [Path(h) for h in doc["homes"]]
        if to not in SECRET_STORES or not homes:
            raise ValueError("no store or homes")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        failed = journal.set_aside(path)
        logger.warning("An unreadable record of a move of every profile was set aside as %s (%s)", failed, exc)
        return GroupRecovery(to="", homes=[], completed=False, problem="unreadable")
    ordered = sorted(dict.fromkeys(Path(os.path.realpath(h)) for h in homes if Path(h).is_dir()))
    with contextlib.ExitStack() as stack:
        for each in ordered:
            stack.enter_context(home_lock(each))
        try:
            _lock_honcho_files(stack, ordered)
            for each in ordered:
                _commit_plan(plan_move(home=each, to=to), [])
        except Exception as exc:
            check = getattr(exc, "check", None)
            problem = getattr(check, "problem", None) or type(exc).__name__
            detail = getattr(check, "detail", "")  # the backend's words, the probe value hidden
            logger.warning(
                "An interrupted move of every profile's secrets to %s could not be finished (%s%s); nothing was "
                "deleted. It is tried again at the next start: %s",
                to, problem, f": {detail}" if detail else "", ", ".join(map(str, ordered)),
            )
            return GroupRecovery(to=to, homes=ordered, completed=False, problem=str(problem))
        _remove_group_journal(path)
    logger.warning("Finished an interrupted move of every profile's secrets to %s: %s",
                   to, ", ".join(map(str, ordered)))
    return GroupRecovery(to=to, homes=ordered, completed=True)



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
