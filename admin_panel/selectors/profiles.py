"""Reads for the profiles overview: every profile of the agent side by side (one row each).

Each fact comes from the selector its own page uses (memory settings from provider_schemas, the
stores from :mod:`admin_panel.selectors.memory`, provider readiness and the secret store from
:mod:`admin_panel.selectors.providers`), so the overview never disagrees with the page a cell
links to. A profile whose files cannot be read gets a row with the problem, never an error page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import provider_schemas
from admin_panel.profile_choice import address, is_panel_home
from admin_panel.selectors.memory import MemorySummary, memory_summary
from admin_panel.selectors.providers import provider_summary, secret_store_for
from admin_panel.selectors.sessions import SessionActivity, session_activity
from memory_core.history.db import MALFORMED, UNREADABLE
from provider_schemas.profiles import Profile, ProfileSet, discover_profiles

# The memory settings compared across profiles, in column order (docs/agent_formats.md §Activation).
SETTING_KEYS = (
    "memory_enabled",
    "user_profile_enabled",
    "memory_char_limit",
    "user_char_limit",
    "write_approval",
    "nudge_interval",
)
NEARLY_FULL_PERCENT = 90

# Problem codes (worded in the template, so both languages read them).
MEMORY_DISABLED = "memory_disabled"
USER_PROFILE_DISABLED = "user_profile_disabled"
PROVIDER_NOT_READY = "provider_not_ready"
STORE_NEARLY_FULL = "store_nearly_full"
DRIFT = "drift"
UNREADABLE_FILE = "unreadable_file"
FOLDER_PROBLEM = "folder_problem"
# History states that mean state.db is damaged or cannot be opened (locked is a passing state).
UNREADABLE_HISTORY = {MALFORMED, UNREADABLE}


@dataclass(frozen=True)
class Problem:
    code: str
    subject: str = ""  # a file name, a provider label, a discovery problem code
    url: str = ""


@dataclass(frozen=True)
class Cell:
    key: str
    value: Any
    url: str
    differs: bool = False  # not the same as the default profile's


@dataclass
class ProfileRow:
    profile: Profile
    cells: dict[str, Cell] = field(default_factory=dict)
    stores: list[Any] = field(default_factory=list)  # memory_core StoreState, memory then user
    provider: dict[str, Any] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    settings_error: str = ""
    sessions: SessionActivity | None = None

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def setting_cells(self) -> list[Cell]:
        return [self.cells[key] for key in SETTING_KEYS if key in self.cells]

    @property
    def readable(self) -> bool:
        return self.profile.usable and bool(self.cells)


@dataclass(frozen=True)
class ProfilesOverview:
    found: ProfileSet
    rows: list[ProfileRow]

    @property
    def root(self) -> Path:
        return self.found.root


def profile_url(url_name: str, *, profile: Profile, args: tuple[str, ...] = (), fragment: str = "") -> str:
    """A page's address for ``profile``: the panel's own home needs no prefix, another profile's
    pages are under ``/profile/<name>/`` (admin_panel.profile_choice)."""
    name = None if is_panel_home(profile.home) else profile.name
    return address(url_name, profile=name, args=args) + (f"#{fragment}" if fragment else "")


def profile_count(*, home: Path) -> int:
    """How many profiles (including folders with a problem) the navigation would offer."""
    return len(discover_profiles(home=home, probe=False).profiles)


def _settings_cells(row: ProfileRow, settings: Any) -> None:
    for key in SETTING_KEYS:
        url = profile_url("memory_settings", profile=row.profile, fragment=f"set-{key}")
        row.cells[key] = Cell(key=key, value=settings.values.get(key), url=url)


def _store_problems(row: ProfileRow, summary: MemorySummary) -> None:
    for state in summary.stores:
        url = profile_url("memory", profile=row.profile, fragment=f"store-{state.target}")
        if not state.readable:
            row.problems.append(Problem(UNREADABLE_FILE, f"memories/{state.file_name}", url))
            continue
        if state.drift is not None:
            row.problems.append(Problem(DRIFT, state.file_name, url))
        if state.limit > 0 and state.total_chars * 100 > state.limit * NEARLY_FULL_PERCENT:
            row.problems.append(Problem(STORE_NEARLY_FULL, state.file_name, url))


def _read_row(profile: Profile) -> ProfileRow:
    row = ProfileRow(profile=profile)
    if not profile.usable:
        row.problems.append(Problem(FOLDER_PROBLEM, profile.problem or ""))
        return row
    home = profile.home
    settings = provider_schemas.read_memory_settings(home=home)
    settings_url = profile_url("memory_settings", profile=profile)
    if settings.error:
        row.settings_error = settings.error
        row.problems.append(Problem(UNREADABLE_FILE, "config.yaml", settings_url))
    _settings_cells(row, settings)
    if settings.values.get("memory_enabled") is False:
        row.problems.append(Problem(MEMORY_DISABLED, "", row.cells["memory_enabled"].url))
    if settings.values.get("user_profile_enabled") is False:
        row.problems.append(Problem(USER_PROFILE_DISABLED, "", row.cells["user_profile_enabled"].url))

    summary = memory_summary(home=home)
    row.stores = list(summary.stores)
    for state in summary.stores:
        row.cells[f"usage_{state.target}"] = Cell(
            key=f"usage_{state.target}",
            value=state,
            url=profile_url("memory", profile=profile, fragment=f"store-{state.target}"),
        )
    row.cells["blocked"] = Cell(key="blocked", value=summary.blocked_count,
                                url=profile_url("memory_blocked", profile=profile))
    row.cells["pending"] = Cell(key="pending", value=summary.pending_count,
                                url=profile_url("memory_pending", profile=profile))
    _store_problems(row, summary)

    provider = provider_summary(home=home)
    row.provider = provider
    active = provider.get("active") or ""
    if active:
        provider_url = profile_url("provider_detail", profile=profile, args=(active,))
    else:
        provider_url = profile_url("providers", profile=profile)
    row.cells["provider"] = Cell(key="provider", value=active, url=provider_url)
    if active and provider.get("status") != "ready":
        row.problems.append(Problem(PROVIDER_NOT_READY, provider.get("label") or active, provider_url))
    row.cells["secret_store"] = Cell(
        key="secret_store",
        value=secret_store_for(home=home),
        url=profile_url("memory_settings", profile=profile, fragment="secret-store"),
    )
    # state.db read-only through the history reader, counted as the Sessions page counts.
    row.sessions = session_activity(home=home)
    row.cells["sessions"] = Cell(key="sessions", value=row.sessions.count, url=profile_url("sessions", profile=profile))
    if row.sessions.state in UNREADABLE_HISTORY:
        row.problems.append(Problem(UNREADABLE_FILE, "state.db", row.cells["sessions"].url))
    return row


def _unreadable_row(profile: Profile, exc: OSError) -> ProfileRow:
    """A profile whose files could not even be opened: one row saying so."""
    row = ProfileRow(profile=profile)
    where = Path(exc.filename).name if getattr(exc, "filename", None) else profile.name
    row.problems.append(Problem(UNREADABLE_FILE, where))
    return row


# Facts compared with the default profile (counts and usage differ by nature and are not marked).
COMPARED = (*SETTING_KEYS, "provider", "secret_store")


def _mark_differences(rows: list[ProfileRow]) -> None:
    default = next((row for row in rows if row.profile.is_default and row.readable), None)
    if default is None:
        return
    for row in rows:
        if row is default or not row.readable:
            continue
        for key in COMPARED:
            mine, theirs = row.cells.get(key), default.cells.get(key)
            if mine is not None and theirs is not None and mine.value != theirs.value:
                row.cells[key] = Cell(key=mine.key, value=mine.value, url=mine.url, differs=True)


def profiles_overview(*, home: Path) -> ProfilesOverview:
    found = discover_profiles(home=home)
    rows = []
    for profile in found.profiles:
        try:
            rows.append(_read_row(profile))
        except OSError as exc:  # a folder that turned unreadable between listing and reading
            rows.append(_unreadable_row(profile, exc))
    _mark_differences(rows)
    return ProfilesOverview(found=found, rows=rows)
