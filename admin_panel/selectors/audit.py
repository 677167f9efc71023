"""Reads for the audit page: filtering, display rows of one entry, exports.

An entry's ``details`` were written by the service that made the change (shapes in
``admin_panel.services.audit``). Nothing here can reveal a secret value: none was ever recorded,
and rows for secrets only say what happened (set / replaced / cleared) and where.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from admin_panel.models import AuditEntry

PAGE_SIZE = 50

KIND_LABELS = {
    AuditEntry.Kind.PROVIDER_SETTINGS: _("Provider settings"),
    AuditEntry.Kind.ACTIVATION: _("Activation"),
    AuditEntry.Kind.MEMORY_SETTINGS: _("Memory settings"),
    AuditEntry.Kind.MEMORY_ENTRY: _("Memory entry"),
    AuditEntry.Kind.APPROVAL: _("Pending write"),
    AuditEntry.Kind.REVERT: _("Revert"),
}
CHANNEL_LABELS = {
    AuditEntry.Channel.PANEL: _("Panel"),
    AuditEntry.Channel.API: _("API"),
    AuditEntry.Channel.COMMAND: _("Command"),
}
SECRET_WORDS = {"set": _("set"), "replaced": _("replaced"), "cleared": _("cleared")}
STORE_LABELS = {"env_file": _(".env file"), ".env": _(".env file"), "keyring": _("OS keyring")}
# Kinds whose entries carry per-key provider-setting changes a revert can undo.
REVERTIBLE_KINDS = (AuditEntry.Kind.PROVIDER_SETTINGS, AuditEntry.Kind.REVERT)
# The pseudo user filter value for changes made by management commands (no user).
NO_USER = "-"

EXPORT_FIELDS = ("id", "created_at", "user", "channel", "home", "kind", "provider", "summary", "details")
# Spreadsheet programs run cells starting with these as formulas (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class AuditFilters:
    provider: str = ""
    kind: str = ""
    user: str = ""

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> AuditFilters:
        """Filters from GET parameters; values that cannot match anything are dropped, not errors."""
        provider = str(query.get("provider", "")).strip()[:64]
        kind = str(query.get("kind", "")).strip()
        user = str(query.get("user", "")).strip()[:150]
        if kind not in AuditEntry.Kind.values:
            kind = ""
        return cls(provider=provider, kind=kind, user=user)

    @property
    def active(self) -> bool:
        return bool(self.provider or self.kind or self.user)

    def as_query(self) -> dict[str, str]:
        return {k: v for k, v in (("provider", self.provider), ("kind", self.kind), ("user", self.user)) if v}


def filtered_entries(*, filters: AuditFilters) -> QuerySet[AuditEntry]:
    entries = AuditEntry.objects.all()
    if filters.provider:
        entries = entries.filter(provider=filters.provider)
    if filters.kind:
        entries = entries.filter(kind=filters.kind)
    if filters.user == NO_USER:
        entries = entries.filter(username="")
    elif filters.user:
        entries = entries.filter(username=filters.user)
    return entries.order_by("-created_at", "-pk")


@dataclass(frozen=True)
class FilterChoices:
    providers: list[str]
    kinds: list[tuple[str, Any]]
    users: list[tuple[str, Any]]


def filter_choices() -> FilterChoices:
    providers = sorted(
        p for p in AuditEntry.objects.exclude(provider="").values_list("provider", flat=True).distinct() if p
    )
    names = set(AuditEntry.objects.values_list("username", flat=True).distinct())
    users: list[tuple[str, Any]] = [(n, n) for n in sorted(n for n in names if n)]
    if "" in names:
        users.append((NO_USER, _("(management command)")))
    kinds = [(value, KIND_LABELS.get(value, value)) for value in AuditEntry.Kind.values]
    return FilterChoices(providers=providers, kinds=kinds, users=users)


def kind_label(kind: str) -> Any:
    return KIND_LABELS.get(kind, kind)


def channel_label(channel: str) -> Any:
    return CHANNEL_LABELS.get(channel, channel)


# --- one entry ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangeRow:
    """One line of an entry's detail table."""

    key: str
    location: str
    old: str | None
    new: str | None
    secret: Any = None  # translated "set"/"replaced"/"cleared" for secrets, else None
    store: Any = None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def change_rows(entry: AuditEntry) -> list[ChangeRow]:
    """Per-key rows for the kinds that record changes (provider settings, memory settings, revert)."""
    details = entry.details if isinstance(entry.details, dict) else {}
    changes = details.get("changes")
    rows: list[ChangeRow] = []
    if not isinstance(changes, list):
        return rows
    for change in changes:
        if not isinstance(change, dict):
            continue
        key = str(change.get("key", ""))
        if "secret" in change:
            word = str(change.get("secret", ""))
            store = str(change.get("store", ""))
            rows.append(
                ChangeRow(key=key, location="", old=None, new=None,
                          secret=SECRET_WORDS.get(word, word), store=STORE_LABELS.get(store, store))
            )
        else:
            rows.append(
                ChangeRow(key=key, location=str(change.get("location") or ""),
                          old=_text(change.get("old")), new=_text(change.get("new")))
            )
    return rows


