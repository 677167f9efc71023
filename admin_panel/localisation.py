"""Texts that come from outside the templates, in the reader's language.

Three sources, in this order, for a provider's labels, descriptions, info texts, placeholders and
option texts: the provider's own ``translations.json`` (``provider_schemas.translations``), then
the panel's gettext catalog (the bundled providers' texts are listed in
``admin_panel/i18n_strings.py``), then the original text. The threat scanner's plain-language
explanations are English constants in ``memory_core``; they are translated here through the same
catalog. Nothing in this module changes a key, a value or anything that is saved.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_noop

from provider_schemas.config_schema import ProviderConfigSchema, ProviderField, ProviderFieldOption
from provider_schemas.translations import FieldText, LanguageTable, load_translations


def active_language() -> str:
    return translation.get_language() or settings.LANGUAGE_CODE


def translate(text: str | None) -> str:
    """``text`` through the catalog; an empty text stays empty (gettext("") is the catalog header)."""
    if not text:
        return text or ""
    return translation.gettext(text)


def provider_table(directory: Path | None, language: str | None = None) -> LanguageTable | None:
    """The provider's own table for the active (or given) language, if it ships a usable one."""
    loaded = load_translations(directory)
    if loaded.translations is None:
        return None
    return loaded.translations.for_language(language or active_language())


def _pick(own: str | None, original: str) -> str:
    return own if own else translate(original)


def localise_option(option: ProviderFieldOption, text: FieldText | None) -> ProviderFieldOption:
    own = text.options.get(option.value) if text is not None else None
    return dataclasses.replace(
        option,
        label=_pick(own.label if own else None, option.label),
        description=_pick(own.description if own else None, option.description),
    )


def localise_field(field: ProviderField, table: LanguageTable | None) -> ProviderField:
    """A copy of ``field`` whose visible texts are in the reader's language (key, kind, values kept)."""
    text = table.fields.get(field.key) if table is not None else None
    group = field.group
    if group:
        group = (table.groups.get(group) if table is not None else None) or translate(group)
    return dataclasses.replace(
        field,
        label=_pick(text.label if text else None, field.label),
        description=_pick(text.description if text else None, field.description),
        info=_pick(text.info if text else None, field.info),
        placeholder=_pick(text.placeholder if text else None, field.placeholder),
        group=group,
        options=tuple(localise_option(option, text) for option in field.options),
    )


def localise_schema(schema: ProviderConfigSchema, directory: Path | None) -> ProviderConfigSchema:
    table = provider_table(directory)
    return dataclasses.replace(
        schema,
        label=_pick(table.label if table else None, schema.label),
        fields=tuple(localise_field(f, table) for f in schema.fields),
    )


def _localise_option_dicts(
    options: Iterable[Mapping[str, Any]], original: ProviderField, localised: ProviderField
) -> list[dict[str, Any]]:
    by_value = {o.value: o for o in localised.options}
    declared = {o.value for o in original.options}
    out = []
    for option in options:
        copy = dict(option)
        match = by_value.get(copy.get("value")) if copy.get("value") in declared else None
        if match is not None:
            copy["label"], copy["description"] = match.label, match.description
        else:
            # A stored value the schema does not offer: its label is the value itself.
            copy["description"] = translate(copy.get("description", ""))
        out.append(copy)
    return out


def localise_field_state(state: Any, table: LanguageTable | None) -> Any:
    """A copy of a ``provider_schemas.state.FieldState`` with its texts in the reader's language."""
    original: ProviderField = state.field
    localised = localise_field(original, table)
    # The state's placeholder may be computed per home (a honcho host name); only the declared
    # one is a text to translate.
    placeholder = localised.placeholder if state.placeholder == original.placeholder else state.placeholder
    changes: dict[str, Any] = {
        "field": localised,
        "placeholder": placeholder,
        "options": _localise_option_dicts(state.options, original, localised),
    }
    if getattr(state, "read_only_reason", None):
        changes["read_only_reason"] = translate(state.read_only_reason)
    return dataclasses.replace(state, **changes)


