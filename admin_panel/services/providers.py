"""Writes for the provider pages and the API.

``provider_schemas`` does the real work (validation, storage, secrets, activation, the
``memory:`` section); this module adds the panel's side of each change: the ``set_at`` of
secrets, the per-home secret-store choice, the audit log, and the short-lived keeping of a new
secret value between the review step and the save.
"""

from __future__ import annotations

import secrets as token_source
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction as db_transaction
from django.utils import timezone

import provider_schemas
from admin_panel.models import AuditEntry, HomePreference, SecretWrite
from admin_panel.selectors.providers import (
    SECRET_STORE_KEY,
    SECRET_STORES,
    home_key,
    secret_store_for,
)
from admin_panel.services import audit
from admin_panel.services.outcomes import SAVED, WRITE_ERRORS, Outcome, from_plan, outcome_of
from memory_core import caching
from provider_schemas.saving import secret_moves
from provider_schemas.secret_stores.probe import require_keyring

User = AbstractBaseUser | AnonymousUser | None

SECRET_CHANGE_WORDS = {"secret_set": "set", "secret_replace": "replaced", "secret_clear": "cleared"}


# --- the per-home secret store --------------------------------------------------------------------


def set_secret_store(
    *, home: Path, store: str, user: User = None, channel: str = "panel", username: str = ""
) -> str:
    """Make ``store`` the one new secrets of ``home`` go to. The keyring is checked first (a real
    backend, unlocked, a probe round trip): ``SecretStoreUnavailable`` and nothing changes."""
    if store not in SECRET_STORES:
        raise ValueError(f"Unknown secret store: {store}")
    if store == "keyring":
        require_keyring(home=home)
    old = secret_store_for(home=home, fresh=True)
    HomePreference.objects.update_or_create(home=home_key(home), key=SECRET_STORE_KEY, defaults={"value": store})
    caching.forget_home(home)
    if old != store:  # choosing the store already in use changes nothing: no entry
        audit.record(
            user=user,
            channel=channel,
            home=home,
            kind=AuditEntry.Kind.SECRET_STORE,
            summary=f"New secrets go to: {store} (before: {old})",
            details={"old": old, "new": store},
            username=username,
        )
    return store


def move_secrets(
    *, home: Path, to: str, user: User = None, channel: str = "panel",
    expected: dict[str, list[str]] | None = None, username: str = "", all_profiles: bool = False,
) -> list[secret_moves.MovePlan]:
    """Move every stored secret of ``home`` (and of every profile beside it with ``all_profiles``)
    into store ``to``, all or nothing, and make ``to`` the store new secrets go to; audited per home
    with the variable names only. ``expected``: the names the user confirmed, per ``str(home)``.
    Raises ``SecretStoreUnavailable``, ``StorageParseError``, ``SaveFailed``, ``ConflictError`` and
    ``secret_moves.MoveChanged``."""
    if to not in SECRET_STORES:
        raise ValueError(f"Unknown secret store: {to}")
    finish_interrupted_secret_move(home=home)  # a killed move of every profile is finished first
    homes = secret_moves.every_profile_home(home) if all_profiles else [home]
    plans = secret_moves.move_secrets_of_homes(homes=homes, to=to, expected=expected)
    for plan in plans:
        old = secret_store_for(home=plan.home, fresh=True)
        HomePreference.objects.update_or_create(home=home_key(plan.home), key=SECRET_STORE_KEY,
                                                defaults={"value": to})
        caching.forget_home(plan.home)
        if plan.variables or old != to:
            audit.record(
                user=user,
                channel=channel,
                home=plan.home,
                kind=AuditEntry.Kind.SECRET_STORE,
                summary=f"Moved {len(plan.variables)} stored secrets to the {to}: {', '.join(plan.variables) or '-'}",
                details={"old": old, "new": to, "moved": plan.variables},
                username=username,
            )
    return plans


def finish_interrupted_secret_move(*, home: Path) -> secret_moves.GroupRecovery | None:
    """At start-up: finish a move of every profile's secrets that a killed process left half-done
    (``secret_moves.finish_interrupted_group``); once finished, every profile's new secrets go to
    the store they were moved to, as the move would have recorded, and it is audited."""
    recovery = secret_moves.finish_interrupted_group(home)
    if recovery is None or not recovery.completed:
        return recovery
    for each in recovery.homes:
        old = secret_store_for(home=each, fresh=True)
        HomePreference.objects.update_or_create(home=home_key(each), key=SECRET_STORE_KEY,
                                                defaults={"value": recovery.to})
        caching.forget_home(each)
        audit.record(
            user=None,
            channel="command",
            home=each,
            kind=AuditEntry.Kind.SECRET_STORE,
            summary=f"Finished an interrupted move of every profile's stored secrets to the {recovery.to}",
            details={"old": old, "new": recovery.to, "interrupted": True},
            username="",
        )
    return recovery


