"""Result dicts and their exact wording (docs/agent_formats.md §Store operations, §Store operations, §Breaker, §Drift
guard and backups, D14, D16).

Key order is part of the contract: the agent reads these dicts as JSON.
"""

from __future__ import annotations

from typing import Any

from memory_core.coded import Message, render
from memory_core.entries import failure_usage

Result = dict[str, Any]

# The English of every coded message memory_core writes (docs/admin_panel.md, "Errors as codes"):
# the store's refusals the agent's memory tool returns, the panel's own refusals, why config.yaml
# could not be read, why a file could not be written. The panel's table (admin_panel/messages.py)
# words the same codes.
TEXTS: dict[str, str] = {
    "empty_content": "Content cannot be empty.",
    "nul_content": "Content cannot contain NUL characters (U+0000). Remove them and retry.",
    "surrogate_content": (
        "Content is not valid Unicode text (it contains a lone surrogate code point). Remove it and retry."),
    "delimiter_inside": (
        "An entry cannot contain a line with only § on it: the agent uses that line to separate entries."),
    "delimiter_at_end": (
        "An entry cannot end with a line with only § on it: the agent would read that line as part of the "
        "separator before the next entry."),
    "entries_would_join": (
        "Nothing was written: an entry already in the file ends with a line with only § on it, so the "
        "entry after it would not read back unchanged. Edit that entry first."),
    "empty_new_content": "new_content cannot be empty. Use 'remove' to delete entries.",
    "duplicate": "Entry already exists (no duplicate added).",
    "over_budget_add": (
        "Memory at %(current)s/%(limit)s chars. Adding this entry (%(length)s chars) would exceed the limit. "
        "Consolidate now: use 'replace' to merge overlapping entries into shorter ones or 'remove' stale or "
        "less important entries (see current_entries below), then retry this add — all in this turn."),
    "over_budget_replace": (
        "Replacement would put memory at %(total)s/%(limit)s chars. Shorten the new content, or 'remove' other "
        "stale or less important entries to make room (see current_entries below), then retry — all in this turn."),
    "threat_invisible": "Blocked: content contains invisible unicode character %(code)s (possible injection).",
    "threat_pattern": (
        "Blocked: content matches threat pattern '%(pattern)s'. Content is injected into the system prompt "
        "and must not contain injection or exfiltration payloads."),
    "unreadable_refusal": (
        "Refusing to write %(file)s: the file exists but could not be read (%(reason)s). It was left "
        "unchanged; fix its permissions or encoding, or move it aside, then retry."),
    "link_refusal": (
        "Refusing to write %(file)s: %(name)s is a link to a file outside the agent's home; the panel does not "
        "write through links. Nothing was changed."),
    "lock_refusal": "Refusing to write %(file)s: cannot open lock file %(file)s.lock (%(reason)s).",
    "drift_refusal": (
        "Refusing to write %(file)s: file on disk has content that wouldn't round-trip through the memory "
        "tool (likely added by the patch tool, a shell append, a manual edit, or a concurrent session). A "
        "snapshot was saved to %(backup)s. Resolve the drift first — either rewrite the file as a clean "
        "§-delimited list of entries, or move the extra content out — then retry. This guard exists to "
        "prevent silent data loss (issue #26045)."),
    "no_match": (
        "No entry matched '%(text)s'. Check current_entries below and retry with the exact text of the "
        "entry you want to %(verb)s."),
    "ambiguous": "Multiple entries matched '%(text)s'. Be more specific.",
    "invalid_target": "Invalid target '%(target)s'. Use 'memory' or 'user'.",
    "nothing_selected": "No entries selected.",
    "empty_old_content": "old_content cannot be empty.",
    "entry_changed": (
        "Nothing was replaced: the entry is no longer in the file exactly as it was read (changed or "
        "removed meanwhile). Reload and retry."),
    "drift_stale": "Nothing was rewritten: %(file)s changed since it was read. Reload it and check again.",
    "no_drift": "Nothing was rewritten: %(file)s has no drift to resolve.",
    "drift_not_resolvable": (
        "Nothing was rewritten: one entry of %(file)s is %(longest)s characters long, more than the limit of "
        "%(limit)s, and rewriting cannot shorten it. Move text out of it by hand (with a § separator between "
        "entries), then retry."),
    "drift_backup_failed": "Nothing was rewritten: %(file)s could not be backed up first (%(backup)s).",
    "drift_would_join": (
        "Nothing was rewritten: an entry of %(file)s ends with a line with only § on it, so rewriting would join "
        "it to the entry after it. Move or remove that line by hand, then retry."),
    "drift_resolved_one": "Rewrote %(file)s as its %(count)s entry; the previous text was saved to %(backup)s.",
    "drift_resolved": "Rewrote %(file)s as its %(count)s entries; the previous text was saved to %(backup)s.",
    "entries_gone_one": (
        "Nothing was deleted: %(count)s selected entry is no longer in the file (changed or removed "
        "meanwhile). Reload and select again."),
    "entries_gone": (
        "Nothing was deleted: %(count)s selected entries are no longer in the file (changed or removed "
        "meanwhile). Reload and select again."),
    "deleted_one": "Deleted %(count)s entry.",
    "deleted": "Deleted %(count)s entries.",
    # why config.yaml's memory settings could not be read (memory_core.config)
    "config_invalid_yaml_at": "config.yaml is not valid YAML (line %(line)s)",
    "config_invalid_yaml": "config.yaml is not valid YAML",
    "config_too_large": "config.yaml is larger than %(size)s KB and was not read",
    "config_unreadable": "config.yaml could not be read: %(error)s",
    "config_too_deep": "config.yaml is nested too deeply to read",
    "config_long_number": "config.yaml has a number too long to read",
    "config_link_read": "config.yaml is a link to a file outside the agent's home and was not read",
    "config_link_write": (
        "config.yaml is a link to a file outside the agent's home; the panel does not write through links. "
        "Nothing was changed."),
    # a file that could not be written (memory_core.files.write_failure_reason)
    "write_link": (
        "%(name)s is a link to a file outside the agent's home; the panel does not write through links. "
        "Nothing was changed."),
    "write_read_only": "%(folder)s is read-only (permission denied): nothing was changed.",
    "write_read_only_fs": "%(folder)s is on a read-only file system: nothing was changed.",
    "write_disk_full": "The disk is full: nothing was changed.",
    "write_failed": "%(file)s could not be written (%(problem)s): nothing was changed.",
}