def localise_provider_state(state: Any) -> Any:
    """A copy of a ``provider_schemas.state.ProviderState`` for display in the reader's language.

    Only texts change: keys, values, sources, visibility and the fingerprint are the same, so the
    copy can also be handed to the save path.
    """
    directory = getattr(state.entry, "directory", None)
    table = provider_table(directory)
    changes: dict[str, Any] = {"fields": [localise_field_state(s, table) for s in state.fields]}
    if state.schema is not None:
        changes["schema"] = dataclasses.replace(
            state.schema,
            label=_pick(table.label if table else None, state.schema.label),
            fields=tuple(s.field for s in changes["fields"]),
        )
    changes["entry"] = localise_entry(state.entry, table=table)
    labels = {s.key: s.label for s in changes["fields"]}
    changes["missing_secrets"] = localise_missing_secrets(state.missing_secrets, labels)
    return dataclasses.replace(state, **changes)


def localise_missing_secrets(
    missing: Iterable[Mapping[str, Any]], labels: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """``missing_secrets`` rows (api.md shape) with each ``label`` in the reader's language."""
    labels = labels or {}
    out = []
    for row in missing:
        copy = dict(row)
        copy["label"] = labels.get(copy.get("key", "")) or translate(copy.get("label", ""))
        out.append(copy)
    return out


def localise_entry(entry: Any, *, table: LanguageTable | None = None) -> Any:
    """A copy of a ``provider_schemas.discovery.ProviderEntry`` with label and description translated."""
    if table is None:
        table = provider_table(getattr(entry, "directory", None))
    label = _pick(table.label if table else None, entry.label)
    description = _pick(table.description if table else None, entry.description)
    return dataclasses.replace(entry, label=label, description=description)


def localise_provider_row(row: Mapping[str, Any], *, directory: Path | None) -> dict[str, Any]:
    """A providers-list row (api.md B3 shape) with ``label``, ``description`` and the labels of
    ``missing_secrets`` for display."""
    table = provider_table(directory)
    out = dict(row)
    out["label"] = _pick(table.label if table else None, row.get("label") or "")
    out["description"] = _pick(table.description if table else None, row.get("description") or "")
    if row.get("missing_secrets"):
        own = {key: text.label for key, text in table.fields.items() if text.label} if table else {}
        out["missing_secrets"] = localise_missing_secrets(row["missing_secrets"], own)
    return out


def provider_directory(*, home: Path, name: str, origin: str | None) -> Path | None:
    """Where a provider's files (and its translations.json) live, from its listing row."""
    from provider_schemas.discovery import PACKAGE_DIR

    if origin == "bundled":
        return PACKAGE_DIR / name
    if origin == "user":
        return Path(home) / "plugins" / name
    return None


def localise_overview(overview: Any, *, home: Path) -> Any:
    """A copy of ``admin_panel.selectors.providers.ProvidersOverview`` for display."""
    cards = []
    active_label = overview.active_label
    for card in overview.cards:
        row = card.row
        directory = provider_directory(home=home, name=row.get("name", ""), origin=row.get("origin"))
        localised = localise_provider_row(row, directory=directory)
        if row.get("name") == overview.active and row.get("label") == overview.active_label:
            active_label = localised["label"]
        cards.append(dataclasses.replace(card, row=localised))
    return dataclasses.replace(overview, cards=cards, active_label=active_label)


# --- the threat scanner's findings ---------------------------------------------------------------


def finding_explanation(finding: Any) -> str:
    """The plain-language explanation of a ``memory_core.threats.ThreatFinding``, translated."""
    return translate(finding.explanation)


def finding_category(finding: Any) -> str:
    return translate(finding.category_label)


# --- messages written by the engines --------------------------------------------------------------

# provider_schemas writes its messages in English with values inside (a key, a file name). Each
# template below is the engine's wording with %(name)s for the variable parts: an engine message
# that matches one is shown through the catalog with the same values; any other text is shown as
# it is. Most specific first.
MESSAGE_TEMPLATES = (
    # values.coerce / planning (field errors)
    gettext_noop("'%(key)s' must not contain line breaks or NUL characters"),
    gettext_noop("Invalid boolean for '%(key)s'"),
    gettext_noop("Invalid value for '%(key)s'"),
    gettext_noop("Invalid number for '%(key)s'"),
    gettext_noop("Invalid JSON for '%(key)s'"),
    gettext_noop("'%(key)s' must be a JSON object or array"),
    gettext_noop("'%(key)s' cannot be both set and cleared"),
    gettext_noop("'%(key)s' has no env_key; the panel cannot store it"),
    gettext_noop("%(variable)s in .env is not a valid value for %(key)s; not copied."),
    # conflicts and storage
    gettext_noop("Changed elsewhere since the form was loaded: %(changes)s"),
    gettext_noop("%(item)s changed since the form was loaded"),
    gettext_noop("Cannot save: %(file)s is not valid %(format)s (%(problem)s). Fix or remove the file first."),
    gettext_noop("%(file)s is not valid %(format)s (%(problem)s). Fix or remove the file first."),
    gettext_noop("Secret store unavailable: %(reason)s"),
    gettext_noop("Memory provider '%(name)s' is not ready (%(status)s). Configure it in the dashboard first."),
    # notices of provider_schemas.state and traps
    gettext_noop(
        "Stored as the text %(value)s, not a boolean; the plugin may read any non-empty text as true. "
        "Saving this field writes a real boolean."
    ),
    gettext_noop(".env %(variable)s overrides the stored value %(value)s."),
    gettext_noop("Read from the root of %(file)s (shared by every host); saving writes the host block."),
    gettext_noop("%(where)s holds an OAuth access token; it takes precedence and the panel never changes it."),
    gettext_noop(
        "%(where)s holds this secret and is read before the secret stores; saving a new value removes it from there."
    ),
    gettext_noop("%(variable)s is set in both .env and the keyring; the agent uses the .env value."),
    gettext_noop("Set through %(fallback)s, not %(variable)s."),
    gettext_noop(".env starts with a byte-order mark, which corrupts its first variable for the agent."),
    gettext_noop("%(file)s starts with a byte-order mark; saving removes it."),
    gettext_noop("The keyring cannot be read (%(problem)s); secrets stored there show as not set."),
    gettext_noop(".env is not valid UTF-8 text (%(problem)s); saves that change it are refused."),
    gettext_noop("%(entry)s is skipped by the plugin: %(problem)s."),
    gettext_noop(
        "Saving creates %(file)s; from then on %(legacy)s is ignored by the plugin. "
        "Its settings are copied into the new file."
    ),
    gettext_noop(
        "Saving creates %(file)s; the current values of %(variables)s from .env are copied into it, "
        "and later changes to those variables are ignored."
    ),
    gettext_noop("%(file)s key %(key)s is ignored by the plugin."),
    gettext_noop("%(file)s %(where)s is ignored by the plugin; it reads %(variable)s from .env."),
    gettext_noop("config.yaml memory.%(provider)s.%(key)s is ignored by the plugin; it reads .env only."),
    gettext_noop(
        "%(file)s has legacy banks.* settings; the plugin still reads banks.hermes.bankId and "
        "banks.hermes.budget when bank_id / recall_budget are not set. They cannot be edited here."
    ),
    gettext_noop("Settings are stored in %(file)s, shared by every profile and by other apps that use Honcho."),
    gettext_noop("OpenViking stays unavailable until Endpoint is set or the CLI profile is enabled."),
    gettext_noop("The CLI profile file %(file)s does not parse (%(problem)s); the agent fails to start it."),
    gettext_noop("%(file)s sets enabled: false in the %(where)s; Honcho is off."),
    gettext_noop("Settings are stored in %(file)s, the default profile's file."),
    gettext_noop("The CLI profile file %(file)s does not exist."),
    # memory_core's refusals (the texts the agent's memory tool returns), shown by the memory pages
    gettext_noop(
        "Memory at %(current)s/%(limit)s chars. Adding this entry (%(length)s chars) would exceed the limit. "
        "Consolidate now: use 'replace' to merge overlapping entries into shorter ones or 'remove' stale or "
        "less important entries (see current_entries below), then retry this add — all in this turn."
    ),
    gettext_noop(
        "Replacement would put memory at %(total)s/%(limit)s chars. Shorten the new content, or 'remove' other "
        "stale or less important entries to make room (see current_entries below), then retry — all in this turn."
    ),
    gettext_noop("Blocked: content contains invisible unicode character %(code)s (possible injection)."),
    gettext_noop(
        "Blocked: content matches threat pattern '%(pattern)s'. Content is injected into the system prompt "
        "and must not contain injection or exfiltration payloads."
    ),
    gettext_noop("Content cannot be empty."),
    gettext_noop("Content cannot contain NUL characters (U+0000). Remove them and retry."),
    gettext_noop("new_content cannot be empty. Use 'remove' to delete entries."),
    gettext_noop("Entry already exists (no duplicate added)."),
    gettext_noop(
        "Refusing to write %(file)s: the file exists but could not be read (%(reason)s). It was left "
        "unchanged; fix its permissions or encoding, or move it aside, then retry."
    ),
    gettext_noop("Refusing to write %(file)s: cannot open lock file %(file)s.lock (%(reason)s)."),
    gettext_noop(
        "Refusing to write %(file)s: file on disk has content that wouldn't round-trip through the memory "
        "tool (likely added by the patch tool, a shell append, a manual edit, or a concurrent session). A "
        "snapshot was saved to %(backup)s. Resolve the drift first — either rewrite the file as a clean "
        "§-delimited list of entries, or move the extra content out — then retry. This guard exists to "
        "prevent silent data loss (issue #26045)."
    ),
    gettext_noop(
        "No entry matched '%(text)s'. Check current_entries below and retry with the exact text of the "
        "entry you want to %(verb)s."
    ),
    gettext_noop("Multiple entries matched '%(text)s'. Be more specific."),
    gettext_noop(
        "Content is not valid Unicode text (it contains a lone surrogate code point). Remove it and retry."
    ),
    gettext_noop("Invalid target '%(target)s'. Use 'memory' or 'user'."),
    gettext_noop("No entries selected."),
    gettext_noop("old_content cannot be empty."),
    gettext_noop(
        "Nothing was replaced: the entry is no longer in the file exactly as it was read (changed or "
        "removed meanwhile). Reload and retry."
    ),
    gettext_noop("Nothing was rewritten: %(file)s changed since it was read. Reload it and check again."),
    gettext_noop("Nothing was rewritten: %(file)s has no drift to resolve."),
    gettext_noop(
        "Nothing was rewritten: one entry of %(file)s is %(longest)s characters long, more than the limit of "
        "%(limit)s, and rewriting cannot shorten it. Move text out of it by hand (with a § separator between "
        "entries), then retry."
    ),
    gettext_noop("Nothing was rewritten: %(file)s could not be backed up first (%(backup)s)."),
    gettext_noop("Rewrote %(file)s as its %(count)s entry; the previous text was saved to %(backup)s."),
    gettext_noop("Rewrote %(file)s as its %(count)s entries; the previous text was saved to %(backup)s."),
    gettext_noop(
        "Nothing was deleted: %(count)s selected entry is no longer in the file (changed or removed "
        "meanwhile). Reload and select again."
    ),
    gettext_noop(
        "Nothing was deleted: %(count)s selected entries are no longer in the file (changed or removed "
        "meanwhile). Reload and select again."
    ),
    gettext_noop("Deleted %(count)s entry."),
    gettext_noop("Deleted %(count)s entries."),
    gettext_noop("The form is out of date; reload it."),
    gettext_noop("The storage file"),
    # json.JSONDecodeError.msg, shown with the line and column of a JSON field's error
    gettext_noop("Expecting value"),
    gettext_noop("Expecting property name enclosed in double quotes"),
    gettext_noop("Expecting ',' delimiter"),
    gettext_noop("Expecting ':' delimiter"),
    gettext_noop("Extra data"),
    gettext_noop("Unterminated string starting at"),
    gettext_noop("Invalid control character at"),
    gettext_noop("Invalid \\escape"),
    gettext_noop("Invalid \\uXXXX escape"),
)

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = []
    position = 0
    seen: set[str] = set()
    for match in _PLACEHOLDER.finditer(template):
        name = match.group(1)
        parts.append(re.escape(template[position : match.start()]))
        # A value named twice must be the same text both times.
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        position = match.end()
    parts.append(re.escape(template[position:]))
    return re.compile("".join(parts), re.S)


@functools.cache
def _compiled_templates() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((t, _template_pattern(t)) for t in MESSAGE_TEMPLATES if "%(" in t)


def localise_message(text: str | None) -> str:
    """An engine's English message in the reader's language (unchanged when none fits)."""
    if not text:
        return text or ""
    text = str(text)
    translated = translation.gettext(text)
    if translated != text:
        return translated
    for template, pattern in _compiled_templates():
        match = pattern.fullmatch(text)
        if match is not None:
            return translation.gettext(template) % match.groupdict()
    return text
