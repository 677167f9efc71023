"""The provider-name guard: checked before a name touches any path."""

from __future__ import annotations

import re

from provider_schemas.errors import InvalidProviderName

# docs/api.md §Common rules: the same pattern hermes-agent 0.19.0 applies to its provider routes.
PROVIDER_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")

# Values of memory.provider that mean "built-in memory only" (compared case-insensitively).
BUILTIN_ALIASES = frozenset({"", "built-in", "builtin", "none"})


def is_provider_name(name: object) -> bool:
    return isinstance(name, str) and PROVIDER_NAME_RE.fullmatch(name) is not None


def check_provider_name(name: object) -> str:
    """Return ``name`` if it may address a provider, else raise ``InvalidProviderName``."""
    if not is_provider_name(name):
        raise InvalidProviderName(str(name))
    return str(name)


def normalise_active_provider(value: object) -> str:
    """``memory.provider`` as the agent understands it: built-in aliases and non-strings become ``""``."""
    if not isinstance(value, str):
        return ""
    text = value.strip()
    return "" if text.lower() in BUILTIN_ALIASES else text
