"""Writes to an external provider's own store (delete, undo, bulk clean-up), each audited.

The audit row never carries a secret: the fact's text is stored masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from admin_panel.models import AuditEntry
from admin_panel.selectors.provider_contents import secret_masker, source
from admin_panel.services.audit import record
from memory_core.external.base import ContentsError, Item, Removed, can_remove_text, can_replace_text

User = AbstractBaseUser | AnonymousUser


def _audit(*, user: User, home: Path, name: str, action: str, item: Item, summary: str) -> None:
    masked = secret_masker(home=home).mask(item.text)
    record(user=user, channel=AuditEntry.Channel.PANEL, home=home, kind=AuditEntry.Kind.MEMORY_ENTRY,
           provider=name, summary=summary,
           details={"action": action, "target": name, "item_id": item.id, "group": item.group, "content": masked})


def delete_item(*, home: Path, user: User, name: str, item_id: str, expected: str | None = None) -> Removed:
    store = source(home=home, name=name)
    if store is None:
        raise ContentsError("This provider's store cannot be changed here.", code="unreachable")
    removed = store.delete(item_id, expected=expected)
    _audit(user=user, home=home, name=name, action="delete", item=removed.item,
           summary=f"Deleted item {removed.item.id} from {name}")
    return removed


def restore_item(*, home: Path, user: User, name: str, undo: Mapping[str, Any]) -> Item:
    store = source(home=home, name=name)
    if store is None:
        raise ContentsError("This provider's store cannot be changed here.", code="unreachable")
    item = store.restore(undo)
    _audit(user=user, home=home, name=name, action="restore", item=item,
           summary=f"Restored item {item.id} in {name}")
    return item


@dataclass
class BulkOutcome:
    removed: list[Removed] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (item id, why)


def delete_items(*, home: Path, user: User, name: str, item_ids: list[str]) -> BulkOutcome:
    """Each item on its own: one that is gone or refused is reported and the rest still go."""
    store = source(home=home, name=name)
    if store is None:
        raise ContentsError("This provider's store cannot be changed here.", code="unreachable")
    removed, failed = store.delete_many(item_ids)
    for item in removed:
        _audit(user=user, home=home, name=name, action="delete", item=item.item,
               summary=f"Deleted item {item.item.id} from {name} (copies left behind)")
    return BulkOutcome(removed=removed, failed=[(item_id, exc.message) for item_id, exc in failed])


@dataclass
class CopyOutcome:
    copy: Any
    removed: bool  # done: deleted, or updated when ``action`` is "update"
    why: str = ""  # ContentsError code when not done
    action: str = "delete"
    # When done: what puts the copy back as it was (JSON, kept with the entry's undo offer); its
    # "undo" is None for a provider that cannot restore a deleted item.
    undo: dict[str, Any] | None = None


def _copy_undo(copy: Any, action: str, **rest: Any) -> dict[str, Any]:
    return {"provider": copy.provider, "item_id": copy.item_id, "label": copy.label, "action": action, **rest}


def remove_copies(*, home: Path, user: User, copies: list[Any], texts: list[str] | None = None) -> list[CopyOutcome]:
    """The copies of entries the panel just removed, each on its own: one that fails is reported
    (and stays in the left-behind list), the others still go. ``texts``: each copy's entry; a
    provider whose item may hold more than the entry (``RemovesText``) loses only that text."""
    outcomes = []
    for copy, text in zip(copies, texts or [""] * len(copies), strict=True):
        store = source(home=home, name=copy.provider)
        try:
            if store is None:
                raise ContentsError("This provider's store cannot be changed here.", code="unreachable")
            if text and can_remove_text(store):
                removed = store.remove_text(copy.item_id, text, expected=copy.version or None)
                _audit(user=user, home=home, name=copy.provider, action="delete", item=removed.item,
                       summary=f"Cut the entry's text out of item {removed.item.id} in {copy.provider}")
            else:
                removed = delete_item(home=home, user=user, name=copy.provider, item_id=copy.item_id,
                                      expected=copy.version or None)
        except ContentsError as exc:
            outcomes.append(CopyOutcome(copy=copy, removed=False, why=exc.code))
        else:
            outcomes.append(CopyOutcome(copy=copy, removed=True,
                                        undo=_copy_undo(copy, "delete", undo=removed.undo)))
    return outcomes


def update_copy(*, home: Path, user: User, copy: Any, old_text: str, new_text: str) -> CopyOutcome:
    """The copy of an entry the panel just replaced, changed to the new text the way the provider's
    plugin changes an item (see ``ReplacesText``); audited like a delete, with the masked new text."""
    store = source(home=home, name=copy.provider)
    if store is None or not can_replace_text(store):
        return CopyOutcome(copy=copy, removed=False, why="unreachable", action="update")
    try:
        item = store.replace_text(copy.item_id, new_text, expected=copy.version or None, old=old_text)
    except ContentsError as exc:
        return CopyOutcome(copy=copy, removed=False, why=exc.code, action="update")
    _audit(user=user, home=home, name=copy.provider, action="update", item=item,
           summary=f"Updated item {item.id} in {copy.provider} to the entry's new text")
    return CopyOutcome(copy=copy, removed=True, action="update",
                       undo=_copy_undo(copy, "update", old=old_text.strip(), new=new_text.strip()))


@dataclass
class CopyUndone:
    provider: str
    item_id: str
    label: str
    action: str  # "delete" (the copy put back) or "update" (its old text put back)
    ok: bool
    why: str = ""  # ContentsError code, or "impossible" when the provider allows no undo


def undo_copies(*, home: Path, user: User, undos: list[Any]) -> list[CopyUndone]:
    """Each copy an undone change had deleted put back, each it had updated given its old text
    again; audited. One that cannot be reversed is reported and the rest still are."""
    done = []
    for undo in undos:
        if not isinstance(undo, Mapping) or undo.get("action") not in ("delete", "update"):
            continue
        name, item_id = str(undo.get("provider", "")), str(undo.get("item_id", ""))
        result = CopyUndone(provider=name, item_id=item_id, label=str(undo.get("label", item_id)),
                            action=str(undo["action"]), ok=False)
        try:
            if undo["action"] == "delete":
                if not isinstance(undo.get("undo"), Mapping):
                    raise ContentsError("This provider cannot put a deleted item back.", code="impossible")
                restore_item(home=home, user=user, name=name, undo=undo["undo"])
            else:
                store = source(home=home, name=name)
                if store is None or not can_replace_text(store):
                    raise ContentsError("This provider's store cannot be changed here.", code="unreachable")
                item = store.replace_text(item_id, str(undo.get("old", "")), old=str(undo.get("new", "")))
                _audit(user=user, home=home, name=name, action="update", item=item,
                       summary=f"Put the entry's old text back into item {item.id} in {name} (undo)")
        except ContentsError as exc:
            result.why = exc.code
        else:
            result.ok = True
        done.append(result)
    return done
