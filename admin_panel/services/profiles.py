"""Copying settings from one profile to others: the memory settings, or one provider's non-secret
settings.

A copy is planned first (the exact changes per target profile, nothing written), then applied
through the same validated saves the settings and provider pages use, each with its conflict
check against the state the review showed. Every target is its own all-or-nothing save: a target
that changed since the review is refused and left alone, the others are written. Secrets are never
copied; the plan names the ones each target still lacks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import provider_schemas
from admin_panel.forms.settings import SETTINGS, edit_string
from admin_panel.localisation import localise_provider_state
from admin_panel.selectors.profiles import SETTING_KEYS
from admin_panel.selectors.providers import provider_state
from admin_panel.services import providers as provider_services
from admin_panel.services.providers import User
from provider_schemas.profiles import Profile, ProfileSet
from provider_schemas.values import when_matches

MEMORY = "memory"  # what=MEMORY copies the memory settings; any other value names a provider
COPIED_SOURCES = ("stored", "alias")  # provider values that live in the source's settings file
SETTING_LABELS = {spec.key: spec.label for spec in SETTINGS}


class CopyRefused(Exception):
    """The copy cannot even be planned (bad source, provider without settings): nothing to review."""

    def __init__(self, code: str, subject: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.subject = subject


@dataclass
class TargetPlan:
    profile: Profile
    changes: list[dict[str, Any]] = field(default_factory=list)  # {"key", "label", "location", "old", "new"}
    errors: dict[str, str] = field(default_factory=dict)
    fingerprint: str = ""
    needs_secrets: list[dict[str, Any]] = field(default_factory=list)  # {"label", "env_key"}
    problem: str = ""  # why this target cannot take the copy (unreadable file, provider not installed)
    values: dict[str, str] = field(default_factory=dict)  # what the save will be given
    clear: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def writable(self) -> bool:
        return not self.problem and not self.errors and bool(self.changes)


@dataclass
class CopyPlan:
    what: str
    label: str
    source: Profile
    source_fingerprint: str
    targets: list[TargetPlan]
    not_copied: list[dict[str, Any]] = field(default_factory=list)  # source values from .env: {"label", "variable"}

    @property
    def any_writable(self) -> bool:
        return any(target.writable for target in self.targets)


@dataclass(frozen=True)
class TargetOutcome:
    name: str
    status: str  # "saved", "unchanged", "conflict", "invalid", "failed"
    detail: list[str] = field(default_factory=list)
    needs_secrets: list[dict[str, Any]] = field(default_factory=list)


def _pick(found: ProfileSet, *, source: str, targets: Sequence[str]) -> tuple[Profile, list[Profile]]:
    source_profile = found.get(source)
    if source_profile is None:
        raise CopyRefused("unknown_source", source)
    chosen: list[Profile] = []
    for name in dict.fromkeys(targets):
        profile = found.get(name)
        if profile is None:
            raise CopyRefused("unknown_target", name)
        if profile.name != source_profile.name:
            chosen.append(profile)
    if not chosen:
        raise CopyRefused("no_target")
    return source_profile, chosen


# --- memory settings -------------------------------------------------------------------------------


def _shown(settings: Any, key: str) -> str | None:
    """A target's current value as the review shows it; None when it is left at the default."""
    return edit_string(settings.stored[key]) if key in settings.stored else None


def _memory_source(source: Profile) -> tuple[Any, dict[str, str]]:
    settings = provider_schemas.read_memory_settings(home=source.home)
    if settings.error:
        raise CopyRefused("source_unreadable", "config.yaml")
    wanted = {key: edit_string(settings.stored[key]) if key in settings.stored else "" for key in SETTING_KEYS}
    return settings, wanted


def _plan_memory_target(profile: Profile, wanted: Mapping[str, str]) -> TargetPlan:
    target = TargetPlan(profile=profile)
    current = provider_schemas.read_memory_settings(home=profile.home)
    target.fingerprint = current.fingerprint
    if current.error:
        target.problem = "config.yaml"
        return target
    for key, value in wanted.items():
        old = _shown(current, key)
        if (old or "") == value and (key in current.stored) == (value != ""):
            continue
        target.values[key] = value
        target.changes.append(
            {
                "key": key,
                "label": SETTING_LABELS[key],
                "location": "config.yaml",
                "old": old,
                "new": value or None,
                "default": edit_string(current.defaults.get(key)),
            }
        )
    return target


