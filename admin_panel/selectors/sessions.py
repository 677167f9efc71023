"""Reads for the Sessions page and API: the agent's history, masked.

Every text that leaves here went through the home's ``SecretMasker`` (sessions.md B3). The
masker and the map of sessions holding a secret are kept for a few seconds per home, so a page
and its htmx requests do not read the secret stores and the whole history each time.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from memory_core.history import History, state_db_path
from memory_core.history.secrets import sessions_with_secrets
from memory_core.secret_masking import SecretMasker
from provider_schemas.secret_stores.environment import stored_secret_values

SNIPPET_MARKERS = (">>>", "<<<")
_CACHE_SECONDS = 5.0
_lock = threading.Lock()
_maskers: dict[str, tuple[float, SecretMasker]] = {}
_secret_maps: dict[tuple[str, tuple], tuple[float, dict[str, list[str]]]] = {}


def secret_masker(*, home: Path) -> SecretMasker:
    key = os.path.realpath(home)
    now = time.monotonic()
    with _lock:
        hit = _maskers.get(key)
    if hit is not None and hit[0] > now:
        return hit[1]
    masker = SecretMasker(stored_secret_values(home=Path(home)))
    with _lock:
        _maskers[key] = (now + _CACHE_SECONDS, masker)
    return masker


def forget_cache() -> None:
    with _lock:
        _maskers.clear()
        _secret_maps.clear()


def _file_stamp(path: Path) -> tuple:
    stamp = []
    for candidate in (path, path.with_name(path.name + "-wal")):
        try:
            st = candidate.stat()
            stamp.append((st.st_mtime_ns, st.st_size))
        except OSError:
            stamp.append(None)
    return tuple(stamp)


def secret_sessions(history: History, *, home: Path, masker: SecretMasker) -> dict[str, list[str]]:
    """``{ENV_NAME: [session ids]}``, cached while the file and the secrets are unchanged."""
    if not masker:
        return {}
    key = (os.path.realpath(state_db_path(home)), (_file_stamp(history.path), masker.names, len(masker.forms)))
    now = time.monotonic()
    with _lock:
        hit = _secret_maps.get(key)
    if hit is not None and hit[0] > now:
        return hit[1]
    found = sessions_with_secrets(history, masker)
    with _lock:
        _secret_maps[key] = (now + _CACHE_SECONDS, found)
    return found


def secrets_by_session(found: dict[str, list[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, ids in found.items():
        for session_id in ids:
            out.setdefault(session_id, []).append(name)
    return out


def mask_search_results(results: list[dict[str, Any]], masker: SecretMasker) -> list[dict[str, Any]]:
    out = []
    for result in results:
        masked = masker.mask_data({k: v for k, v in result.items() if k != "snippet"})
        masked_result = {}
        for k in result:
            if k == "snippet":
                snippet = result[k]
                masked_result[k] = masker.mask_excerpt(snippet, markers=SNIPPET_MARKERS) if snippet else snippet
            else:
                masked_result[k] = masked[k]
        out.append(masked_result)
    return out