@dataclass(frozen=True)
class Fact:
    """One labelled item of an entry's details: ``texts`` holds one or more (multi-line) values."""

    label: Any
    texts: list[str]
    block: bool = False  # memory text: shown as preformatted text, not inline


FACT_LABELS = {
    "action": _("Action"),
    "target": _("Store"),
    "content": _("Content"),
    "old_content": _("Previous content"),
    "reason": _("Reason"),
    "pending_id": _("Pending write"),
    "summary": _("Pending summary"),
    "result": _("Result"),
    "written": _("Files written"),
    "secrets_not_reverted": _("Secrets not reverted"),
    "not_restored": _("Legacy keys not restored"),
}
BLOCK_FACTS = ("content", "old_content", "summary")
# Shown elsewhere on the detail page (the change table, the activation line, the revert link).
OWN_SECTIONS = ("changes", "old", "new", "reverted_entry")


def _texts(value: Any) -> list[str]:
    if isinstance(value, list):
        return [t for t in (_text(v) for v in value) if t is not None]
    text = _text(value)
    return [] if text is None else [text]


def detail_facts(entry: AuditEntry) -> list[Fact]:
    """The entry's details other than per-key changes, in a stable order, labelled."""
    details = entry.details if isinstance(entry.details, dict) else {}
    facts: list[Fact] = []
    known = [k for k in FACT_LABELS if k in details]
    unknown = sorted(k for k in details if k not in FACT_LABELS and k not in OWN_SECTIONS)
    for key in known + unknown:
        texts = _texts(details[key])
        if not texts:
            continue
        facts.append(Fact(label=FACT_LABELS.get(key, key), texts=texts, block=key in BLOCK_FACTS))
    return facts


def activation_change(entry: AuditEntry) -> tuple[str, str] | None:
    """(old, new) provider names of an activation entry ("" = built-in memory only)."""
    details = entry.details if isinstance(entry.details, dict) else {}
    if entry.kind != AuditEntry.Kind.ACTIVATION or "new" not in details:
        return None
    return str(details.get("old") or ""), str(details.get("new") or "")


def reverted_entry(entry: AuditEntry) -> AuditEntry | None:
    """For a revert entry: the entry it undid."""
    details = entry.details if isinstance(entry.details, dict) else {}
    pk = details.get("reverted_entry")
    if entry.kind != AuditEntry.Kind.REVERT or not isinstance(pk, int):
        return None
    return AuditEntry.objects.filter(pk=pk).first()


def reverted_by(entry: AuditEntry) -> AuditEntry | None:
    """The revert entry that undid ``entry``, if any."""
    return (
        AuditEntry.objects.filter(
            kind=AuditEntry.Kind.REVERT, provider=entry.provider, details__reverted_entry=entry.pk
        )
        .order_by("created_at", "pk")
        .first()
    )


def has_revertible_changes(entry: AuditEntry) -> bool:
    if entry.kind not in REVERTIBLE_KINDS or not entry.provider:
        return False
    return any(row.secret is None and row.old != row.new for row in change_rows(entry))


def has_secret_changes(entry: AuditEntry) -> bool:
    return any(row.secret is not None for row in change_rows(entry))


# --- exports --------------------------------------------------------------------------------------


def export_record(entry: AuditEntry) -> dict[str, Any]:
    return {
        "id": entry.pk,
        "created_at": entry.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "user": entry.username,
        "channel": entry.channel,
        "home": entry.home,
        "kind": entry.kind,
        "provider": entry.provider,
        "summary": entry.summary,
        "details": entry.details,
    }


def jsonl_lines(entries: Iterable[AuditEntry]) -> Iterator[str]:
    for entry in entries:
        yield json.dumps(export_record(entry), ensure_ascii=False, sort_keys=False) + "\n"


def csv_safe(text: str) -> str:
    """A cell a spreadsheet shows as text: formula-looking values get a leading quote."""
    if text.startswith(FORMULA_STARTS):
        return "'" + text
    return text


def _csv_line(cells: Iterable[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow([csv_safe(c) for c in cells])
    return buffer.getvalue()


def csv_lines(entries: Iterable[AuditEntry]) -> Iterator[str]:
    yield _csv_line(EXPORT_FIELDS)
    for entry in entries:
        record = export_record(entry)
        record["details"] = json.dumps(record["details"], ensure_ascii=False, sort_keys=True)
        yield _csv_line(str(record[name]) for name in EXPORT_FIELDS)