# --- one provider's settings -------------------------------------------------------------------------


def _provider_source(source: Profile, name: str) -> tuple[Any, dict[str, str], list[str], list[dict[str, Any]]]:
    try:
        state = localise_provider_state(provider_state(home=source.home, name=name))
    except (provider_schemas.InvalidProviderName, provider_schemas.UnknownProvider):
        raise CopyRefused("unknown_provider", name) from None
    if state.schema is None:
        raise CopyRefused("no_settings", state.label)
    if state.storage is not None and state.storage.error:
        raise CopyRefused("source_unreadable", state.storage.file or "")
    values: dict[str, str] = {}
    clear: list[str] = []
    not_copied: list[dict[str, Any]] = []
    for f in state.fields:
        if f.is_secret or f.read_only_reason:
            continue
        if f.source in COPIED_SOURCES:
            values[f.key] = f.value
        elif f.source == "default" or f.source is None:
            clear.append(f.key)
        else:  # the value comes from the source's .env: environment, not settings
            not_copied.append({"key": f.key, "label": f.label, "badge": f.source_badge})
    return state, values, clear, not_copied


def _required_after(f: Any, *, effective: Mapping[str, str], visible: Mapping[str, bool],
                    by_key: Mapping[str, Any]) -> bool:
    """Whether secret ``f`` is required once the copied values are in place (docs/agent_formats.md §Activation:
    required, visible, ``required_when`` matching, no ``required_unless`` field set)."""
    declared = f.field
    if not declared.required or not visible.get(f.key, f.visible):
        return False
    if declared.required_when is not None and not when_matches(declared.required_when, effective):
        return False
    for other in declared.required_unless:
        o = by_key.get(other)
        if o is not None and ((o.is_secret and o.is_set) or (not o.is_secret and effective.get(other) != o.default)):
            return False
    return True


def _needed_secrets(source_state: Any, target_state: Any, *, values: Mapping[str, str], clear: Sequence[str],
                    visible: Mapping[str, bool]) -> list[dict[str, Any]]:
    """The target's unset secrets that the source has set, or that the copied values make required."""
    source_set = {f.key for f in source_state.fields if f.is_secret and f.is_set}
    effective = {f.key: f.value for f in target_state.fields if not f.is_secret}
    effective.update({key: _default_of(target_state, key) for key in clear})
    effective.update(values)
    by_key = {f.key: f for f in target_state.fields}
    needed = []
    for f in target_state.fields:
        if not f.is_secret or f.is_set:
            continue
        required = _required_after(f, effective=effective, visible=visible, by_key=by_key)
        if required or f.key in source_set:
            needed.append({"key": f.key, "label": f.label, "env_key": f.env_key, "required": required})
    return needed


def _default_of(state: Any, key: str) -> str:
    return next((f.default or "" for f in state.fields if f.key == key), "")


def _plan_provider_target(
    profile: Profile, name: str, source_state: Any, values: Mapping[str, str], clear: Sequence[str]
) -> TargetPlan:
    target = TargetPlan(profile=profile, values=dict(values), clear=list(clear))
    try:
        target_state = localise_provider_state(provider_state(home=profile.home, name=name))
        plan = provider_services.plan_provider_save(home=profile.home, name=name, values=values, clear=clear)
    except provider_schemas.UnknownProvider:
        target.problem = "not_installed"
        return target
    except provider_schemas.SchemaLoadError:
        target.problem = "schema_error"
        return target
    except provider_schemas.StorageParseError as exc:
        target.problem = exc.file
        return target
    except provider_schemas.SecretStoreUnavailable:
        target.problem = "secret_store"
        return target
    target.fingerprint = plan.fingerprint
    target.errors = dict(plan.errors)
    labels = {f.key: f.label for f in target_state.fields}
    for change in plan.changes:
        target.changes.append(
            {
                "key": change.field or change.key,
                "label": labels.get(change.field or "", change.key),
                "location": f"{change.location} {change.key}",
                "old": change.old,
                "new": change.new,
                "default": None,
            }
        )
    target.needs_secrets = _needed_secrets(source_state, target_state, values=values, clear=clear,
                                           visible=plan.visible)
    return target