def record_secret_writes(*, home: Path, replaced: Iterable[str], cleared: Iterable[str]) -> None:
    """Remember when the panel wrote each secret (the ``set_at`` of docs/api.md §Reading a provider's config)."""
    key = home_key(home)
    now = timezone.now()
    replaced = list(dict.fromkeys(replaced))
    if replaced:
        # One upsert statement (ON CONFLICT on the one-per-secret constraint) instead of a select
        # and an update or insert per variable.
        SecretWrite.objects.bulk_create(
            [SecretWrite(home=key, variable=variable, set_at=now) for variable in replaced],
            update_conflicts=True, unique_fields=["home", "variable"], update_fields=["set_at"],
        )
    cleared = list(cleared)
    if cleared:
        SecretWrite.objects.filter(home=key, variable__in=cleared).delete()
    caching.forget_home(home)


# --- provider settings ----------------------------------------------------------------------------


def audit_changes(changes: Sequence[Any], *, store: str) -> list[dict[str, Any]]:
    """The audit ``details`` of a save: old/new for values, only what happened for secrets."""
    rows: list[dict[str, Any]] = []
    for change in changes:
        key = change.field or change.key
        word = SECRET_CHANGE_WORDS.get(change.kind)
        if word is not None:
            rows.append({"key": key, "secret": word, "store": change.location})
        else:
            location = f"{change.location} {change.key}"
            rows.append({"key": key, "location": location, "old": change.old, "new": change.new})
    return rows


def plan_provider_save(
    *,
    home: Path,
    name: str,
    values: Mapping[str, Any],
    clear: Sequence[str] = (),
    expected_fingerprint: str | None = None,
) -> Any:
    """What a save would change (validation included); nothing is written."""
    return provider_schemas.plan_save(
        home=home,
        name=name,
        values=dict(values),
        clear=list(clear),
        secret_store=secret_store_for(home=home, fresh=True),
        expected_fingerprint=expected_fingerprint,
    )


def save_provider_settings(
    *,
    user: User,
    channel: str,
    home: Path,
    name: str,
    values: Mapping[str, Any],
    clear: Sequence[str] = (),
    expected_fingerprint: str | None = None,
    audit_details: Mapping[str, Any] | None = None,
) -> Any:
    """Validate and write all-or-nothing, then record set_at and the audit entry (``audit_details``
    adds to its details, e.g. the profile a copy came from).

    Raises what ``provider_schemas.save_provider`` raises (ValidationFailed, ConflictError,
    StorageParseError, SecretStoreUnavailable, SaveFailed, UnknownProvider, SchemaLoadError).
    """
    store = secret_store_for(home=home, fresh=True)
    result = provider_schemas.save_provider(
        home=home,
        name=name,
        values=dict(values),
        clear=list(clear),
        secret_store=store,
        expected_fingerprint=expected_fingerprint,
    )
    _after_save(user=user, channel=channel, home=home, name=name, result=result, store=store,
                extra=audit_details)
    return result


def review_provider_changes(
    *, home: Path, name: str, values: Mapping[str, Any], clear: Sequence[str] = (),
    expected_fingerprint: str | None = None,
) -> Outcome:
    """The review step: validate and plan once, write nothing. ``PLANNED`` (with the plan, whose
    ``changes`` may be empty), ``INVALID``, ``CONFLICT`` or the failure that stopped the read."""
    try:
        plan = plan_provider_save(home=home, name=name, values=values, clear=clear,
                                  expected_fingerprint=expected_fingerprint)
    except WRITE_ERRORS as exc:
        return outcome_of(exc, home=home)
    return from_plan(plan, home=home)


def save_provider_changes(
    *, user: User, channel: str, home: Path, name: str, values: Mapping[str, Any], clear: Sequence[str] = (),
    expected_fingerprint: str | None = None, audit_details: Mapping[str, Any] | None = None,
) -> Outcome:
    """The save step: plan once under the locks and commit that plan (``save_provider_settings``),
    refusing with ``CONFLICT`` when the files differ from ``expected_fingerprint``."""
    try:
        result = save_provider_settings(user=user, channel=channel, home=home, name=name, values=values,
                                        clear=clear, expected_fingerprint=expected_fingerprint,
                                        audit_details=audit_details)
    except WRITE_ERRORS as exc:
        return outcome_of(exc, home=home)
    return Outcome(SAVED, result=result, home=home)


def _after_save(
    *, user: User, channel: str, home: Path, name: str, result: Any, store: str,
    extra: Mapping[str, Any] | None = None,
) -> None:
    with db_transaction.atomic():  # the set_at rows and the audit row: one commit
        _record_save(user=user, channel=channel, home=home, name=name, result=result, store=store, extra=extra)
    caching.forget_home(home)  # again once committed: a read meanwhile may have kept the old rows


def _record_save(
    *, user: User, channel: str, home: Path, name: str, result: Any, store: str,
    extra: Mapping[str, Any] | None = None,
) -> None:
    record_secret_writes(home=home, replaced=result.secrets_set, cleared=result.secrets_cleared)
    if not result.written:
        return
    changes = audit_changes(result.changes, store=store)
    keys = ", ".join(row["key"] for row in changes)
    audit.record(
        user=user,
        channel=channel,
        home=home,
        kind=AuditEntry.Kind.PROVIDER_SETTINGS,
        provider=name,
        summary=f"Saved {name} settings: {keys}" if keys else f"Saved {name} settings",
        details={"changes": changes, "written": list(result.written), **(extra or {})},
    )


