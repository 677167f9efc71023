"""Reads for the provider pages and the API: the panel's per-home choices plus provider_schemas state.

Everything about providers themselves (discovery, values, sources, visibility, readiness) comes
from ``provider_schemas``; this module only adds what lives in the panel's database: which secret
store a home uses and when the panel last wrote each secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

import provider_schemas
from admin_panel.models import HomePreference, SecretWrite
from memory_core import caching
from memory_core.caching import MISSING, KeyedCache
from memory_core.fingerprints import fingerprint_of
from memory_core.state import read_all_states

SECRET_STORE_KEY = "secret_store"  # noqa: S105 - a preference name
SECRET_STORES = ("env_file", "keyring")


def home_key(home: Path) -> str:
    """How a home is named in the panel's database (resolved, so symlinks do not split it)."""
    return caching.home_key(home)


def default_secret_store() -> str:
    store = getattr(settings, "PANEL_SECRET_STORE", "env_file")
    return store if store in SECRET_STORES else "env_file"


# Reads of the two per-home panel records are cached briefly in this process: a provider page or
# API GET then costs no database query for them. Writes in this process drop the entry at once
# (``caching.forget_home``); the short lifetime bounds staleness when several panel processes share
# a database. Write paths always read fresh (``fresh=True``).
_CACHE_SECONDS = 2.0
_prefs_cache = KeyedCache("secret-store choice and set_at per home", size=64, max_age=_CACHE_SECONDS)


def _load_store(key: str) -> str:
    value = HomePreference.objects.filter(home=key, key=SECRET_STORE_KEY).values_list("value", flat=True).first()
    return value if value in SECRET_STORES else default_secret_store()


def _load_prefs(key: str) -> tuple[str, dict[str, str]]:
    store = _load_store(key)
    rows = SecretWrite.objects.filter(home=key).values_list("variable", "set_at")
    return store, {variable: when.strftime("%Y-%m-%dT%H:%M:%SZ") for variable, when in rows}


def _prefs(home: Path, *, fresh: bool) -> tuple[str, dict[str, str]]:
    key = home_key(home)
    hit = MISSING if fresh else _prefs_cache.get(key, None)
    store, set_at = hit if hit is not MISSING else _prefs_cache.put(key, None, _load_prefs(key))
    return store, dict(set_at)


def secret_store_for(*, home: Path, fresh: bool = False) -> str:
    """The store new secrets of ``home`` go to: the saved per-home choice, else the setting.
    ``fresh`` (every write) reads the choice alone from the database, not the ``set_at`` rows."""
    if fresh:
        return _load_store(home_key(home))
    return _prefs(home, fresh=False)[0]


def set_at_map(*, home: Path, fresh: bool = False) -> dict[str, str]:
    """``{variable: ISO-8601 UTC}`` of the secrets the panel itself wrote for ``home``."""
    return _prefs(home, fresh=fresh)[1]


def provider_watch_paths(*, home: Path, name: str, state: Any) -> tuple[Path, ...]:
    """The files a provider's page is read from: ``config.yaml``, ``.env``, its settings file, its
    own folder in the home and its plugin folder (the schema)."""
    home = Path(home)
    paths = [home / "config.yaml", home / ".env", home / name, home / "plugins" / name]
    storage_file = state.storage.file if state.storage is not None else None
    if storage_file:
        paths.append((home / Path(storage_file).expanduser()).absolute())
    return tuple(dict.fromkeys(paths))


def files_fingerprint(paths: tuple[Path, ...]) -> str:
    """Changes whenever one of ``paths`` (or a file directly in one of its folders) changes; ``stat``
    calls only, never a read, so that it can run on the event loop."""
    return fingerprint_of(paths, with_folder_contents=True)


def provider_state(*, home: Path, name: str) -> Any:
    """provider_schemas' resolved state of one provider (raises its lookup errors unchanged)."""
    store, set_at = _prefs(home, fresh=False)  # one lookup for both records
    return provider_schemas.read_provider(home=home, name=name, secret_store=store, set_at=set_at)


def provider_config_answer(*, home: Path, name: str, encode: Any) -> bytes:
    """The API's encoded config answer of one provider (``encode`` of its docs/api.md payload),
    reused while its inputs are unchanged (provider_schemas/reading/answer_cache.py); raises what
    ``provider_state`` raises."""
    store, set_at = _prefs(home, fresh=False)
    return provider_schemas.config_answer(
        home=home, name=name, secret_store=store, set_at=set_at,
        render=lambda state: encode(provider_schemas.provider_config_payload(state)),
    )


@dataclass(frozen=True)
class ProviderCard:
    """One card of the providers page."""

    row: dict[str, Any]  # the docs/api.md §Provider list row
    docs_url: str
    is_builtin: bool
    has_settings: bool


@dataclass(frozen=True)
class ProvidersOverview:
    active: str
    active_label: str
    cards: list[ProviderCard]
    shadowed: list[Any]
    unaddressable: list[Any]
    builtin_files: dict[str, int]
    missing_active: bool
    # The built-in stores' use in characters, as the agent counts them (the API's builtin_files
    # are file sizes in bytes, which differ for any non-ASCII text and the delimiters).
    builtin_usage: tuple[Any, ...] = ()


def providers_overview(*, home: Path) -> ProvidersOverview:
    """Every provider with its status, as the API lists them, plus what only the page shows."""
    discovery = provider_schemas.discover(home=home)
    payload = provider_schemas.provider_list_payload(
        home=home, secret_store=secret_store_for(home=home), discovery=discovery
    )
    entries = {entry.name: entry for entry in discovery.providers}
    cards: list[ProviderCard] = []
    active = payload.get("active", "")
    active_label = ""
    builtin = provider_schemas.BUILTIN_NAME
    # The built-in store is always first: it is on whatever provider is active.
    cards.append(
        ProviderCard(
            row={
                "name": builtin,
                "label": entries[builtin].label if builtin in entries else builtin,
                "description": entries[builtin].description if builtin in entries else "",
                "origin": "builtin",
                "path": None,
                "status": "ready",
                "active": True,
                "missing_secrets": [],
                "schema_error": None,
            },
            docs_url="",
            is_builtin=True,
            has_settings=False,
        )
    )
    for row in payload.get("providers", []):
        if row.get("name") == builtin:
            continue
        entry = entries.get(row["name"])
        schema = entry.schema if entry is not None else None
        if row.get("active"):
            active_label = row.get("label") or row["name"]
        cards.append(
            ProviderCard(
                row=row,
                docs_url=schema.docs_url if schema is not None else "",
                is_builtin=False,
                has_settings=entry is not None and entry.has_schema,
            )
        )
    missing_active = any(card.row.get("status") == "missing" for card in cards)
    return ProvidersOverview(
        active=active,
        active_label=active_label or active,
        cards=cards,
        shadowed=list(discovery.shadowed),
        unaddressable=list(discovery.unaddressable),
        builtin_files=payload.get("builtin_files", {}),
        missing_active=missing_active,
        builtin_usage=tuple(read_all_states(home=home).values()),
    )


def provider_summary(*, home: Path) -> dict[str, Any]:
    """The home page card: which external provider is active and whether it is ready."""
    active = provider_schemas.read_memory_settings(home=home).active
    summary: dict[str, Any] = {"active": active, "label": active, "status": "", "missing_secrets": []}
    if not active:
        return summary
    try:
        state = provider_state(home=home, name=active)
    except (provider_schemas.InvalidProviderName, provider_schemas.UnknownProvider):
        summary["status"] = "missing"
        return summary
    summary.update(label=state.label, status=state.status, missing_secrets=list(state.missing_secrets))
    return summary