def say(code: str, /, **params: Any) -> Message:
    """memory_core's message ``code`` with ``params``, in English."""
    return render(TEXTS, code, params)

ADDED = "Entry added."
DUPLICATE = say("duplicate")
REPLACED = "Entry replaced."
REMOVED = "Entry removed."
SUCCESS_NOTE = "Write saved. This update is complete — do not repeat it."

EMPTY_CONTENT = say("empty_content")
EMPTY_OLD_TEXT = "old_text cannot be empty."
EMPTY_NEW_CONTENT = say("empty_new_content")
EMPTY_OPERATIONS = "operations list is empty."
# memory-panel refuses NUL characters (0.19.0 stores them silently); not counted by the breaker.
NUL_CONTENT = say("nul_content")
# Lone surrogates (e.g. undecodable bytes passed on a command line) cannot be stored as UTF-8.
SURROGATE_CONTENT = say("surrogate_content")
# memory-panel's own writes refuse text that would not read back as the same entry (0.19.0's
# store writes it; see docs/memory_core.md). Not counted by the breaker.
DELIMITER_INSIDE = say("delimiter_inside")
DELIMITER_AT_END = say("delimiter_at_end")
ENTRIES_WOULD_JOIN = say("entries_would_join")
BATCH_SUFFIX = " No operations were applied (batch is all-or-nothing)."
# Newer agents (docs/memory_core.md "Newer agents"): a staged replace/remove names the whole entry
# it was reviewed against, and approval refuses when that entry is gone; one staged before
# pinning is refused outright.
UNPINNED_DESTRUCTIVE = ("This destructive pending write predates entry pinning and cannot be verified; nothing "
                        "was applied. Reject it and recreate the change.")


def stale_entry(entry: object) -> str:
    return (f"Entry changed since it was staged, so this write was not applied: '{entry}' is no longer in memory "
            "as reviewed. Recreate the change against the current entry or reject it; the pending record has "
            "been preserved.")


def refusing_to_empty(file_name: str) -> str:
    return (f"Refusing to empty {file_name}: this batch would remove every entry from a previously non-empty "
            "store. Keep at least one entry — merge overlapping entries into a shorter one instead of removing "
            "the last one. To delete the final entry deliberately, use single remove() calls.")


def target_disabled(file_name: str) -> str:
    return f"Built-in {file_name} writes are disabled in memory config."

DRIFT_REMEDIATION = (
    "Open the .bak file, integrate the missing entries into the memory tool one at a time via "
    "memory(action=add, content=...), then remove or rewrite the original file to a clean state."
)


