"""Reads for the audit page: filtering, display rows of one entry, exports.

An entry's ``details`` were written by the service that made the change (shapes in
``admin_panel.services.audit``). Nothing here can reveal a secret value: none was ever recorded,
and rows for secrets only say what happened (set / replaced / cleared) and where.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from admin_panel.models import AuditEntry
from admin_panel.permissions import ROLE_LABELS
from admin_panel.selectors.sessions import secret_masker

PAGE_SIZE = 50

# The models' choice labels are lazy translations: one source for the filters and the rows.
KIND_LABELS = dict(AuditEntry.Kind.choices)
CHANNEL_LABELS = dict(AuditEntry.Channel.choices)
SECRET_WORDS = {"set": _("set"), "replaced": _("replaced"), "cleared": _("cleared")}
STORE_LABELS = {"env_file": _(".env file"), ".env": _(".env file"), "keyring": _("OS keyring")}
# Kinds whose entries carry per-key setting changes a revert can undo (provider settings, the
# memory settings, and reverts of either).
REVERTIBLE_KINDS = (AuditEntry.Kind.PROVIDER_SETTINGS, AuditEntry.Kind.MEMORY_SETTINGS, AuditEntry.Kind.REVERT)
# ``details["section"]`` of a revert of a memory-settings change (a provider revert names its provider).
MEMORY_SECTION = "memory"
# The pseudo user filter value for changes made by management commands (no user).
NO_USER = "-"

EXPORT_FIELDS = ("id", "created_at", "user", "channel", "home", "profile", "kind", "provider", "summary", "details")
# The audit page's query parameter for its profile filter.
PROFILE_FILTER = "of_profile"
# Spreadsheet programs run cells starting with these as formulas (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class AuditFilters:
    provider: str = ""
    kind: str = ""
    user: str = ""
    profile: str = ""

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> AuditFilters:
        """Filters from GET parameters; values that cannot match anything are dropped, not errors."""
        provider = str(query.get("provider", "")).strip()[:64]
        kind = str(query.get("kind", "")).strip()
        user = str(query.get("user", "")).strip()[:150]
        # Not ``profile``: that parameter chooses the profile a page works on (profile_choice).
        profile = str(query.get(PROFILE_FILTER, "")).strip()[:64]
        if kind not in AuditEntry.Kind.values:
            kind = ""
        return cls(provider=provider, kind=kind, user=user, profile=profile)

    @property
    def active(self) -> bool:
        return bool(self.provider or self.kind or self.user or self.profile)


def filtered_entries(*, filters: AuditFilters) -> QuerySet[AuditEntry]:
    entries = AuditEntry.objects.all()
    if filters.provider:
        entries = entries.filter(provider=filters.provider)
    if filters.kind:
        entries = entries.filter(kind=filters.kind)
    if filters.profile:
        entries = entries.filter(profile=filters.profile)
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
    profiles: list[str]


def filter_choices() -> FilterChoices:
    providers = sorted(
        p for p in AuditEntry.objects.exclude(provider="").values_list("provider", flat=True).distinct() if p
    )
    names = set(AuditEntry.objects.values_list("username", flat=True).distinct())
    users: list[tuple[str, Any]] = [(n, n) for n in sorted(n for n in names if n)]
    if "" in names:
        users.append((NO_USER, _("(management command)")))
    kinds = [(value, KIND_LABELS.get(value, value)) for value in AuditEntry.Kind.values]
    profiles = sorted(p for p in AuditEntry.objects.values_list("profile", flat=True).distinct() if p)
    return FilterChoices(providers=providers, kinds=kinds, users=users, profiles=profiles)


def kind_label(kind: str) -> Any:
    return KIND_LABELS.get(kind, kind)


def channel_label(channel: str) -> Any:
    return CHANNEL_LABELS.get(channel, channel)


# --- the summary, in the reader's language ----------------------------------------------------------

FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}


class _Unreadable(Exception):
    """The details do not have the shape this kind is worded from."""


def _str(details: Mapping[str, Any], key: str, *, allow_empty: bool = False) -> str:
    value = details.get(key)
    if not isinstance(value, str) or (not value and not allow_empty):
        raise _Unreadable(key)
    return value


def _keys(details: Mapping[str, Any]) -> str:
    changes = details.get("changes")
    if not isinstance(changes, list) or not all(isinstance(c, dict) and "key" in c for c in changes):
        raise _Unreadable("changes")
    return ", ".join(str(c["key"]) for c in changes)


def _file(details: Mapping[str, Any]) -> str:
    target = details.get("target")
    if target not in FILE_NAMES:
        raise _Unreadable("target")
    return FILE_NAMES[target]


def _count(details: Mapping[str, Any]) -> int:
    content = details.get("content")
    if isinstance(content, list):
        return len(content)
    if isinstance(content, str):
        return 1
    raise _Unreadable("content")


def _restore_reason(details: Mapping[str, Any]) -> str:
    """``undo`` (the undo of a delete) or ``backup <file name>`` (added back from that backup)."""
    reason = details.get("reason")
    if reason == "undo":
        return gettext("undo")
    if isinstance(reason, str) and reason.startswith("backup ") and reason[7:]:
        return gettext("from the backup %(name)s") % {"name": reason[7:]}
    raise _Unreadable("reason")


def _store(name: str) -> str:
    return str(STORE_LABELS.get(name, name))


def _provider_settings(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    keys = _keys(details)
    if not entry.provider:
        raise _Unreadable("provider")
    if keys:
        return gettext("Saved %(provider)s settings: %(keys)s") % {"provider": entry.provider, "keys": keys}
    return gettext("Saved %(provider)s settings") % {"provider": entry.provider}


def _activation(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    old, new = _str(details, "old", allow_empty=True), _str(details, "new", allow_empty=True)
    if new and old:
        return gettext("Activated %(new)s (replacing %(old)s)") % {"new": new, "old": old}
    if new:
        return gettext("Activated %(new)s") % {"new": new}
    if old:
        return gettext("Deactivated %(old)s; built-in memory only") % {"old": old}
    raise _Unreadable("new")


def _memory_settings(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    return gettext("Memory settings: %(keys)s") % {"keys": _keys(details)}


def _memory_entry(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    action, file_name = details.get("action"), _file(details)
    if action == "add":
        return gettext("Added an entry to %(file)s") % {"file": file_name}
    if action == "edit":
        return gettext("Edited an entry of %(file)s") % {"file": file_name}
    if action == "merge":
        merged = len(_texts(details.get("old_content")))
        return ngettext("Merged %(count)d entry of %(file)s into one", "Merged %(count)d entries of %(file)s into one",
                        merged) % {"count": merged, "file": file_name}
    count = _count(details)
    if action == "delete":
        return ngettext("Deleted %(count)d entry from %(file)s", "Deleted %(count)d entries from %(file)s",
                        count) % {"count": count, "file": file_name}
    if action == "restore":
        return ngettext("Restored %(count)d entry to %(file)s (%(reason)s)",
                        "Restored %(count)d entries to %(file)s (%(reason)s)",
                        count) % {"count": count, "file": file_name, "reason": _restore_reason(details)}
    raise _Unreadable("action")


def _approval(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    pending_id = _str(details, "pending_id")
    action = details.get("action")
    if action == "approve" and details.get("result") == "applied":
        return gettext("Approved pending memory write %(id)s") % {"id": pending_id}
    if action == "approve":
        return gettext("Approval failed for pending memory write %(id)s") % {"id": pending_id}
    if action == "reject":
        return gettext("Rejected pending memory write %(id)s") % {"id": pending_id}
    raise _Unreadable("action")


def _revert(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    pk = details.get("reverted_entry")
    if isinstance(pk, int) and not entry.provider and details.get("section") == MEMORY_SECTION:
        return gettext("Reverted change #%(pk)s of the memory settings: %(keys)s") % {"pk": pk, "keys": _keys(details)}
    if not isinstance(pk, int) or not entry.provider:
        raise _Unreadable("reverted_entry")
    return gettext("Reverted change #%(pk)s of %(provider)s: %(keys)s") % {
        "pk": pk, "provider": entry.provider, "keys": _keys(details)}


def _secret_store(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    old, new = _str(details, "old"), _str(details, "new")
    moved = details.get("moved")
    if isinstance(moved, list) and all(isinstance(n, str) for n in moved):
        return gettext("Moved %(count)s stored secrets to the %(new)s: %(names)s") % {
            "count": len(moved), "new": _store(new), "names": ", ".join(moved) or "-"}
    if details.get("interrupted") is True:
        return gettext("Finished an interrupted move of every profile's stored secrets to the %(new)s") % {
            "new": _store(new)}
    return gettext("New secrets go to: %(new)s (before: %(old)s)") % {"new": _store(new), "old": _store(old)}


def _api_token(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    token_id, name = details.get("token_id"), _str(details, "name", allow_empty=True)
    if not isinstance(token_id, int):
        raise _Unreadable("token_id")
    if details.get("action") == "create":
        return gettext("Created API token #%(id)s (%(name)s) for %(user)s") % {
            "id": token_id, "name": name, "user": _str(details, "for_user")}
    if details.get("action") == "revoke":
        return gettext("Revoked API token #%(id)s (%(name)s)") % {"id": token_id, "name": name}
    raise _Unreadable("action")


def _account(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    name = {"name": _str(details, "account")}
    by_command = details.get("via") == "command"
    if details.get("action") == "create":
        if by_command:
            return gettext("Created the account %(name)s with a management command") % name
        return gettext("Created the first account, %(name)s, with the sign-in link") % name
    if details.get("action") == "password" and by_command:
        return gettext("Changed the password of %(name)s with a management command") % name
    if details.get("action") == "password":
        return gettext("%(name)s changed their password") % name
    ended = details.get("sessions_ended")
    if details.get("action") == "sign_out_others" and isinstance(ended, int):
        return ngettext("%(name)s signed out of %(count)d other session", "%(name)s signed out of %(count)d other "
                        "sessions", ended) % {**name, "count": ended}
    raise _Unreadable("action")


def _role_word(role: Any) -> str:
    if role == "":
        return gettext("no role")
    if role not in ROLE_LABELS:
        raise _Unreadable("role")
    return str(ROLE_LABELS[role])


def _link_id(details: Mapping[str, Any]) -> int:
    pk = details.get("link_id")
    if not isinstance(pk, int):
        raise _Unreadable("link_id")
    return pk


def _invitation(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    values = {"id": _link_id(details), "role": _role_word(details.get("role"))}
    if details.get("action") == "create":
        return gettext("Invited a new %(role)s (invitation #%(id)s)") % values
    if details.get("action") == "accept":
        return gettext("%(name)s accepted invitation #%(id)s as %(role)s") % {**values,
                                                                              "name": _str(details, "account")}
    if details.get("action") == "revoke":
        return gettext("Withdrew invitation #%(id)s (a new %(role)s)") % values
    raise _Unreadable("action")


def _role(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    return gettext("Changed the role of %(name)s from %(old)s to %(new)s") % {
        "name": _str(details, "account"), "old": _role_word(details.get("old")), "new": _role_word(details.get("new"))}


def _access(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    name = {"name": _str(details, "account")}
    if details.get("action") == "deactivate":
        return gettext("Deactivated the account %(name)s") % name
    if details.get("action") == "activate":
        return gettext("Reactivated the account %(name)s") % name
    raise _Unreadable("action")


def _reset_link(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    values = {"id": _link_id(details), "name": _str(details, "account")}
    if details.get("action") == "create":
        return gettext("Issued a password-reset link for %(name)s (link #%(id)s)") % values
    if details.get("action") == "use":
        return gettext("%(name)s set a new password with reset link #%(id)s") % values
    raise _Unreadable("action")


def _session_export(entry: AuditEntry, details: Mapping[str, Any]) -> str:
    fmt = {"markdown": "Markdown", "json": "JSON"}.get(_str(details, "format"))
    if fmt is None:
        raise _Unreadable("format")
    return gettext("Exported the session %(id)s as %(format)s") % {"id": _str(details, "session_id"), "format": fmt}


DESCRIBERS = {
    AuditEntry.Kind.PROVIDER_SETTINGS: _provider_settings,
    AuditEntry.Kind.ACTIVATION: _activation,
    AuditEntry.Kind.MEMORY_SETTINGS: _memory_settings,
    AuditEntry.Kind.MEMORY_ENTRY: _memory_entry,
    AuditEntry.Kind.APPROVAL: _approval,
    AuditEntry.Kind.REVERT: _revert,
    AuditEntry.Kind.SECRET_STORE: _secret_store,
    AuditEntry.Kind.API_TOKEN: _api_token,
    AuditEntry.Kind.ACCOUNT: _account,
    AuditEntry.Kind.SESSION_EXPORT: _session_export,
    AuditEntry.Kind.INVITATION: _invitation,
    AuditEntry.Kind.ROLE: _role,
    AuditEntry.Kind.ACCESS: _access,
    AuditEntry.Kind.RESET_LINK: _reset_link,
}


def describe(entry: AuditEntry) -> str:
    """What the entry did, worded in the active language from its kind and details; the stored
    English ``summary`` when the details are not in a shape this version knows."""
    describer = DESCRIBERS.get(entry.kind)
    details = entry.details
    if describer is None or not isinstance(details, dict):
        return entry.summary
    try:
        return describer(entry, details)
    except _Unreadable:
        return entry.summary


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
    "moved": _("Moved secrets"),
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
    "token_id": _("Token number"),
    "name": _("Token name"),
    "for_user": _("Acts as user"),
    "account": _("Account"),
    "staff": _("Staff"),
    "role": _("Role"),
    "link_id": _("Link number"),
    "sessions_ended": _("Sessions ended"),
    "via": _("Made with"),
}
# Recorded identifiers shown as words of the reader's language (anything else is shown as recorded).
VALUE_WORDS = {
    "action": {"add": _("add"), "edit": _("edit"), "delete": _("delete"), "restore": _("restore"),
               "merge": _("merge"), "approve": _("approve"), "reject": _("reject"), "create": _("create"),
               "revoke": _("revoke"),
               "accept": _("accept"), "use": _("use"), "deactivate": _("deactivate"), "activate": _("activate"),
               "password": _("password change"), "sign_out_others": _("sign out of other sessions")},
    "role": {"admin": _("Admin"), "viewer": _("Viewer")},
    "via": {"command": _("a management command")},
    "target": {"memory": "MEMORY.md", "user": "USER.md"},
    "result": {"applied": _("applied"), "rejected": _("rejected")},
    "staff": {True: _("yes"), False: _("no")},
}
BLOCK_FACTS = ("content", "old_content", "summary")
# Shown elsewhere on the detail page (the change table, the activation line, the revert link).
OWN_SECTIONS = ("changes", "old", "new", "reverted_entry", "section")


def _texts(value: Any) -> list[str]:
    if isinstance(value, list):
        return [t for t in (_text(v) for v in value) if t is not None]
    text = _text(value)
    return [] if text is None else [text]


def masked_details(entry: AuditEntry) -> dict[str, Any]:
    """The entry's details with every stored secret's value of its home masked (memory entries
    and approvals carry entry text, which can hold one)."""
    details = entry.details if isinstance(entry.details, dict) else {}
    if not details:
        return details
    masker = secret_masker(home=Path(entry.home))
    return masker.mask_data(details) if masker else details


def detail_facts(entry: AuditEntry) -> list[Fact]:
    """The entry's details other than per-key changes, in a stable order, labelled."""
    details = masked_details(entry)
    facts: list[Fact] = []
    known = [k for k in FACT_LABELS if k in details]
    unknown = sorted(k for k in details if k not in FACT_LABELS and k not in OWN_SECTIONS)
    if entry.kind == AuditEntry.Kind.SECRET_STORE:
        # old/new of a store choice are shown here (for an activation they have their own section)
        for key, label in (("old", _("Before")), ("new", _("After"))):
            if isinstance(details.get(key), str):
                facts.append(Fact(label=label, texts=[_store(details[key])]))
    if entry.kind == AuditEntry.Kind.ROLE:
        for key, label in (("old", _("Before")), ("new", _("After"))):
            with contextlib.suppress(_Unreadable):
                facts.append(Fact(label=label, texts=[_role_word(details.get(key))]))
    for key in known + unknown:
        value = details[key]
        words = VALUE_WORDS.get(key, {})
        if isinstance(value, (str, bool)) and value in words:
            value = str(words[value])
        elif key == "reason" and entry.kind == AuditEntry.Kind.MEMORY_ENTRY:
            with contextlib.suppress(_Unreadable):
                value = _restore_reason(details)
        texts = _texts(value)
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


