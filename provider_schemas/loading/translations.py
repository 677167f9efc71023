"""Provider-shipped translations of a schema's texts: ``translations.json`` beside ``config_schema.py``.

The file is pure data: it is parsed as JSON, checked against a fixed shape and size caps, and
never executed. The format is documented in ``docs/provider_translations.md``::

    {"zh-hans": {"label": "...", "description": "...", "groups": {"Connection": "..."},
                 "fields": {"<key>": {"label": "...", "description": "...", "info": "...",
                                      "placeholder": "...",
                                      "options": {"<value>": {"label": "...", "description": "..."}}}}}}

Every text is optional: whatever a table leaves out keeps its original wording. Lookups use the
language codes of the panel (``zh-hans``), compared case-insensitively with ``_`` read as ``-``;
a table for the primary language alone (``zh``) serves every variant of it that has none.
"""

from __future__ import annotations

import json
import os
import re
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from provider_schemas.config_schema import ProviderConfigSchema
from provider_schemas.errors import ProviderSchemaError

TRANSLATIONS_FILE_NAME = "translations.json"
MAX_FILE_BYTES = 256 * 1024
MAX_TEXT_CHARS = 4000
MAX_LANGUAGES = 64
LANGUAGE_RE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}")

TABLE_KEYS = frozenset({"label", "description", "groups", "fields"})
FIELD_KEYS = frozenset({"label", "description", "info", "placeholder", "options"})
OPTION_KEYS = frozenset({"label", "description"})

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class TranslationsError(ProviderSchemaError, ValueError):
    """The translations file is unreadable or not in the documented shape; ``where`` is a JSON
    path such as ``zh-hans.fields.mode.options``."""

    def __init__(self, message: str, *, where: str = "") -> None:
        self.message = message
        self.where = where
        super().__init__(f"{TRANSLATIONS_FILE_NAME}: {where + ': ' if where else ''}{message}")


@dataclass(frozen=True)
class OptionText:
    label: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class FieldText:
    label: str | None = None
    description: str | None = None
    info: str | None = None
    placeholder: str | None = None
    options: Mapping[str, OptionText] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True)
class LanguageTable:
    """One language's texts for one provider."""

    label: str | None = None
    description: str | None = None
    groups: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    fields: Mapping[str, FieldText] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True)
class ProviderTranslations:
    languages: Mapping[str, LanguageTable]

    def for_language(self, code: str | None) -> LanguageTable | None:
        """The table for ``code``: an exact match first, then its primary language."""
        if not code:
            return None
        wanted = normalise_language(code)
        table = self.languages.get(wanted)
        if table is None and "-" in wanted:
            table = self.languages.get(wanted.split("-", 1)[0])
        return table


def normalise_language(code: str) -> str:
    return code.strip().replace("_", "-").lower()


def translations_path(directory: Path) -> Path:
    return Path(directory) / TRANSLATIONS_FILE_NAME


# --- parsing ------------------------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise TranslationsError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _reject_constant(name: str) -> Any:
    raise TranslationsError(f"{name} is not allowed")


