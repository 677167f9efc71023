"""Honcho's config file: which file, which host block, and its lock (docs/agent_formats.md §Provider storage)."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_core.safe_paths import LINK_PROBLEM
from provider_schemas.errors import StorageParseError
from provider_schemas.homes import display_path, profile_name, root_home
from provider_schemas.storage.json_doc import JsonDoc, read_json_doc

DEFAULT_HOST = "hermes"


@dataclass(frozen=True)
class HonchoTarget:
    """The file the plugin reads (and the panel writes) and the active host key.

    ``shared`` is ``"root"`` (the default profile's ``honcho.json``), ``"global"``
    (``~/.honcho/config.json``, shared with other apps) or None (this home's own file).
    ``reason`` says why this host key: ``"env"``, ``"profile"`` or ``"defaultHost"``.
    """

    path: Path
    label: str
    shared: str | None
    host: str
    reason: str


def global_config_path() -> Path:
    return Path.home() / ".honcho" / "config.json"


def choose_file(home: Path) -> tuple[Path, str | None]:
    """First existing of HERMES_HOME/honcho.json, <root>/honcho.json, ~/.honcho/config.json
    (the last is also the target when none exists). Existence decides, not validity."""
    local = Path(home) / "honcho.json"
    if local.exists():
        return local, None
    root_file = root_home(home) / "honcho.json"
    if os.path.realpath(root_file) != os.path.realpath(local) and root_file.exists():
        return root_file, "root"
    return global_config_path(), "global"


def profile_host(profile: str) -> str:
    if profile in ("default", "custom"):
        return DEFAULT_HOST
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", profile).strip("_")
    return f"{DEFAULT_HOST}_{cleaned or 'profile'}"


def resolve_target(home: Path, *, env_host: str | None) -> tuple[HonchoTarget, JsonDoc]:
    """Resolve file and host key; also returns the file's parsed content.

    ``env_host`` is ``HERMES_HONCHO_HOST`` from ``.env`` (the panel's own environment is used when
    ``.env`` does not set it).
    """
    path, shared = choose_file(home)
    label = display_path(path, home=home)
    doc = read_json_doc(path, label=label, home=home)
    explicit = (env_host or os.environ.get("HERMES_HONCHO_HOST", "")).strip()
    if explicit:
        return HonchoTarget(path, label, shared, explicit, "env"), doc
    host = profile_host(profile_name(home))
    reason = "profile"
    if host == DEFAULT_HOST and doc.data is not None:
        default_host = doc.data.get("defaultHost")
        text = str(default_host).strip() if default_host is not None else ""
        if text:
            host, reason = text, "defaultHost"
    return HonchoTarget(path, label, shared, host, reason), doc


def block_key(data: Mapping[str, Any], host: str) -> str:
    """The key under ``hosts`` holding the active block: ``host``, or for ``hermes_<x>`` a legacy
    ``hermes.<x>`` block while ``hosts[host]`` is missing or empty."""
    hosts = data.get("hosts")
    if not isinstance(hosts, Mapping):
        return host
    if hosts.get(host) or not host.startswith(f"{DEFAULT_HOST}_"):
        return host
    legacy = f"{DEFAULT_HOST}.{host[len(DEFAULT_HOST) + 1 :]}"
    if isinstance(hosts.get(legacy), Mapping) and hosts.get(legacy):
        return legacy
    return host


def host_block(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    hosts = data.get("hosts")
    if isinstance(hosts, Mapping):
        block = hosts.get(key)
        if isinstance(block, Mapping):
            return block
    return {}


def writable_block(data: dict[str, Any], key: str) -> dict[str, Any]:
    """The host block inside ``data``, created (a missing, null or non-object ``hosts`` becomes {})."""
    hosts = data.get("hosts")
    if not isinstance(hosts, dict):
        hosts = {}
        data["hosts"] = hosts
    block = hosts.get(key)
    if not isinstance(block, dict):
        block = {}
        hosts[key] = block
    return block


@contextlib.contextmanager
def file_lock(path: Path, *, create: bool = True) -> Iterator[None]:
    """Exclusive advisory lock on ``<file>.lock`` (0.19.0's protocol; the agent's OAuth refresh
    takes it too). With ``create=False`` nothing is created: no lock is taken when the
    directory does not exist (there is nothing to read consistently)."""
    lock_path = Path(str(path) + ".lock")
    if not create and not lock_path.parent.is_dir():
        yield
        return
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    # Never through a link (docs/safe_paths.md): a link there fails the open (ELOOP) instead of
    # creating or locking a file elsewhere.
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(lock_path, flags, 0o600)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        if not create:  # only reading: read without the lock rather than through a link
            yield
            return
        raise StorageParseError(file=lock_path.name, problem=LINK_PROBLEM, fmt="JSON") from None
    with os.fdopen(fd, "ab") as handle:
        if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
            try:
                yield
            finally:
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
