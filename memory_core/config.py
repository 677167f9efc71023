"""The ``memory:`` section of ``config.yaml`` as the store uses it (docs/agent_formats.md §Memory settings)."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from memory_core.home import resolve_home
from memory_core.messages import say
from memory_core.store import MemoryStore

DEFAULT_MEMORY_CHAR_LIMIT = 2200
DEFAULT_USER_CHAR_LIMIT = 1375
_APPROVAL_ON = frozenset({"on", "true", "yes", "1", "approve", "enabled"})


@dataclass(frozen=True)
class MemoryConfig:
    memory_enabled: bool = True
    user_profile_enabled: bool = True
    memory_char_limit: int = DEFAULT_MEMORY_CHAR_LIMIT
    user_char_limit: int = DEFAULT_USER_CHAR_LIMIT
    write_approval: bool = False
    provider: str = ""
    # Why the file could not be used (defaults then apply); "" when it was fine or absent.
    error: str = ""

    def limit_for(self, target: str) -> int:
        return self.user_char_limit if target == "user" else self.memory_char_limit

    def enabled_for(self, target: str) -> bool:
        return bool(self.user_profile_enabled if target == "user" else self.memory_enabled)

    @property
    def has_store(self) -> bool:
        """The agent creates its built-in store iff either block is enabled."""
        return bool(self.memory_enabled or self.user_profile_enabled)


def approval_is_on(value: Any) -> bool:
    """Boolean ``true`` or one of the accepted words; YAML ``1``, null and the rest are off."""
    if value is True:
        return True
    if isinstance(value, str):
        return value.strip().lower() in _APPROVAL_ON
    return False


def config_path(home: str | os.PathLike[str] | None) -> Path:
    return resolve_home(home) / "config.yaml"


# A settings file is kilobytes; parsing a far bigger one would stall every page that shows a store.
MAX_CONFIG_BYTES = 1024 * 1024


def _read_yaml(path: Path) -> tuple[Any, str]:
    from memory_core import safe_paths

    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return {}, say("config_too_large", size=str(MAX_CONFIG_BYTES // 1024))
        text = safe_paths.read_bytes(path, path.absolute().parent).decode("utf-8")
    except FileNotFoundError:
        return {}, ""
    except safe_paths.LinkOutsideHome:
        return {}, say("config_link_read")
    except (OSError, UnicodeDecodeError) as exc:
        return {}, say("config_unreadable", error=exc.__class__.__name__)
    try:
        return yaml.safe_load(text) or {}, ""
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            return {}, say("config_invalid_yaml_at", line=str(mark.line + 1))
        return {}, say("config_invalid_yaml")
    except RecursionError:
        return {}, say("config_too_deep")
    except ValueError:  # e.g. an integer of more digits than Python converts
        return {}, say("config_long_number")


_TRUTHY = frozenset({"1", "true", "yes", "on"})


def newer_flag(value: Any) -> bool:
    """How a newer agent reads ``memory_enabled`` / ``user_profile_enabled``: unset or null is
    on, a string is on only when it says so (``"false"``, ``"off"`` are off), anything else by
    its truth. 0.19.0 takes any value by its truth (so ``"false"`` is on and null is off)."""
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in _TRUTHY
    return bool(value)


def memory_config_from_mapping(document: Any, *, error: str = "", newer: bool = False) -> MemoryConfig:
    """``newer``: the home's agent is newer than 0.19.0 (``memory_core.agent_release``)."""
    section = document.get("memory", {}) if isinstance(document, dict) else {}
    if not isinstance(section, dict):
        # Limits and flags fall back to the defaults; a non-mapping section sets nothing.
        return MemoryConfig(error=error)
    memory_limit, user_limit = DEFAULT_MEMORY_CHAR_LIMIT, DEFAULT_USER_CHAR_LIMIT
    # Same order and short-circuit as the agent: the first bad value stops the conversion.
    try:
        memory_limit = int(section.get("memory_char_limit", DEFAULT_MEMORY_CHAR_LIMIT))
        user_limit = int(section.get("user_char_limit", DEFAULT_USER_CHAR_LIMIT))
    except (TypeError, ValueError, OverflowError):
        pass
    provider = section.get("provider", "")
    flag = newer_flag if newer else (lambda value: bool(value))
    return MemoryConfig(
        memory_enabled=flag(section.get("memory_enabled", True)),
        user_profile_enabled=flag(section.get("user_profile_enabled", True)),
        memory_char_limit=memory_limit,
        user_char_limit=user_limit,
        write_approval=approval_is_on(section.get("write_approval", False)),
        provider=provider if isinstance(provider, str) else str(provider or ""),
        error=error,
    )


def read_memory_config(home: str | os.PathLike[str] | None) -> MemoryConfig:
    """The effective settings; a missing or broken file gives the defaults (with ``error`` set)."""
    from memory_core.agent_release import newer_agent_home

    document, error = _read_yaml(config_path(home))
    return memory_config_from_mapping(document, error=error, newer=newer_agent_home(home))


def store_from_config(
    home: str | os.PathLike[str] | None, config: MemoryConfig | None = None, *, load: bool = True
) -> MemoryStore:
    """A store with the home's limits, flags and write-approval setting, loaded from disk."""
    config = read_memory_config(home) if config is None else config
    store = MemoryStore(
        home,
        config.memory_char_limit,
        config.user_char_limit,
        memory_enabled=config.memory_enabled,
        user_profile_enabled=config.user_profile_enabled,
        write_approval=config.write_approval,
    )
    if load:
        store.load_from_disk()
    return store


def set_write_approval(home: str | os.PathLike[str] | None, enabled: bool) -> None:
    """Store ``memory.write_approval`` as a YAML boolean, keeping the file's comments and order.

    Written atomically (temp file + fsync + rename) because the agent may read it at any time.
    """
    from ruamel.yaml import YAML

    from memory_core import safe_paths

    path = config_path(home)
    root = resolve_home(home)
    if safe_paths.leaving_link(path, root) is not None:
        raise ValueError(say("config_link_write"))
    round_trip = YAML()
    round_trip.preserve_quotes = True
    try:
        text = safe_paths.read_bytes(path, root).decode("utf-8")
    except FileNotFoundError:
        text = ""
    document = round_trip.load(text) if text.strip() else None
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise ValueError("config.yaml does not hold a mapping at the top level; not changed.")
    section = document.get("memory")
    if not isinstance(section, dict):
        document["memory"] = section = {}
    section["write_approval"] = bool(enabled)
    buffer = io.StringIO()
    round_trip.dump(document, buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=".config_", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(buffer.getvalue())
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        safe_paths.check_inside(path, root)  # again, just before: a link swapped in is not followed
        os.replace(temp_name, os.path.realpath(path))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