def _object(value: Any, where: str, allowed: frozenset[str] | None = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TranslationsError("must be a JSON object", where=where)
    if allowed is not None:
        unknown = sorted(set(value) - allowed)
        if unknown:
            expected = ", ".join(sorted(allowed))
            raise TranslationsError(f"unknown key {unknown[0]!r} (expected: {expected})", where=where)
    return value


def _text(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TranslationsError("must be a string", where=where)
    if "\x00" in value:
        raise TranslationsError("must not contain NUL characters", where=where)
    if len(value) > MAX_TEXT_CHARS:
        raise TranslationsError(f"is longer than {MAX_TEXT_CHARS} characters", where=where)
    # An empty text would blank out the original wording; treat it as "not translated".
    return value or None


def _options(value: Any, where: str) -> Mapping[str, OptionText]:
    out: dict[str, OptionText] = {}
    for option_value, raw in _object(value, where).items():
        spot = f"{where}.{option_value}"
        entry = _object(raw, spot, OPTION_KEYS)
        out[option_value] = OptionText(
            label=_text(entry.get("label"), f"{spot}.label"),
            description=_text(entry.get("description"), f"{spot}.description"),
        )
    return MappingProxyType(out)


def _field(value: Any, where: str) -> FieldText:
    entry = _object(value, where, FIELD_KEYS)
    return FieldText(
        label=_text(entry.get("label"), f"{where}.label"),
        description=_text(entry.get("description"), f"{where}.description"),
        info=_text(entry.get("info"), f"{where}.info"),
        placeholder=_text(entry.get("placeholder"), f"{where}.placeholder"),
        options=_options(entry["options"], f"{where}.options") if "options" in entry else _EMPTY,
    )


def _table(value: Any, where: str) -> LanguageTable:
    entry = _object(value, where, TABLE_KEYS)
    groups: dict[str, str] = {}
    for group, text in _object(entry.get("groups", {}), f"{where}.groups").items():
        translated = _text(text, f"{where}.groups.{group}")
        if translated is not None:
            groups[group] = translated
    fields = {
        key: _field(raw, f"{where}.fields.{key}")
        for key, raw in _object(entry.get("fields", {}), f"{where}.fields").items()
    }
    return LanguageTable(
        label=_text(entry.get("label"), f"{where}.label"),
        description=_text(entry.get("description"), f"{where}.description"),
        groups=MappingProxyType(groups),
        fields=MappingProxyType(fields),
    )


def parse_translations(data: str | bytes) -> ProviderTranslations:
    """Parse and check the text of a translations file. Raises :class:`TranslationsError`."""
    if isinstance(data, bytes):
        if len(data) > MAX_FILE_BYTES:
            raise TranslationsError(f"the file is larger than {MAX_FILE_BYTES // 1024} KB")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise TranslationsError(f"not UTF-8 text (byte {exc.start})") from None
    elif len(data.encode("utf-8")) > MAX_FILE_BYTES:
        raise TranslationsError(f"the file is larger than {MAX_FILE_BYTES // 1024} KB")
    try:
        raw = json.loads(data, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise TranslationsError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise TranslationsError("nested too deeply") from None
    top = _object(raw, "")
    if len(top) > MAX_LANGUAGES:
        raise TranslationsError(f"more than {MAX_LANGUAGES} languages")
    languages: dict[str, LanguageTable] = {}
    for code, table in top.items():
        if not LANGUAGE_RE.fullmatch(code):
            raise TranslationsError(f"{code!r} is not a language code such as 'zh-hans' or 'de'")
        key = normalise_language(code)
        if key in languages:
            raise TranslationsError(f"the language {code!r} appears twice")
        languages[key] = _table(table, code)
    return ProviderTranslations(languages=MappingProxyType(languages))


def read_translations(directory: Path) -> ProviderTranslations | None:
    """The translations shipped in ``directory``, or None when it has no translations file.

    Raises :class:`TranslationsError` when the file exists but cannot be used.
    """
    path = translations_path(directory)
    try:
        # O_NONBLOCK: a FIFO planted under the name must not hang the panel.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise TranslationsError(f"cannot be read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise TranslationsError("is not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise TranslationsError(f"the file is larger than {MAX_FILE_BYTES // 1024} KB")
        data = handle.read(MAX_FILE_BYTES + 1)
    return parse_translations(data)


@dataclass(frozen=True)
class LoadedTranslations:
    """What :func:`load_translations` found: the translations or the reason they are unusable."""

    translations: ProviderTranslations | None
    error: TranslationsError | None = None


_cache: dict[str, tuple[tuple[int, int, int], LoadedTranslations]] = {}
_cache_lock = threading.Lock()
_NONE = LoadedTranslations(None)


def load_translations(directory: Path | None) -> LoadedTranslations:
    """Like :func:`read_translations` but never raises, cached on the file's (inode, mtime, size)."""
    if directory is None:
        return _NONE
    path = translations_path(directory)
    try:
        info = path.stat()
    except OSError:
        return _NONE
    signature = (info.st_ino, info.st_mtime_ns, info.st_size)
    key = str(path)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None and cached[0] == signature:
        return cached[1]
    try:
        result = LoadedTranslations(read_translations(Path(directory)))
    except TranslationsError as exc:
        result = LoadedTranslations(None, exc)
    with _cache_lock:
        _cache[key] = (signature, result)
    return result


def translation_problems(translations: ProviderTranslations, schema: ProviderConfigSchema) -> list[str]:
    """Keys of a translations file that match nothing in ``schema`` (likely typos), as messages."""
    keys = {f.key: f for f in schema.fields}
    groups = {f.group for f in schema.fields if f.group}
    problems: list[str] = []
    for code, table in translations.languages.items():
        problems += [f"{code}: no group named {g!r} in the schema" for g in table.groups if g not in groups]
        for key, text in table.fields.items():
            declared = keys.get(key)
            if declared is None:
                problems.append(f"{code}: no field {key!r} in the schema")
                continue
            values = declared.allowed_values()
            problems += [
                f"{code}: field {key!r} has no option {value!r}" for value in text.options if value not in values
            ]
    return problems