# --- the two steps -------------------------------------------------------------------------------------


def plan_copy(*, found: ProfileSet, what: str, source: str, targets: Sequence[str]) -> CopyPlan:
    """What copying would change in each target; nothing is written. Raises ``CopyRefused``."""
    source_profile, chosen = _pick(found, source=source, targets=targets)
    if what == MEMORY:
        settings, wanted = _memory_source(source_profile)
        return CopyPlan(
            what=MEMORY,
            label="",
            source=source_profile,
            source_fingerprint=settings.fingerprint,
            targets=[_plan_memory_target(profile, wanted) for profile in chosen],
        )
    state, values, clear, not_copied = _provider_source(source_profile, what)
    return CopyPlan(
        what=state.name,
        label=state.label,
        source=source_profile,
        source_fingerprint=state.fingerprint,
        targets=[_plan_provider_target(profile, state.name, state, values, clear) for profile in chosen],
        not_copied=not_copied,
    )


def _save_target(*, user: User, channel: str, plan: CopyPlan, target: TargetPlan, expected: str) -> TargetOutcome:
    details = {"profile": target.name, "copied_from": plan.source.name}
    try:
        if plan.what == MEMORY:
            provider_services.save_memory_settings(
                user=user, channel=channel, home=target.profile.home, values=target.values,
                expected_fingerprint=expected, audit_details=details,
            )
        else:
            provider_services.save_provider_settings(
                user=user, channel=channel, home=target.profile.home, name=plan.what, values=target.values,
                clear=target.clear, expected_fingerprint=expected, audit_details=details,
            )
    except provider_schemas.ConflictError as exc:
        return TargetOutcome(target.name, "conflict", list(exc.changes))
    except provider_schemas.ValidationFailed as exc:
        return TargetOutcome(target.name, "invalid", [f"{key}: {text}" for key, text in exc.errors.items()])
    except (provider_schemas.NotReady, provider_schemas.UnknownProvider, provider_schemas.StorageParseError,
            provider_schemas.SchemaLoadError, provider_schemas.SecretStoreUnavailable) as exc:
        return TargetOutcome(target.name, "invalid", [str(exc)])
    except provider_schemas.SaveFailed:
        return TargetOutcome(target.name, "failed")
    return TargetOutcome(target.name, "saved", needs_secrets=target.needs_secrets)


def apply_copy(
    *,
    user: User,
    channel: str,
    found: ProfileSet,
    what: str,
    source: str,
    targets: Sequence[str],
    source_fingerprint: str,
    target_fingerprints: Mapping[str, str],
) -> tuple[CopyPlan, list[TargetOutcome]]:
    """Re-plan, then save each target against the fingerprint its review showed.

    A source that changed since the review refuses the whole copy (nothing is written: what was
    reviewed is not what would be copied). Raises ``CopyRefused``.
    """
    plan = plan_copy(found=found, what=what, source=source, targets=targets)
    if plan.source_fingerprint != source_fingerprint:
        raise CopyRefused("source_changed", plan.source.name)
    outcomes = []
    for target in plan.targets:
        expected = target_fingerprints.get(target.name, "")
        if not expected:
            outcomes.append(TargetOutcome(target.name, "conflict"))
        elif target.problem:
            outcomes.append(TargetOutcome(target.name, "invalid", [target.problem]))
        elif not target.changes:
            # Nothing to write now; if the target changed since the review, say so rather than "unchanged".
            status = "unchanged" if target.fingerprint == expected else "conflict"
            outcomes.append(TargetOutcome(target.name, status, needs_secrets=target.needs_secrets))
        else:  # the save itself checks ``expected`` under the locks
            outcomes.append(_save_target(user=user, channel=channel, plan=plan, target=target, expected=expected))
    return plan, outcomes
