"""Result dicts and their exact wording (docs/agent_formats.md §Store operations, §Store operations, §Breaker, §Drift
guard and backups, D14, D16).

Key order is part of the contract: the agent reads these dicts as JSON.
"""

from __future__ import annotations

from typing import Any

from memory_core.entries import failure_usage

Result = dict[str, Any]

ADDED = "Entry added."
DUPLICATE = "Entry already exists (no duplicate added)."
REPLACED = "Entry replaced."
REMOVED = "Entry removed."
SUCCESS_NOTE = "Write saved. This update is complete — do not repeat it."

EMPTY_CONTENT = "Content cannot be empty."
EMPTY_OLD_TEXT = "old_text cannot be empty."
EMPTY_NEW_CONTENT = "new_content cannot be empty. Use 'remove' to delete entries."
EMPTY_OPERATIONS = "operations list is empty."
# memory-panel refuses NUL characters (0.19.0 stores them silently); not counted by the breaker.
NUL_CONTENT = "Content cannot contain NUL characters (U+0000). Remove them and retry."
# Lone surrogates (e.g. undecodable bytes passed on a command line) cannot be stored as UTF-8.
SURROGATE_CONTENT = "Content is not valid Unicode text (it contains a lone surrogate code point). Remove it and retry."
# memory-panel's own writes refuse text that would not read back as the same entry (0.19.0's
# store writes it; see docs/memory_core.md). Not counted by the breaker.
DELIMITER_INSIDE = "An entry cannot contain a line with only § on it: the agent uses that line to separate entries."
DELIMITER_AT_END = (
    "An entry cannot end with a line with only § on it: the agent would read that line as part of the "
    "separator before the next entry."
)
ENTRIES_WOULD_JOIN = (
    "Nothing was written: an entry already in the file ends with a line with only § on it, so the "
    "entry after it would not read back unchanged. Edit that entry first."
)
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
    return (
        f"Memory at {current:,}/{limit:,} chars. Adding this entry ({length} chars) would exceed the limit. "
        "Consolidate now: use 'replace' to merge overlapping entries into shorter ones or 'remove' stale or "
        "less important entries (see current_entries below), then retry this add — all in this turn."
    )


def over_budget_replace(new_total: int, limit: int) -> str:
    return (
        f"Replacement would put memory at {new_total:,}/{limit:,} chars. Shorten the new content, or "
        "'remove' other stale or less important entries to make room (see current_entries below), then "
        "retry — all in this turn."
    )


def over_budget_batch(count: int, total: int, limit: int) -> str:
    return (
        f"After applying all {count} operations, memory would be at {total:,}/{limit:,} chars -- over the "
        "limit. Remove or shorten more entries in the same batch (see current_entries below), then retry."
    )


def no_match(old_text: str, verb: str) -> str:
    return (
        f"No entry matched '{old_text}'. Check current_entries below and retry with the exact text of the "
        f"entry you want to {verb}."
    )


def ambiguous(old_text: str) -> str:
    return f"Multiple entries matched '{old_text}'. Be more specific."


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
        "error": (
            f"Refusing to write {file_name}: file on disk has content that wouldn't round-trip through the "
            "memory tool (likely added by the patch tool, a shell append, a manual edit, or a concurrent "
            f"session). A snapshot was saved to {backup}. Resolve the drift first — either rewrite the file "
            "as a clean §-delimited list of entries, or move the extra content out — then retry. This guard "
            "exists to prevent silent data loss (issue #26045)."
        ),
        "drift_backup": backup,
        "remediation": DRIFT_REMEDIATION,
    }


def unreadable_refusal(file_name: str, reason: str) -> Result:
    return failure(
        f"Refusing to write {file_name}: the file exists but could not be read ({reason}). It was left "
        "unchanged; fix its permissions or encoding, or move it aside, then retry."
    )


def link_refusal(file_name: str, name: str) -> Result:
    """memory-panel (docs/safe_paths.md): ``name`` (relative to the home) leads out of the home."""
    return failure(
        f"Refusing to write {file_name}: {name} is a link to a file outside the agent's home; the panel "
        "does not write through links. Nothing was changed.",
        linked=name,
    )


def lock_refusal(file_name: str, reason: str) -> Result:
    return failure(f"Refusing to write {file_name}: cannot open lock file {file_name}.lock ({reason}).")


def invalid_target(target: object) -> str:
    return f"Invalid target '{target}'. Use 'memory' or 'user'."


NOTHING_SELECTED = "No entries selected."
EMPTY_OLD_CONTENT = "old_content cannot be empty."
ENTRY_CHANGED = (
    "Nothing was replaced: the entry is no longer in the file exactly as it was read (changed or "
    "removed meanwhile). Reload and retry."
)


def drift_stale(file_name: str) -> str:
    return f"Nothing was rewritten: {file_name} changed since it was read. Reload it and check again."


def no_drift(file_name: str) -> str:
    return f"Nothing was rewritten: {file_name} has no drift to resolve."


def drift_not_resolvable(file_name: str, longest: int, limit: int) -> str:
    return (
        f"Nothing was rewritten: one entry of {file_name} is {longest:,} characters long, more than the limit of "
        f"{limit:,}, and rewriting cannot shorten it. Move text out of it by hand (with a § separator between "
        "entries), then retry."
    )


def drift_would_join(file_name: str) -> str:
    return (
        f"Nothing was rewritten: an entry of {file_name} ends with a line with only § on it, so rewriting would "
        "join it to the entry after it. Move or remove that line by hand, then retry."
    )


def drift_backup_failed(file_name: str, backup: str) -> str:
    return f"Nothing was rewritten: {file_name} could not be backed up first ({backup})."


def drift_resolved(file_name: str, count: int, backup: str) -> str:
    noun = "entry" if count == 1 else "entries"
    return f"Rewrote {file_name} as its {count} {noun}; the previous text was saved to {backup}."


# The three refusals that concern the file itself (drift, unreadable, lock) start with this.
FILE_REFUSAL_PREFIX = "Refusing to write "


def is_file_refusal(result: Result) -> bool:
    """True for a refusal about the file (drifted, unreadable, lock), not about the content:
    every later write to that target would be refused the same way."""
    return not result.get("success") and str(result.get("error", "")).startswith(FILE_REFUSAL_PREFIX)


def entries_gone(count: int) -> str:
    noun = "entry is" if count == 1 else "entries are"
    return (
        f"Nothing was deleted: {count} selected {noun} no longer in the file (changed or removed "
        "meanwhile). Reload and select again."
    )


def deleted(count: int) -> str:
    return f"Deleted {count} {'entry' if count == 1 else 'entries'}."


def batch_position(index: int, action: object) -> str:
    return f"Operation {index} ({action or 'unknown'})"
