"""The agent's home and its profiles: the one place for where a home is and what a profile may be
called (docs/agent_formats.md §Homes and profiles).

Every layer asks here: memory_core itself, provider_schemas (through ``provider_schemas.homes``,
which re-exports these names) and the web panel. Nothing is cached: the environment is read on
every call so tests and ``--demo`` can point it elsewhere. No Django, no other import from the
project, so every package may import it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

# A profile's folder name as the agent accepts it.
PROFILE_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
PROFILE_NAME_RULE = "[a-z0-9][a-z0-9_-]{0,63}"
DEFAULT_PROFILE = "default"
# Names the agent refuses for a profile: they collide with the agent itself or a system command.
RESERVED_PROFILE_NAMES = frozenset({"hermes", "test", "tmp", "root", "sudo"})


class InvalidProfileName(ValueError):
    """A profile name the agent would refuse (the APIs answer 400 with this wording)."""

    def __init__(self, name: str, *, reserved: bool = False) -> None:
        self.name = name
        self.reserved = reserved
        if reserved:
            text = (
                f"Profile name {name!r} is reserved — it collides with either the Hermes installation "
                "itself or a common system binary.  Pick a different name."
            )
        else:
            text = f"Invalid profile name {name!r}. Must match {PROFILE_NAME_RULE}"
        super().__init__(text)
        self.detail = text


def _env(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _on_windows() -> bool:
    return os.name == "nt"


def platform_home(environ: Mapping[str, str] | None = None) -> Path:
    """Where the agent keeps its default home on this system when ``HERMES_HOME`` is not set:
    ``%LOCALAPPDATA%\\hermes`` on Windows, ``~/.hermes`` elsewhere."""
    if _on_windows():
        local = (_env(environ).get("LOCALAPPDATA") or "").strip()
        base = Path(local) if local else Path.home() / "AppData" / "Local"
        return base / "hermes"
    return Path.home() / ".hermes"


def default_home(environ: Mapping[str, str] | None = None) -> Path:
    """``HERMES_HOME`` if non-blank (``~`` expanded), else :func:`platform_home`."""
    raw = (_env(environ).get("HERMES_HOME") or "").strip()
    if raw:
        return Path(raw).expanduser()
    return platform_home(environ)


def resolve_home(home: str | os.PathLike[str] | None) -> Path:
    """``home`` as a path, or the default home for None."""
    return default_home() if home is None else Path(home)


def memories_dir(home: str | os.PathLike[str] | None) -> Path:
    return resolve_home(home) / "memories"


def root_home(home: Path) -> Path:
    """The default profile's home for ``home``: a home inside the platform home belongs to it;
    ``<x>/profiles/<name>`` belongs to ``<x>``; any other home is its own root."""
    home = Path(home).absolute()
    native = platform_home()
    try:
        Path(os.path.realpath(home)).relative_to(os.path.realpath(native))
        return native
    except ValueError:
        pass
    if home.parent.name == "profiles":
        return home.parent.parent
    return home


def profile_name(home: Path) -> str:
    """``"default"`` for the root itself, the profile's name for ``<root>/profiles/<name>``,
    else ``"custom"``."""
    resolved = Path(os.path.realpath(home))
    root = Path(os.path.realpath(root_home(home)))
    if resolved == root:
        return DEFAULT_PROFILE
    try:
        parts = resolved.relative_to(root / "profiles").parts
    except ValueError:
        return "custom"
    if len(parts) == 1 and PROFILE_NAME_RE.fullmatch(parts[0]):
        return parts[0]
    return "custom"


def canonical_profile_name(raw: str) -> str:
    """The agent's normalisation: stripped; blank or ``Default`` in any case is ``default``; any
    other name lower-cased."""
    text = raw.strip()
    if not text or text.casefold() == DEFAULT_PROFILE:
        return DEFAULT_PROFILE
    return text.lower()


def check_profile_name(name: str, *, reserved: bool = True) -> str:
    """``name`` unchanged if the agent accepts it as a profile folder name, else
    ``InvalidProfileName``. ``default`` always passes (it is the root, not a folder);
    ``reserved=False`` checks only the spelling."""
    if name == DEFAULT_PROFILE:
        return name
    if not PROFILE_NAME_RE.fullmatch(name):
        raise InvalidProfileName(name)
    if reserved and name in RESERVED_PROFILE_NAMES:
        raise InvalidProfileName(name, reserved=True)
    return name


def is_profile_folder(name: str) -> bool:
    """Whether a folder called ``name`` under ``<root>/profiles/`` is a profile the agent uses (a
    folder called ``default`` is not: that name is the root)."""
    return name != DEFAULT_PROFILE and name not in RESERVED_PROFILE_NAMES and bool(PROFILE_NAME_RE.fullmatch(name))


def profile_home(*, home: Path, profile: str, reserved: bool = False) -> Path:
    """The home of profile ``profile`` next to ``home`` (``""``/``"current"``: ``home`` itself,
    ``"default"``: the root). The name is taken as given (not canonicalised); a name that is no
    profile name, or with ``reserved=True`` a reserved one, raises ``InvalidProfileName`` (a
    ``ValueError``). Whether the folder exists is the caller's question."""
    if profile in ("", "current"):
        return Path(home)
    root = root_home(home)
    if profile == DEFAULT_PROFILE:
        return root
    check_profile_name(profile, reserved=reserved)
    return root / "profiles" / profile