def is_memory_settings_change(entry: AuditEntry) -> bool:
    """A change of the ``memory:`` section of config.yaml: from the Settings page, or a revert of one."""
    if entry.kind == AuditEntry.Kind.MEMORY_SETTINGS:
        return True
    details = entry.details if isinstance(entry.details, dict) else {}
    return entry.kind == AuditEntry.Kind.REVERT and not entry.provider and details.get("section") == MEMORY_SECTION


def has_revertible_changes(entry: AuditEntry) -> bool:
    if entry.kind not in REVERTIBLE_KINDS or not (entry.provider or is_memory_settings_change(entry)):
        return False
    return any(row.secret is None and row.old != row.new for row in change_rows(entry))


def has_secret_changes(entry: AuditEntry) -> bool:
    return any(row.secret is not None for row in change_rows(entry))


# --- the list at a glance -------------------------------------------------------------------------

GLANCE_LENGTH = 40
NO_VALUE = "∅"


def shorten(text: str, length: int = GLANCE_LENGTH) -> str:
    """One line of at most ``length`` characters (an ellipsis says there was more)."""
    line = " ".join(text.split())
    return line if len(line) <= length else line[: length - 1].rstrip() + "…"


def glance(entry: AuditEntry) -> list[str]:
    """What changed, one short line per key, for the audit list: ``bank_id: acc-one → acc-two``,
    a secret as ``api_key: replaced``. Never a secret value: none was recorded."""
    lines = []
    for row in change_rows(entry):
        if row.secret is not None:
            lines.append(f"{row.key}: {row.secret}")
        else:
            lines.append(f"{row.key}: {shorten(row.old) if row.old is not None else NO_VALUE} → "
                         f"{shorten(row.new) if row.new is not None else NO_VALUE}")
    details = masked_details(entry)
    activation = activation_change(entry)
    if activation is not None:
        built_in = gettext("built-in memory only")
        lines.append(f"{activation[0] or built_in} → {activation[1] or built_in}")
    elif entry.kind == AuditEntry.Kind.SECRET_STORE and isinstance(details.get("old"), str):
        lines.append(f"{_store(details['old'])} → {_store(str(details.get('new', '')))}")
    elif entry.kind == AuditEntry.Kind.MEMORY_ENTRY:
        old, new = details.get("old_content"), details.get("content")
        if isinstance(old, str) and isinstance(new, str):
            lines.append(f"{shorten(old)} → {shorten(new)}")
        elif isinstance(new, str):
            lines.append(shorten(new))
    return lines


def revert_reachable(entry: AuditEntry) -> bool:
    """Whether the row offers the way to its revert (a change that has not been reverted yet)."""
    return has_revertible_changes(entry) and reverted_by(entry) is None


# --- exports --------------------------------------------------------------------------------------


def export_record(entry: AuditEntry) -> dict[str, Any]:
    return {
        "id": entry.pk,
        "created_at": entry.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "user": entry.username,
        "channel": entry.channel,
        "home": entry.home,
        "profile": entry.profile,
        "kind": entry.kind,
        "provider": entry.provider,
        "summary": secret_masker(home=Path(entry.home)).mask(entry.summary),
        "details": masked_details(entry),
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
