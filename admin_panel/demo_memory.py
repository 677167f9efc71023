"""Memory states for ``serve --demo`` (called at the end of ``admin_panel.demo.seed_demo_home``).

The base demo already has a blocked entry, an entry full of markup and one pending write. This
adds what the memory view can show without making the main page look broken:

- an entry with markdown, an ``<img onerror>`` and ``javascript:`` links (shown as inert text);
- a drift backup of MEMORY.md from an earlier session: it holds an entry that is no longer in the
  file and a block that was appended without a separator, so the backup list, its content, the
  difference from the current file and restoring an entry can all be tried;
- a second pending write, a replacement in USER.md, so approving in bulk can be tried.

Live drift, an unreadable file, an over-budget, missing or disabled store would make the main
demo's user profile read-only, so they are opt-in: ``serve --demo --demo-state STATE`` puts USER.md
of a fresh demo home in one of ``DEMO_STATES`` (see :func:`apply_demo_state`). Everything is
written through ``memory_core`` or in the agent's own formats, and nothing that already exists is
overwritten, except by the state a person asked for.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from memory_core import add_entry, list_pending, stage
from memory_core.entries import DELIMITER
from memory_core.state import list_backups

MARKUP_ENTRY = (
    "Markdown and HTML stay text here: **bold**, [docs](javascript:alert(1)), "
    '<img src=x onerror=alert(1)> and <a href="javascript:alert(2)">a link</a>.'
)
FORGOTTEN_ENTRY = "Staging runbook lives in docs/runbooks/staging.md."
APPENDED_BLOCK = "## Vendor Master\n" + "\n".join(f"- vendor {n}: contact via the shared inbox" for n in range(1, 13))
# For the maintenance page: duplicates of the base demo's entries (containment and near), entries
# that go stale (a relative date, task progress, in English and Chinese) and a credential.
MAINTENANCE_MEMORY = (
    "Repo uses uv for Python deps",
    "Staging deploys need approval from the release channel.",
    "Yesterday the staging deploy failed because the disk was full.",
    "TODO: finish moving the nightly backups to the new bucket (WIP).",
    "上周把 CI 迁移到了 GitHub Actions，目前进行中。",
    "Staging DB password: hunter2-demo (change it soon).",
)
MAINTENANCE_USER = ("Prefers concise answers with the code first and the explanation after.",)
# Written by the demo history's memory calls (demo_sessions): the memory page links them to the
# transcript. The demo's stored OpenAI key inside an entry: shown masked everywhere.
PROVENANCE_USER = ("Prefers docker compose over raw docker run.", "喜欢简洁的回答。")
SECRET_ENTRY = "The demo OpenAI key demo-not-a-real-key is for local testing only."  # noqa: S105 - the demo .env value, not a password
PENDING_REPLACE = {
    "action": "replace",
    "target": "user",
    "content": "Works in UTC+2 since moving to Athens; usually online 08:00-17:00.",
    "old_text": "Works in UTC+1",
}


def _backup_text(home: Path) -> str:
    current = (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    entries = [piece.strip() for piece in current.split(DELIMITER) if piece.strip()]
    earlier = [entry for entry in entries if entry != MARKUP_ENTRY]
    earlier.insert(2, FORGOTTEN_ENTRY)
    # The block was appended by a shell without a § line: the last entry grew past the limit.
    return DELIMITER.join(earlier) + "\n\n" + APPENDED_BLOCK


def _seed_backup(home: Path) -> None:
    if list_backups(home, "memory"):
        return
    saved_at = int(time.time()) - 2 * 86400
    path = home / "memories" / f"MEMORY.md.bak.{saved_at}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(_backup_text(home))
    os.utime(path, (saved_at, saved_at))


def _seed_pending(home: Path) -> None:
    if any(record.get("payload", {}).get("action") == "replace" for record in list_pending(home)):
        return
    detail = f"old: {PENDING_REPLACE['old_text']}\nnew: {PENDING_REPLACE['content']}"
    stage(
        home,
        payload=dict(PENDING_REPLACE),
        # The agent's summary: "<what>: <first 120 characters of the detail>".
        summary=f"replace in user profile: {detail[:120]}".strip(),
        origin="foreground",
        clock=lambda: time.time() - 600,
    )


def seed_demo_memory(home: Path) -> None:
    """Add the memory view's demo states to a seeded demo home (idempotent)."""
    # Through the store, so the entry lands under the lock and only if the scanner allows it.
    add_entry(home=home, target="memory", content=MARKUP_ENTRY)
    for text in MAINTENANCE_MEMORY:
        add_entry(home=home, target="memory", content=text)
    for text in (*MAINTENANCE_USER, *PROVENANCE_USER):
        add_entry(home=home, target="user", content=text)
    add_entry(home=home, target="memory", content=SECRET_ENTRY)
    _seed_backup(home)
    _seed_pending(home)


def seed_budget_history(home: Path, *, days: int = 20) -> None:
    """Budget samples for the demo's chart, as if the panel had seen the stores grow over the last
    ``days`` days up to what they hold now (only into a panel database without samples)."""
    from datetime import timedelta

    from django.utils import timezone

    from admin_panel.models import BudgetSample
    from memory_core.state import read_all_states

    if BudgetSample.objects.filter(home=str(home)).exists():
        return
    now = timezone.now()
    samples = []
    for state in read_all_states(home=home).values():
        start = state.total_chars * 3 // 5
        for day in range(days):
            chars = start + (state.total_chars - start) * day // days
            at = now - timedelta(days=days - day)
            samples.append(BudgetSample(home=str(home), target=state.target, chars=chars, limit=state.limit,
                                        recorded_at=at))
    BudgetSample.objects.bulk_create(samples)


# State name -> what the memory page shows for USER.md once it is applied.
DEMO_STATES = {
    "disabled": "user_profile_enabled: false in config.yaml",
    "missing": "USER.md does not exist",
    "unreadable": "USER.md is not valid UTF-8",
    "drift": "USER.md has an empty entry appended by hand, so the drift guard refuses writes",
    "over-budget": "user_char_limit in config.yaml is lower than what USER.md already holds",
}


def apply_demo_state(home: Path, state: str) -> str:
    """Put the seeded demo home's USER.md in ``state`` (a key of ``DEMO_STATES``); returns its
    description. Only for a demo home: it edits the demo's own config.yaml and USER.md."""
    config = home / "config.yaml"
    user = home / "memories" / "USER.md"
    if state == "disabled":
        _replace_in(config, "user_profile_enabled: true", "user_profile_enabled: false")
    elif state == "missing":
        user.unlink(missing_ok=True)
    elif state == "unreadable":
        user.write_bytes(user.read_bytes() + b"\n\xff\xfe (bytes that are not UTF-8)\n")
    elif state == "drift":
        with user.open("a", encoding="utf-8") as handle:
            handle.write("\n\n" + DELIMITER.strip() + "\n")  # an empty entry, as a shell append makes
    elif state == "over-budget":
        _replace_in(config, "user_char_limit: 1375", "user_char_limit: 40")
    else:
        raise ValueError(f"unknown demo state {state!r}; choose one of {', '.join(DEMO_STATES)}")
    return DEMO_STATES[state]


def _replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    if old not in text and new not in text:
        raise ValueError(f"{path.name} does not contain {old!r}: it is not the demo's file")
    path.write_text(text.replace(old, new), encoding="utf-8")
