"""The config GET's whole answer, reused while every input it was made from is unchanged.

A provider's config answer (docs/api.md §Reading a provider's config) is a function of: the
discovered entry and its schema (discovery keeps one schema object per version of its file), the
home's secret-store choice and ``set_at`` rows (the caller's, read from the panel's database on
every request), ``config.yaml`` (active provider, and the values of a config.yaml provider),
``.env``, the provider's own settings file and its fallbacks, and two environment variables
(``HOME`` for ``~/`` paths and labels). Each file is keyed on ``fingerprints.path_state``: inode,
size, mtime and ctime of the file and of every folder from its home down to it.

Never a stale answer (docs/performance.md §GET: the whole answer, kept while its inputs are
unchanged):
- an answer is stored under the states taken *before* its read: a file changed during the read
  makes the next request's states differ;
- nothing is stored while an input changed within the last ``RACY_NS`` (the kernel's clock ticks
  coarsely: two edits of the same size in one tick would otherwise look alike);
- a path through a link, the keyring (``secret_store`` ``keyring``, read on every request) and
  honcho's files (chosen by environment, read under their lock) are never answered from here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from memory_core.caching import MISSING, KeyedCache
from memory_core.fingerprints import LINK, newest_change_ns, path_state
from provider_schemas.config_schema import (
    STORAGE_CONFIG_YAML,
    STORAGE_ENV_FILE,
    STORAGE_HONCHO_HOST_BLOCK,
    STORAGE_JSON_FILE,
)
from provider_schemas.errors import UnknownProvider
from provider_schemas.homes import expand_location
from provider_schemas.loading.discovery import ProviderEntry, get_provider
from provider_schemas.reading.state import ProviderState, answer_state
from provider_schemas.secret_stores import ENV_FILE

RACY_NS = 1_000_000_000  # inputs changed this recently are read, never stored
# docs/caching.md: one entry per (home, provider); the value is (entry, encoded answer).
_answers = KeyedCache("config API answers per home and provider", size=256)
_stats = {"hits": 0, "misses": 0}
_now_ns = time.time_ns  # the clock file times are compared with (a test moves it)


def clear_answers() -> None:
    _answers.clear()


def _input_paths(entry: ProviderEntry, home: Path) -> list[Path] | None:
    schema = entry.schema
    if schema is None:
        return [home / "config.yaml"]
    if schema.storage == STORAGE_HONCHO_HOST_BLOCK:
        return None
    paths = [home / "config.yaml", home / ".env"]
    if schema.storage == STORAGE_JSON_FILE:
        paths.append(home / schema.storage_path)
    elif schema.storage not in (STORAGE_CONFIG_YAML, STORAGE_ENV_FILE):
        paths.append(home / f"{schema.name}/config.json")
    paths.extend(expand_location(entry_path, home=home) for entry_path in schema.storage_fallbacks)
    return paths


def _states(paths: list[Path], home: Path) -> tuple[Any, ...] | None:
    states: list[Any] = []
    inside = os.path.abspath(home)
    for path in paths:
        absolute = os.path.abspath(path)
        # Inside the home: from the home, the first base a confined read tries. Elsewhere (a
        # ``~/`` fallback): every step from the file system's root, so no link anywhere on the way
        # goes unseen, whichever base the read confines it to (finding it costs realpath calls).
        base = inside if absolute.startswith(inside + os.sep) else os.sep
        state = path_state(path, base=base)
        if state == LINK:
            return None
        states.append(state)
    return tuple(states)


def _same_entry(a: ProviderEntry, b: ProviderEntry) -> bool:
    return (a.schema is b.schema and a.load_error is b.load_error and a.name == b.name and a.label == b.label
            and a.description == b.description and a.origin == b.origin and a.path == b.path
            and a.directory == b.directory and a.setup == b.setup)


def config_answer(
    *, home: Path, name: str, secret_store: str, set_at: Mapping[str, str], render: Callable[[ProviderState], bytes],
) -> bytes:
    """``render(read_provider(...))`` for ``name`` in ``home`` (the caller's encoded answer: the
    payload of docs/api.md lives above this layer), from the cache when every input is unchanged.
    Raises what ``read_provider`` raises."""
    home = Path(home)
    entry = get_provider(home=home, name=name)
    if entry is None:
        raise UnknownProvider(name)
    states = None
    if secret_store == ENV_FILE:
        paths = _input_paths(entry, home)
        if paths is not None:
            states = _states(paths, home)
    cache_key = (str(home), name)
    key: tuple[Any, ...] | None = None
    if states is not None:
        key = (states, secret_store, tuple(sorted(set_at.items())), os.environ.get("HOME"))
        hit = _answers.get(cache_key, key)
        # The entry by identity of its schema (one object per version of the declaration file).
        if hit is not MISSING and _same_entry(hit[0], entry):
            _stats["hits"] += 1
            return hit[1]
    _stats["misses"] += 1
    body = render(answer_state(entry, home=home, secret_store=secret_store, set_at=set_at))
    if key is not None and max((newest_change_ns(s) for s in key[0]), default=0) < _now_ns() - RACY_NS:
        _answers.put(cache_key, key, (entry, body))
    return body