# --- activation -----------------------------------------------------------------------------------


def current_active(*, home: Path) -> str:
    return provider_schemas.read_memory_settings(home=home).active


def activate_provider(*, user: User, channel: str, home: Path, name: str) -> str:
    """Make ``name`` the one external provider (built-in aliases deactivate). Raises NotReady,
    UnknownProvider, StorageParseError."""
    old = provider_schemas.normalise_active_provider(current_active(home=home))
    new = provider_schemas.activate(home=home, name=name, secret_store=secret_store_for(home=home, fresh=True))
    record_activation(user=user, channel=channel, home=home, old=old, new=new)
    return new


def deactivate_provider(*, user: User, channel: str, home: Path) -> str:
    old = provider_schemas.normalise_active_provider(current_active(home=home))
    new = provider_schemas.deactivate(home=home)
    record_activation(user=user, channel=channel, home=home, old=old, new=new)
    return new


def record_activation(*, user: User, channel: str, home: Path, old: str, new: str) -> None:
    if old == new:
        return
    if new:
        summary = f"Activated {new}" + (f" (replacing {old})" if old else "")
    else:
        summary = f"Deactivated {old}; built-in memory only"
    audit.record(
        user=user,
        channel=channel,
        home=home,
        kind=AuditEntry.Kind.ACTIVATION,
        provider=new or old,
        summary=summary,
        details={"old": old, "new": new},
    )


# --- memory settings ------------------------------------------------------------------------------


def save_memory_settings(
    *, user: User, channel: str, home: Path, values: Mapping[str, Any], expected_fingerprint: str | None,
    audit_details: Mapping[str, Any] | None = None,
) -> Any:
    """Write the ``memory:`` keys (validated by provider_schemas) and audit what changed
    (``audit_details`` adds to the entry's details)."""
    before = provider_schemas.read_memory_settings(home=home)
    after = provider_schemas.save_memory_settings(
        home=home,
        values=dict(values),
        expected_fingerprint=expected_fingerprint,
        secret_store=secret_store_for(home=home, fresh=True),
    )
    changes = [
        {"key": key, "old": before.stored.get(key), "new": after.stored.get(key)}
        for key in values
        if before.stored.get(key) != after.stored.get(key)
    ]
    if changes:
        audit.record(
            user=user,
            channel=channel,
            home=home,
            kind=AuditEntry.Kind.MEMORY_SETTINGS,
            summary="Memory settings: " + ", ".join(row["key"] for row in changes),
            details={"changes": changes, **(audit_details or {})},
        )
        old_provider = provider_schemas.normalise_active_provider(before.stored.get("provider") or "")
        new_provider = provider_schemas.normalise_active_provider(after.stored.get("provider") or "")
        if old_provider != new_provider:
            record_activation(user=user, channel=channel, home=home, old=old_provider, new=new_provider)
    return after


def save_memory_settings_changes(
    *, user: User, channel: str, home: Path, values: Mapping[str, Any], expected_fingerprint: str | None,
) -> Outcome:
    """The settings page's save as an outcome: ``SAVED``, ``INVALID``, ``CONFLICT``, ``NOT_READY``
    (a provider that cannot be activated), ``UNKNOWN`` or a failed write."""
    try:
        after = save_memory_settings(user=user, channel=channel, home=home, values=values,
                                     expected_fingerprint=expected_fingerprint)
    except WRITE_ERRORS as exc:
        return outcome_of(exc, home=home)
    return Outcome(SAVED, result=after, home=home)


# --- new secret values between review and save ---------------------------------------------------


@dataclass
class _Held:
    owner: str
    values: dict[str, str]
    expires: float = field(default=0.0)


class HeldSecrets:
    """New secret values kept in this process's memory only, between the review and the save.

    They never go into a page, a session or the database; the review page carries an opaque
    token. A restart (or 15 minutes) forgets them and the form asks for the value again.
    """

    ttl_seconds = 15 * 60

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: dict[str, _Held] = {}

    def _owner(self, *, user_id: Any, home: Path, name: str) -> str:
        return f"{user_id}|{home_key(home)}|{name}"

    def put(self, *, user_id: Any, home: Path, name: str, values: Mapping[str, str]) -> str:
        token = token_source.token_urlsafe(24)
        now = time.monotonic()
        with self._lock:
            self._items = {k: v for k, v in self._items.items() if v.expires > now}
            self._items[token] = _Held(
                owner=self._owner(user_id=user_id, home=home, name=name),
                values=dict(values),
                expires=now + self.ttl_seconds,
            )
        return token

    def take(self, token: str, *, user_id: Any, home: Path, name: str) -> dict[str, str] | None:
        """The held values (removed), or None when unknown, expired or someone else's."""
        with self._lock:
            held = self._items.pop(token, None)
        if held is None or held.expires <= time.monotonic():
            return None
        if held.owner != self._owner(user_id=user_id, home=home, name=name):
            return None
        return held.values


held_secrets = HeldSecrets()
