"""The server's change feed: what wakes a subscriber (inotify, in a real folder)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from admin_panel.change_feed import ChangeFeed, Subscription

# A safety net for a loaded machine, not a speed goal: each wait ends as soon as the wake comes.
WAKE_WAIT_SECONDS = 180


def _subscribed(feed: ChangeFeed, path: Path) -> threading.Event:
    woken = threading.Event()
    feed.subscribe([path], woken.set)
    return woken


def test_it_wakes_a_new_subscriber_once_its_watch_has_started(tmp_path: Path):
    """A file saved after a page took its fingerprint but before the watch began raises no inotify
    event: the feed wakes the subscriber once the watch is up, so the page looks again."""
    feed = ChangeFeed(force_polling=False)
    try:
        woken = _subscribed(feed, tmp_path / "MEMORY.md")

        assert woken.wait(WAKE_WAIT_SECONDS)
    finally:
        feed.close()


def test_it_wakes_the_subscriber_of_a_file_saved_by_a_rename_into_place(tmp_path: Path):
    feed = ChangeFeed(force_polling=False)
    try:
        woken = _subscribed(feed, tmp_path / "MEMORY.md")
        assert woken.wait(WAKE_WAIT_SECONDS)  # the watch is up
        woken.clear()

        staged = tmp_path / ".MEMORY.md.tmp"
        staged.write_text("The build uses uv.", encoding="utf-8")
        os.replace(staged, tmp_path / "MEMORY.md")

        assert woken.wait(WAKE_WAIT_SECONDS)
    finally:
        feed.close()


def test_it_tells_a_subscriber_only_of_paths_it_shows_or_folders_holding_them():
    subscription = Subscription(paths=("/home/h/memories/MEMORY.md", "/home/h/plugins"), wake=lambda: None)

    assert subscription.touched_by("/home/h/memories/MEMORY.md")
    assert subscription.touched_by("/home/h/plugins/notes/config_schema.py")
    assert subscription.touched_by("/home/h/memories")  # the folder itself appeared or went
    assert not subscription.touched_by("/home/h/memories/USER.md")
    assert not subscription.touched_by("/home/h/plugins-old")


def test_it_wakes_a_subscriber_with_a_fingerprint_only_when_that_fingerprint_moved(tmp_path: Path):
    """A reader's traces (a ctime change, SQLite's -shm file) raise inotify events next to the file;
    a subscriber that gave its fingerprint is woken by a write only."""
    from memory_core.fingerprints import fingerprint_of

    database = tmp_path / "state.db"
    database.write_bytes(b"first commit")

    def current() -> str:
        return fingerprint_of([database])

    wakes: list[str] = []
    woken = threading.Event()

    def wake() -> None:
        wakes.append(current())
        woken.set()

    feed = ChangeFeed(force_polling=False)
    try:
        every_event = _subscribed(feed, database)  # no fingerprint: woken by anything on the file
        feed.subscribe([database], wake, fingerprint=current, seen=current())
        assert every_event.wait(WAKE_WAIT_SECONDS)  # the watch is up
        every_event.clear()

        os.chmod(database, 0o640)  # ctime only, as a root reader's chown of the log
        (tmp_path / "state.db-shm").write_bytes(b"reader")
        assert every_event.wait(WAKE_WAIT_SECONDS)  # the feed has handled the reader's traces
        # In place and in one write, as SQLite writes its file: write_bytes truncates first, and
        # a feed that looked between the truncation and the write (a preempted test thread under
        # load) rightly woke twice, for the empty file and then for the written one.
        with database.open("r+b", buffering=0) as file:
            file.write(b"first commit, second commit")

        assert woken.wait(WAKE_WAIT_SECONDS)
        assert wakes == [current()]
    finally:
        feed.close()
