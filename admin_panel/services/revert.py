"""Undo an audited settings change through the normal validated save.

A revert submits the audited *old* values (or clears what the change created) to
``provider_schemas.plan_save`` and commits that plan with ``commit_save``: the same validation,
locks and all-or-nothing write as the provider page. First it checks that every reverted key still
holds the value the audited change wrote; if anything changed since, the revert is refused and
nothing is written. The state read for that check is pinned with its fingerprint, so a change
landing between the check and the write is refused too. Secrets cannot be reverted: their values
were never recorded.

Changes of the memory settings (the ``memory:`` section of ``config.yaml``) revert the same way
through ``provider_schemas.save_memory_settings``, the save of the Settings page: the same
validation, the same activation rules for ``provider`` and the same fingerprint check.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils.translation import gettext as _

import provider_schemas
from admin_panel.agent_home import current_home
from admin_panel.models import AuditEntry
from admin_panel.selectors.audit import MEMORY_SECTION, REVERTIBLE_KINDS, is_memory_settings_change
from admin_panel.selectors.providers import provider_state, secret_store_for
from admin_panel.services import audit
from admin_panel.services.providers import audit_changes, record_activation, record_secret_writes
from provider_schemas.config_schema import STORAGE_ENV_FILE, ProviderField
from provider_schemas.values import to_edit_string

User = AbstractBaseUser | AnonymousUser | None


class RevertRefused(Exception):
    """The revert cannot be done; ``message`` says why (shown to the user). Nothing was written."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Target:
    """One audited non-secret change, tied to the field and the exact place it belongs to."""

    field: str  # field key in the schema
    label: str  # the key as the audit entry names it (for messages)
    file: str  # file as displayed (".env", "config.yaml", "mem0.json", ...)
    path: str  # key path or variable inside that file
    slot: str  # where in the file: "primary", "host", "root" or "env"
    raw_key: str  # the key inside that mapping (or the variable)
    primary: bool  # the field's own key rather than a legacy alias
    old: str | None  # what to restore (None: the change created it, so remove it)
    new: str | None  # what the audited change wrote (None: it removed the key)


@dataclass
class RevertPlan:
    entry: AuditEntry
    home: Path
    name: str
    values: dict[str, str] = field(default_factory=dict)
    clear: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    skipped_secrets: list[str] = field(default_factory=list)
    not_restored: list[str] = field(default_factory=list)  # legacy keys a normal save cannot bring back
    fingerprint: str = ""
    save_plan: Any = None


@dataclass(frozen=True)
class RevertOutcome:
    entry: AuditEntry  # the new audit entry (kind revert)
    result: Any  # provider_schemas.SaveResult
    skipped_secrets: list[str]
    not_restored: list[str]


# --- where the change happened --------------------------------------------------------------------


