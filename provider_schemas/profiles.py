"""The agent's profiles around a home: the root and every ``<root>/profiles/<name>/``
(docs/agent_formats.md §Homes and profiles).

Where the root is comes from :func:`provider_schemas.homes.root_home` (standard ``~/.hermes``,
Docker-style ``/opt/data`` and custom layouts). Folders the agent would not use as a profile are
still listed, each with its problem, so a person sees why "ops" is missing instead of a page that
crashes or stays silent. Nothing here writes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memory_core.home import (
    DEFAULT_PROFILE,
    PROFILE_NAME_RE,
    InvalidProfileName,
    canonical_profile_name,
    check_profile_name,
    profile_name,
    root_home,
)
from memory_core.home import RESERVED_PROFILE_NAMES as RESERVED_NAMES

__all__ = [
    "DEFAULT_PROFILE",
    "RESERVED_NAMES",
    "InvalidProfileName",
    "Profile",
    "ProfileSet",
    "UnknownProfile",
    "canonical_profile_name",
    "discover_profiles",
    "honcho_hosts",
    "resolve_profile",
]

# Problem codes of a listed folder (the page words them; see admin_panel.selectors.profiles).
BAD_NAME = "bad_name"
RESERVED = "reserved"
SHADOWED_BY_DEFAULT = "shadowed_by_default"
BROKEN_LINK = "broken_link"
UNREADABLE = "unreadable"
NOT_A_DIRECTORY = "not_a_directory"


class UnknownProfile(LookupError):
    """A well-formed profile name with no folder (HTTP 404)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.detail = f"Profile '{name}' does not exist."
        super().__init__(self.detail)


@dataclass(frozen=True)
class Profile:
    """One profile, or one folder under ``profiles/`` that is not a usable profile."""

    name: str  # "default" or the folder's name exactly as on disk
    home: Path
    is_default: bool
    is_current: bool  # the home the panel was started on
    problem: str | None = None
    detail: str = ""  # the operating system's words for an unreadable folder

    @property
    def usable(self) -> bool:
        return self.problem is None


@dataclass(frozen=True)
class ProfileSet:
    root: Path
    profiles: list[Profile]  # default first, then folders by name
    current: str  # name of the panel's home: "default", a profile name, or "custom"
    profiles_dir_error: str = ""  # <root>/profiles exists but cannot be listed

    @property
    def usable(self) -> list[Profile]:
        return [profile for profile in self.profiles if profile.usable]

    @property
    def problems(self) -> list[Profile]:
        return [profile for profile in self.profiles if not profile.usable]

    def get(self, name: str) -> Profile | None:
        """The usable profile called ``name`` (None for unknown or unusable names)."""
        return next((p for p in self.usable if p.name == name), None)


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _folder_problem(entry: os.DirEntry[str], *, probe: bool = True) -> tuple[str | None, str]:
    name = entry.name
    try:
        is_dir = entry.is_dir()  # follows a symlink
    except OSError as exc:
        return UNREADABLE, exc.strerror or str(exc)
    if entry.is_symlink() and not os.path.exists(entry.path):
        return BROKEN_LINK, ""
    if not is_dir:
        return NOT_A_DIRECTORY, ""
    if not PROFILE_NAME_RE.fullmatch(name):
        return BAD_NAME, ""
    if name == DEFAULT_PROFILE:
        return SHADOWED_BY_DEFAULT, ""
    if name in RESERVED_NAMES:
        return RESERVED, ""
    if not probe:
        return None, ""
    try:
        with os.scandir(entry.path) as inside:
            next(inside, None)
    except OSError as exc:
        return UNREADABLE, exc.strerror or str(exc)
    return None, ""


def discover_profiles(*, home: Path, probe: bool = True) -> ProfileSet:
    """The root of ``home`` and every entry of ``<root>/profiles/`` (hidden entries and plain files
    are skipped, as the agent skips them; a symlink that points nowhere is listed).

    ``probe=False`` skips opening each folder to find unreadable ones: enough to count profiles
    (the navigation does on every page)."""
    home = Path(home).absolute()
    root = root_home(home)
    current = profile_name(home)
    profiles = [Profile(name=DEFAULT_PROFILE, home=root, is_default=True, is_current=_same(root, home))]
    listing_error = ""
    folders: list[Profile] = []
    try:
        with os.scandir(root / "profiles") as entries:
            scanned = list(entries)
    except FileNotFoundError:
        scanned = []
    except NotADirectoryError:
        scanned = []
        listing_error = "not a directory"
    except OSError as exc:
        scanned = []
        listing_error = exc.strerror or str(exc)
    for entry in scanned:
        if entry.name.startswith("."):
            continue
        problem, detail = _folder_problem(entry, probe=probe)
        if problem == NOT_A_DIRECTORY:
            continue
        path = Path(entry.path)
        is_current = problem is None and _same(path, home)
        folders.append(
            Profile(name=entry.name, home=path, is_default=False, is_current=is_current, problem=problem, detail=detail)
        )
    folders.sort(key=lambda profile: profile.name)
    return ProfileSet(root=root, profiles=profiles + folders, current=current, profiles_dir_error=listing_error)


def resolve_profile(*, home: Path, raw: str) -> Path:
    """The home of the API-style ``profile=`` value next to ``home``: ``""`` and ``current`` are
    ``home`` itself (docs/api.md §Common rules); otherwise the canonical name must be valid, not reserved and exist.
    Raises ``InvalidProfileName`` or ``UnknownProfile``."""
    if raw == "" or raw.strip() == "current":
        return Path(home)
    name = canonical_profile_name(raw)
    root = root_home(Path(home).absolute())
    if name == DEFAULT_PROFILE:
        return root
    path = root / "profiles" / check_profile_name(name)
    if not path.is_dir():
        raise UnknownProfile(name)
    return path


@dataclass(frozen=True)
class HonchoProfileHost:
    """Which Honcho file and host block one profile uses (docs/agent_formats.md §Provider storage)."""

    profile: str
    is_current: bool
    file: str  # shown relative to the panel's home where possible
    shared: str | None  # "root", "global" or None (the profile's own honcho.json)
    host: str
    reason: str  # "env", "profile" or "defaultHost"
    block: str  # the key under ``hosts`` (a legacy ``hermes.<x>`` key when that is the one in use)
    block_exists: bool
    file_error: str | None


def honcho_hosts(*, home: Path) -> list[HonchoProfileHost]:
    """The Honcho host block of every usable profile around ``home``, resolved exactly as the
    provider page resolves its own (the first existing file, ``HERMES_HONCHO_HOST`` from the
    profile's ``.env``, ``defaultHost`` for the ``hermes`` host, legacy block keys)."""
    from provider_schemas.homes import display_path
    from provider_schemas.storage.env_file import read_env
    from provider_schemas.storage.honcho import block_key, host_block, resolve_target

    rows = []
    for profile in discover_profiles(home=home).usable:
        env_host = read_env(profile.home / ".env").non_empty("HERMES_HONCHO_HOST")
        target, doc = resolve_target(profile.home, env_host=env_host)
        data = doc.data or {}
        key = block_key(data, target.host)
        rows.append(
            HonchoProfileHost(
                profile=profile.name,
                is_current=profile.is_current,
                file=display_path(target.path, home=home),
                shared=target.shared,
                host=target.host,
                reason=target.reason,
                block=key,
                block_exists=bool(host_block(data, key)),
                file_error=doc.error,
            )
        )
    return rows
