"""One change feed per server process: tells subscribers that a file they show may have changed.

A subscriber names the paths it cares about (files or folders, existing or not) and a ``wake``
callable, and optionally a ``fingerprint`` callable (``stat`` calls only) with the value it last
showed. One background thread watches the folders that hold those paths, through inotify
(``watchfiles``), and wakes a subscriber whose paths a change touched only when its fingerprint
differs from the last one seen: the panel's own reads raise inotify events too (SQLite's -shm
file, a journal's metadata), and an idle page must not be woken by them. The feed never says what
changed.

Folders are watched, not files: the agent and the panel save by writing a temporary file and
renaming it over the old one, which an inotify watch on the old file would never see. A path that
does not exist yet is watched through its nearest existing ancestor, and the watch set is rebuilt
when folders appear or disappear. Every subscriber is woken once when a new watch set is up: a file
saved while it was being set up raised no event.

Where inotify is missing or a file system does not deliver its events (some network and FUSE
mounts), set ``PANEL_WATCH_POLLING=1``: the same thread then compares ``stat`` results every
``POLL_DELAY_MS``. The feed also falls back to polling by itself when inotify cannot start.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

logger = logging.getLogger(__name__)

# watchfiles groups the events of one save (temporary file, rename) into one batch: it yields
# once no new event came for STEP_MS, or after DEBOUNCE_MS at the latest.
STEP_MS = 15
DEBOUNCE_MS = 150
POLL_DELAY_MS = 100
# How often the thread looks up from a quiet watch to see whether its watch set must change.
RUST_TIMEOUT_MS = 1000


def _polling_forced() -> bool:
    return os.environ.get("PANEL_WATCH_POLLING", "").strip().lower() in {"1", "true", "yes", "on"}


@dataclass(eq=False)
class Subscription:
    paths: tuple[str, ...]
    wake: Callable[[], None]
    fingerprint: Callable[[], str] | None = None
    seen: str | None = None

    def wake_if_changed(self) -> None:
        """Wake the subscriber unless it has a fingerprint and that fingerprint is unchanged."""
        if self.fingerprint is not None:
            try:
                current = self.fingerprint()
            except Exception:  # the subscriber takes it again itself when woken, and reports
                current = None
            if current is not None and current == self.seen:
                return
            self.seen = current
        self.wake()

    def touched_by(self, changed: str) -> bool:
        for path in self.paths:
            # The path itself, something inside it (a folder), or a folder holding it appeared/went.
            if changed == path or changed.startswith(path + os.sep) or path.startswith(changed + os.sep):
                return True
        return False


def _watch_folder(path: str) -> str | None:
    """The folder to watch for ``path``: itself if it is a folder, else its parent; the nearest
    existing ancestor while those do not exist yet."""
    candidate = Path(path)
    if candidate.is_dir():
        return str(candidate)
    candidate = candidate.parent
    while not candidate.is_dir():
        if candidate.parent == candidate:
            return None
        candidate = candidate.parent
    return str(candidate)


@dataclass(eq=False)
class ChangeFeed:
    force_polling: bool = field(default_factory=_polling_forced)
    subscriptions: set[Subscription] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _rewatch: threading.Event = field(default_factory=threading.Event)
    _closed: bool = False
    _thread: threading.Thread | None = None
    _watching: frozenset[str] = frozenset()

    def subscribe(self, paths: Iterable[str | os.PathLike[str]], wake: Callable[[], None], *,
                  fingerprint: Callable[[], str] | None = None, seen: str | None = None) -> Subscription:
        """``seen`` is the fingerprint the subscriber already shows: it is woken when it differs."""
        subscription = Subscription(paths=tuple(os.path.abspath(p) for p in paths), wake=wake,
                                    fingerprint=fingerprint, seen=seen)
        with self._lock:
            self.subscriptions.add(subscription)
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name="change-feed", daemon=True)
                self._thread.start()
        # Only the new subscriber's folders: looking at every subscriber's made each new stream cost
        # a stat call per path of every open stream.
        if not {folder for folder in map(_watch_folder, subscription.paths) if folder is not None} <= self._watching:
            self._rewatch.set()
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            self.subscriptions.discard(subscription)

    def close(self) -> None:
        """Wake every subscriber a last time (they see the feed closed and end) and stop watching."""
        with self._lock:
            self._closed = True
        self._rewatch.set()
        self._wake_all()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def mode(self) -> str:
        return "polling" if self.force_polling else "inotify"

    # --- the watching thread -------------------------------------------------------------------

    def _wanted(self) -> frozenset[str]:
        with self._lock:
            paths = [path for subscription in self.subscriptions for path in subscription.paths]
        return frozenset(folder for folder in map(_watch_folder, paths) if folder is not None)

    def _notify(self, changed: set[str]) -> None:
        with self._lock:
            subscribers = list(self.subscriptions)
        for subscription in subscribers:
            if any(subscription.touched_by(path) for path in changed):
                subscription.wake_if_changed()

    def _wake_changed(self) -> None:
        with self._lock:
            subscribers = list(self.subscriptions)
        for subscription in subscribers:
            subscription.wake_if_changed()

    def _wake_all(self) -> None:
        with self._lock:
            subscribers = list(self.subscriptions)
        for subscription in subscribers:
            subscription.wake()

    def _run(self) -> None:
        import watchfiles

        while not self._closed:
            self._rewatch.clear()
            folders = self._wanted()
            self._watching = folders
            if not folders:
                self._rewatch.wait(RUST_TIMEOUT_MS / 1000)
                continue
            first_batch = True
            try:
                for changes in watchfiles.watch(
                    *sorted(folders), watch_filter=None, recursive=False, stop_event=self._rewatch,
                    step=STEP_MS, debounce=DEBOUNCE_MS, rust_timeout=RUST_TIMEOUT_MS, yield_on_timeout=True,
                    force_polling=self.force_polling, poll_delay_ms=POLL_DELAY_MS, raise_interrupt=False,
                    ignore_permission_denied=True,
                ):
                    if first_batch:
                        # A file saved between a subscriber's first fingerprint and this watch
                        # starting raised no event: every subscriber's fingerprint is looked at now.
                        first_batch = False
                        self._wake_changed()
                    elif changes:
                        self._notify({path for _, path in changes})
                    # A folder that appeared, went or became wanted means a new watch set.
                    if self._closed or self._wanted() != folders:
                        break
            except (OSError, RuntimeError) as exc:
                if self.force_polling:
                    logger.error("The change feed stopped: %s; pages fall back to polling", exc)
                    self.close()
                    return
                logger.warning("inotify is not available here (%s); watching files by polling instead", exc)
                self.force_polling = True


_feed: ChangeFeed | None = None
_feed_lock = threading.Lock()


def change_feed() -> ChangeFeed:
    """This process's feed, made on first use."""
    global _feed
    with _feed_lock:
        if _feed is None or _feed.closed:
            _feed = ChangeFeed()
        return _feed


def close_change_feed() -> None:
    """On shutdown: end every open stream so the server need not wait for them."""
    with _feed_lock:
        if _feed is not None:
            _feed.close()