def _same_path(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def entry_home(entry: AuditEntry) -> Path:
    """The home the change was made in, if the panel may act on it: its own home or a profile of
    the same root (the API's ``?profile=``). Anything else is refused."""
    current = current_home()
    recorded = Path(entry.home)
    if _same_path(recorded, current):
        return current
    same_root = _same_path(provider_schemas.root_home(recorded), provider_schemas.root_home(current))
    if same_root and provider_schemas.profile_name(recorded) != "custom" and recorded.is_dir():
        return recorded
    raise RevertRefused(
        _("This change was made in another agent home (%(home)s); the panel cannot revert it from here.")
        % {"home": entry.home}
    )


# --- mapping audited keys back to fields ----------------------------------------------------------


Place = tuple[ProviderField, str, str, bool]  # field, slot, raw key, is the field's own key


def _field_paths(model: Any, fields: tuple[ProviderField, ...]) -> dict[tuple[str, str], Place]:
    """(location, key path) → (field, slot, raw key, is its own key) for every non-secret field."""
    paths: dict[tuple[str, str], Place] = {}
    for f in fields:
        if f.is_secret:
            continue
        if model.field_storage(f) == STORAGE_ENV_FILE:
            if f.env_key:
                paths[(".env", f.env_key)] = (f, "env", f.env_key, True)
            continue
        for index, key in enumerate((f.key, *f.aliases)):
            for slot, _mapping in model.read_maps(f):
                path = model.key_path(f, key, slot if slot in ("host", "root") else None)
                paths.setdefault((model.primary_label, path), (f, slot, key, index == 0))
    return paths


def _lookup(paths: dict[tuple[str, str], Place], row: dict[str, Any]) -> tuple[tuple[str, str], Place] | None:
    """The place an audit row names. Rows say ``location`` = file and ``key`` = key path, or
    ``location`` = "<file> <key path>" and ``key`` = the field."""
    location = str(row.get("location") or "")
    key = str(row.get("key") or "")
    if (location, key) in paths:
        return (location, key), paths[(location, key)]
    for (file, path), info in paths.items():
        if location == f"{file} {path}":
            return (file, path), info
    return None


def _current(model: Any, f: ProviderField, t: Target) -> str | None:
    """The value now at the target's exact place, as the audit recorded values."""
    if t.slot == "env":
        return model.env_get(t.raw_key)
    for slot, mapping in model.read_maps(f):
        if slot == t.slot:
            value = mapping.get(t.raw_key)
            return None if value is None else to_edit_string(f, value)
    return None


def build_revert(*, entry: AuditEntry) -> RevertPlan:
    """What reverting ``entry`` submits, with the "changed since" check done against the current
    files. Raises ``RevertRefused``, or what ``provider_schemas`` raises for a provider that is no
    longer there (``UnknownProvider``, ``SchemaLoadError``)."""
    if entry.kind not in REVERTIBLE_KINDS or not entry.provider:
        raise RevertRefused(_("Only changes of provider settings and memory settings can be reverted."))
    home = entry_home(entry)
    name = entry.provider
    state = provider_state(home=home, name=name)
    if state.schema_error is not None:
        raise state.schema_error
    if state.schema is None or state.model is None:
        raise provider_schemas.UnknownProvider(name, reason="no_schema")
    if state.storage is not None and state.storage.error:
        raise RevertRefused(state.storage.error)
    model = state.model
    paths = _field_paths(model, state.schema.fields)
    plan = RevertPlan(entry=entry, home=home, name=name, fingerprint=state.fingerprint)
    details = entry.details if isinstance(entry.details, dict) else {}
    for row in details.get("changes") or []:
        if not isinstance(row, dict):
            continue
        key = str(row.get("key", ""))
        if "secret" in row:
            if key not in plan.skipped_secrets:
                plan.skipped_secrets.append(key)
            continue
        old, new = row.get("old"), row.get("new")
        if old == new:
            continue  # e.g. the copy of a fallback file made on first creation: nothing to undo
        found = _lookup(paths, row)
        if found is None:
            location = str(row.get("location") or "") or "?"
            raise RevertRefused(
                _("%(key)s (%(location)s) is no longer where a setting of %(provider)s is stored; "
                  "this change cannot be reverted.") % {"key": key, "location": location, "provider": name}
            )
        (file, path), (f, slot, raw_key, primary) = found
        plan.targets.append(
            Target(field=f.key, label=key, file=file, path=path, slot=slot, raw_key=raw_key, primary=primary,
                   old=None if old is None else str(old), new=None if new is None else str(new))
        )
    if not plan.targets:
        if plan.skipped_secrets:
            raise RevertRefused(
                _("This change only touched secrets. Secret values are never recorded, so it cannot be reverted.")
            )
        raise RevertRefused(_("This change has nothing that can be reverted."))
    fields = {f.key: f for f in state.schema.fields}
    changed = list(dict.fromkeys(t.label for t in plan.targets if _current(model, fields[t.field], t) != t.new))
    if changed:
        raise RevertRefused(
            _("%(keys)s changed since this change was made. Review the current settings on the provider "
              "page.") % {"keys": ", ".join(changed)}
        )
    for field_key in dict.fromkeys(t.field for t in plan.targets):
        targets = [t for t in plan.targets if t.field == field_key]
        own = next((t for t in targets if t.primary), None)
        legacy = [t for t in targets if not t.primary and t.old is not None]
        if own is not None:
            if own.old is None:
                plan.clear.append(field_key)
            else:
                plan.values[field_key] = own.old
            plan.not_restored.extend(t.path for t in legacy)
        elif legacy:
            # Only legacy keys were removed (a clear): the value goes back under the field's own key,
            # which the plugin reads first.
            plan.values[field_key] = legacy[0].old  # type: ignore[assignment]
            plan.not_restored.extend(t.path for t in legacy[1:])
    return plan


# --- checking and committing ----------------------------------------------------------------------


def check_revert(*, entry: AuditEntry) -> RevertPlan | MemoryRevertPlan:
    """Build the revert and plan the save; nothing is written. Raises ``RevertRefused``,
    ``provider_schemas.ValidationFailed`` when the old values no longer validate, and the other
    ``provider_schemas`` errors unchanged."""
    if is_memory_settings_change(entry):
        return check_memory_revert(entry=entry)
    return _check_provider_revert(entry=entry)


def _check_provider_revert(*, entry: AuditEntry) -> RevertPlan:
    plan = build_revert(entry=entry)
    save_plan = provider_schemas.plan_save(
        home=plan.home,
        name=plan.name,
        values=plan.values,
        clear=plan.clear,
        secret_store=secret_store_for(home=plan.home),
        expected_fingerprint=plan.fingerprint,
    )
    if save_plan.conflict:
        raise RevertRefused(
            _("The settings changed while reverting. Review the current settings and try again.")
        )
    if save_plan.errors:
        raise provider_schemas.ValidationFailed(save_plan.errors)
    hidden = save_plan.ignored.get("hidden") or []
    if hidden:
        raise RevertRefused(
            _("%(keys)s cannot be reverted while hidden by the current settings of %(provider)s.")
            % {"keys": ", ".join(hidden), "provider": plan.name}
        )
    own_paths = {(t.file, t.path) for t in plan.targets}
    restored_fields = {t.field for t in plan.targets}
    extra = [
        c.key for c in save_plan.changes
        if (c.location, c.key) not in own_paths and c.field not in restored_fields
    ]
    aliases_lost = [
        c.key for c in save_plan.changes
        if c.kind == "clear" and (c.location, c.key) not in own_paths and c.field in restored_fields
    ]
    if extra or aliases_lost:
        raise RevertRefused(
            _("Reverting would also change %(keys)s, which this change did not touch. Edit the "
              "settings on the provider page instead.") % {"keys": ", ".join(extra + aliases_lost)}
        )
    plan.save_plan = save_plan
    return plan


def revert_entry(*, entry: AuditEntry, user: User, channel: str = "panel") -> RevertOutcome:
    """Revert ``entry`` and record the revert in the audit log (kind ``revert``). Raises
    ``RevertRefused`` or the ``provider_schemas`` errors of a save; nothing is written then."""
    if is_memory_settings_change(entry):
        return revert_memory_entry(entry=entry, user=user, channel=channel)
    plan = _check_provider_revert(entry=entry)
    store = secret_store_for(home=plan.home)
    try:
        result = provider_schemas.commit_save(plan.save_plan)
    except provider_schemas.ConflictError:
        raise RevertRefused(
            _("The settings changed while reverting. Review the current settings and try again.")
        ) from None
    record_secret_writes(home=plan.home, replaced=result.secrets_set, cleared=result.secrets_cleared)
    changes = audit_changes(result.changes, store=store)
    keys = ", ".join(row["key"] for row in changes)
    new_entry = audit.record(
        user=user,
        channel=channel,
        home=plan.home,
        kind=AuditEntry.Kind.REVERT,
        provider=plan.name,
        summary=f"Reverted change #{entry.pk} of {plan.name}: {keys}",
        details={
            "reverted_entry": entry.pk,
            "changes": changes,
            "written": list(result.written),
            "secrets_not_reverted": list(plan.skipped_secrets),
            "not_restored": list(plan.not_restored),
        },
    )
    return RevertOutcome(
        entry=new_entry, result=result, skipped_secrets=plan.skipped_secrets, not_restored=plan.not_restored
    )


# --- memory settings ------------------------------------------------------------------------------


@dataclass
class MemoryRevertPlan:
    """What reverting a memory-settings change submits to ``save_memory_settings``."""

    entry: AuditEntry
    home: Path
    values: dict[str, Any]  # key → the audited old value ("" removes the key)
    rows: list[tuple[str, Any, Any]]  # (key, old, new) as the audited change recorded them
    fingerprint: str
    before: Any  # the checked provider_schemas.MemorySettings, pinned by ``fingerprint``
    provider_change: tuple[str, str] | None = None  # (now active, active after the revert)
    clear: list[str] = field(default_factory=list)  # keys the revert removes (for display)
    not_restored: list[str] = field(default_factory=list)  # always empty: no legacy keys here


def _same(a: Any, b: Any) -> bool:
    """Equal as stored: ``True`` and ``1`` are different settings."""
    return a == b and type(a) is type(b)


def build_memory_revert(*, entry: AuditEntry) -> MemoryRevertPlan:
    """What reverting a memory-settings ``entry`` submits, with the "changed since" check done
    against the current ``config.yaml``. Raises ``RevertRefused``."""
    home = entry_home(entry)
    state = provider_schemas.read_memory_settings(home=home)
    if state.error:
        raise RevertRefused(state.error)
    details = entry.details if isinstance(entry.details, dict) else {}
    rows: list[tuple[str, Any, Any]] = []
    for row in details.get("changes") or []:
        if not isinstance(row, dict):
            continue
        key = str(row.get("key", ""))
        old, new = row.get("old"), row.get("new")
        if _same(old, new):
            continue
        if key not in provider_schemas.MEMORY_KEYS:
            raise RevertRefused(
                _("%(key)s is not a memory setting the panel knows; this change cannot be reverted.") % {"key": key}
            )
        rows.append((key, old, new))
    if not rows:
        raise RevertRefused(_("This change has nothing that can be reverted."))
    changed = [key for key, _old, new in rows if not _same(state.stored.get(key), new)]
    if changed:
        raise RevertRefused(
            _("%(keys)s changed since this change was made. Review the current settings on the Settings page.")
            % {"keys": ", ".join(changed)}
        )
    # A blank value removes the key, as on the Settings page; for ``provider`` it means built-in
    # memory only (the activation rules write ``provider: ""``).
    values = {key: "" if old is None else old for key, old, _new in rows}
    plan = MemoryRevertPlan(
        entry=entry, home=home, values=values, rows=rows, fingerprint=state.fingerprint, before=state
    )
    plan.clear = [key for key, old, _new in rows if old is None and key != "provider"]
    if "provider" in values:
        wanted = provider_schemas.normalise_active_provider(str(values["provider"]))
        if wanted != state.active:
            plan.provider_change = (state.active, wanted)
    return plan


def _unknown_provider(name: str) -> str:
    return _("The memory provider %(name)s is not installed any more, so it cannot be made active again.") % {
        "name": name
    }


def check_memory_revert(*, entry: AuditEntry) -> MemoryRevertPlan:
    """Build a memory-settings revert and check the activation rules; nothing is written."""
    plan = build_memory_revert(entry=entry)
    if plan.provider_change is not None and plan.provider_change[1]:
        # A preview for the detail page; the save checks the same rules again.
        name = plan.provider_change[1]
        try:
            provider_schemas.check_ready(home=plan.home, name=name, secret_store=secret_store_for(home=plan.home))
        except provider_schemas.UnknownProvider:
            raise RevertRefused(_unknown_provider(name)) from None
    return plan


def revert_memory_entry(*, entry: AuditEntry, user: User, channel: str = "panel") -> RevertOutcome:
    """Revert a memory-settings ``entry`` through ``save_memory_settings`` pinned to the checked
    state's fingerprint, and audit it as kind ``revert`` (plus an activation entry when the active
    provider changes, as the Settings page records it). Raises ``RevertRefused``,
    ``provider_schemas.ValidationFailed``, ``NotReady``, ``StorageParseError``, ``SaveFailed``."""
    plan = build_memory_revert(entry=entry)
    before = plan.before
    try:
        after = provider_schemas.save_memory_settings(
            home=plan.home,
            values=plan.values,
            expected_fingerprint=plan.fingerprint,
            secret_store=secret_store_for(home=plan.home, fresh=True),
        )
    except provider_schemas.ConflictError:
        raise RevertRefused(
            _("The settings changed while reverting. Review the current settings and try again.")
        ) from None
    except provider_schemas.UnknownProvider as exc:
        raise RevertRefused(_unknown_provider(exc.name)) from None
    # The same rows the Settings page records: what config.yaml held before and after, per key.
    changes = [
        {"key": key, "old": before.stored.get(key), "new": after.stored.get(key)}
        for key in plan.values
        if not _same(before.stored.get(key), after.stored.get(key))
    ]
    keys = ", ".join(row["key"] for row in changes)
    new_entry = audit.record(
        user=user,
        channel=channel,
        home=plan.home,
        kind=AuditEntry.Kind.REVERT,
        summary=f"Reverted change #{entry.pk} of the memory settings: {keys}",
        details={
            "reverted_entry": entry.pk,
            "section": MEMORY_SECTION,
            "changes": changes,
            "written": ["config.yaml"] if changes else [],
        },
    )
    if before.active != after.active:
        record_activation(user=user, channel=channel, home=plan.home, old=before.active, new=after.active)
    return RevertOutcome(entry=new_entry, result=after, skipped_secrets=[], not_restored=[])