def applied(count: int) -> str:
    return f"Applied {count} operation(s)."


def success(*, target: str, usage: str, entry_count: int, message: str) -> Result:
    return {
        "success": True,
        "done": True,
        "target": target,
        "usage": usage,
        "entry_count": entry_count,
        "message": message,
        "note": SUCCESS_NOTE,
    }


def failure(error: str, **extras: Any) -> Result:
    return {"success": False, "error": error, **extras}


def with_entries(error: str, entries: list[str], count: int | None = None, limit: int | None = None) -> Result:
    """Failure carrying the live list (and the usage before the change when given)."""
    result = failure(error, current_entries=list(entries))
    if count is not None and limit is not None:
        result["usage"] = failure_usage(count, limit)
    return result


def over_budget_add(current: int, limit: int, length: int) -> str:
    return say("over_budget_add", current=f"{current:,}", limit=f"{limit:,}", length=str(length))


def over_budget_replace(new_total: int, limit: int) -> str:
    return say("over_budget_replace", total=f"{new_total:,}", limit=f"{limit:,}")


def over_budget_batch(count: int, total: int, limit: int) -> str:
    return (
        f"After applying all {count} operations, memory would be at {total:,}/{limit:,} chars -- over the "
        "limit. Remove or shorten more entries in the same batch (see current_entries below), then retry."
    )


def no_match(old_text: str, verb: str) -> str:
    return say("no_match", text=old_text, verb=verb)


def ambiguous(old_text: str) -> str:
    return say("ambiguous", text=old_text)


def previews(entries: list[str], width: int = 80) -> list[str]:
    return [entry[:width] + ("..." if len(entry) > width else "") for entry in entries]


def breaker_terminal(count: int) -> Result:
    return {
        "success": False,
        "done": True,
        "error": (
            f"Memory consolidation failed {count} times this turn. Stop retrying memory calls — leave "
            "memory unchanged for now and continue with your reply to the user. The fact can be saved "
            "in a later turn."
        ),
    }


def drift_refusal(file_name: str, backup: str) -> Result:
    return {
        "success": False,
        "error": say("drift_refusal", file=file_name, backup=backup),
        "drift_backup": backup,
        "remediation": DRIFT_REMEDIATION,
    }


def unreadable_refusal(file_name: str, reason: str) -> Result:
    return failure(say("unreadable_refusal", file=file_name, reason=reason))


def link_refusal(file_name: str, name: str) -> Result:
    """memory-panel (docs/safe_paths.md): ``name`` (relative to the home) leads out of the home."""
    return failure(say("link_refusal", file=file_name, name=name), linked=name)


def lock_refusal(file_name: str, reason: str) -> Result:
    return failure(say("lock_refusal", file=file_name, reason=reason))


def invalid_target(target: object) -> str:
    return say("invalid_target", target=str(target))


NOTHING_SELECTED = say("nothing_selected")
EMPTY_OLD_CONTENT = say("empty_old_content")
ENTRY_CHANGED = say("entry_changed")


def drift_stale(file_name: str) -> str:
    return say("drift_stale", file=file_name)


def no_drift(file_name: str) -> str:
    return say("no_drift", file=file_name)


def drift_not_resolvable(file_name: str, longest: int, limit: int) -> str:
    return say("drift_not_resolvable", file=file_name, longest=f"{longest:,}", limit=f"{limit:,}")


def drift_would_join(file_name: str) -> str:
    return say("drift_would_join", file=file_name)


def drift_backup_failed(file_name: str, backup: str) -> str:
    return say("drift_backup_failed", file=file_name, backup=backup)


def drift_resolved(file_name: str, count: int, backup: str) -> str:
    return say("drift_resolved_one" if count == 1 else "drift_resolved", file=file_name, count=str(count),
               backup=backup)


# The three refusals that concern the file itself (drift, unreadable, lock) start with this.
FILE_REFUSAL_PREFIX = "Refusing to write "


def is_file_refusal(result: Result) -> bool:
    """True for a refusal about the file (drifted, unreadable, lock), not about the content:
    every later write to that target would be refused the same way."""
    return not result.get("success") and str(result.get("error", "")).startswith(FILE_REFUSAL_PREFIX)


def entries_gone(count: int) -> str:
    return say("entries_gone_one" if count == 1 else "entries_gone", count=str(count))


def deleted(count: int) -> str:
    return say("deleted_one" if count == 1 else "deleted", count=str(count))


def batch_position(index: int, action: object) -> str:
    return f"Operation {index} ({action or 'unknown'})"
