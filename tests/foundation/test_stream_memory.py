"""What a closed event stream leaves behind in the server process: nothing it registered (a change
feed subscription, a place in the stream counts, an asyncio task, a database connection), and no
Python memory that grows from one round of streams to the next. The streams are driven through the
panel's own ASGI application in this process, as uvicorn drives them in ``serve``; RSS and file
descriptors of a real server are measured by bench/streams.py and tests/foundation/test_stream_limits.py
(docs/performance.md, "Event streams: memory after close")."""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connections

from admin_panel import event_stream
from admin_panel.asgi import build_application
from admin_panel.change_feed import change_feed
from tests.memory_view.helpers import write_store

STREAMS_PER_ROUND = 100
ROUNDS = 3
# Python memory a round may add over the one before it once every stream closed: containers that
# grew to hold the round's streams (sets, the loop's task registry) keep their size; anything per
# stream would add STREAMS_PER_ROUND times its size (a stream holds about 25 KiB while open).
GROWTH_BOUND_BYTES = 256 * 1024
# A safety net against a hang only: every wait below ends as soon as its condition holds.
DEADLINE_SECONDS = 180


def _scope(cookie: str) -> dict:
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": "/memory/events/", "raw_path": b"/memory/events/", "root_path": "", "query_string": b"",
        "headers": [(b"host", b"127.0.0.1"), (b"cookie", cookie.encode("latin-1")),
                    (b"accept", b"text/event-stream")],
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
    }


class _Stream:
    """One stream as the server sees it: the request arrives whole, the first event goes out, then the
    client goes away (uvicorn's ``http.disconnect``)."""

    def __init__(self, app, cookie: str) -> None:
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.inbox.put_nowait({"type": "http.request", "body": b"", "more_body": False})
        self.status: int | None = None
        self.first_event = asyncio.Event()
        self.task = asyncio.create_task(app(_scope(cookie), self.inbox.get, self._send))

    async def _send(self, message: dict) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        elif b"data:" in message.get("body", b"") or not message.get("more_body", False):
            self.first_event.set()

    def close(self) -> None:
        self.inbox.put_nowait({"type": "http.disconnect"})


async def _round(app, cookie: str) -> list[int | None]:
    streams = [_Stream(app, cookie) for _ in range(STREAMS_PER_ROUND)]
    await asyncio.wait_for(asyncio.gather(*(s.first_event.wait() for s in streams)), DEADLINE_SECONDS)
    statuses = [s.status for s in streams]
    for s in streams:
        s.close()
    await asyncio.wait_for(asyncio.gather(*(s.task for s in streams)), DEADLINE_SECONDS)
    return statuses


def _database_fds() -> int:
    """This process's open files of the panel's database (itself, its -wal and -shm)."""
    name = str(connections["default"].settings_dict["NAME"])
    return sum(1 for fd in Path("/proc/self/fd").iterdir() if _target(fd).startswith(name))


def _target(fd: Path) -> str:
    try:
        return os.readlink(fd)
    except OSError:  # closed meanwhile
        return ""


def _traced_bytes() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_it_leaves_nothing_registered_and_no_growing_memory_after_rounds_of_streams_close(home, owner, client,
                                                                                      settings):
    settings.PANEL_STREAMS_PER_ACCOUNT = settings.PANEL_STREAMS_TOTAL = STREAMS_PER_ROUND
    write_store(home, "memory", ["The build uses uv."])
    client.force_login(owner)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    app = build_application(threads=2)
    feed = change_feed()

    async def rounds() -> tuple[list[list[int | None]], list[int], set[asyncio.Task], int, int]:
        await _round(app, cookie)  # what every stream shares (the feed's watch, the stream thread) is up
        before = {id(t) for t in asyncio.all_tasks()}
        statuses, traced = [], [_traced_bytes()]
        fds_before, fds_after = _database_fds(), []
        for _ in range(ROUNDS):
            statuses.append(await _round(app, cookie))
            # Before any collection: a connection that only the garbage collector would close (a
            # thread's connection left in a context nobody holds) counts as held, as it is in a
            # server where a full collection may be minutes away.
            fds_after.append(_database_fds())
            traced.append(_traced_bytes())
        left = {t for t in asyncio.all_tasks() if id(t) not in before and t is not asyncio.current_task()}
        return statuses, traced, left, fds_before, max(fds_after)

    tracemalloc.start()
    try:
        # A loop of its own thread: a browser test earlier in this worker may have left Playwright's
        # loop running on the main thread, where asyncio.run() refuses to start.
        with ThreadPoolExecutor(max_workers=1) as runner:
            statuses, traced, tasks_left, fds_before, fds_after = runner.submit(asyncio.run, rounds()).result()
    finally:
        tracemalloc.stop()
        feed.close()

    assert statuses == [[200] * STREAMS_PER_ROUND] * ROUNDS
    assert tasks_left == set()
    assert feed.subscriptions == set()
    assert event_stream._slots.total == 0 and event_stream._slots.per_account == {}
    # Every stream's database work ran on the one shared streams thread: no connection per stream.
    assert fds_after <= fds_before, f"{fds_after} open files of the database, {fds_before} before the rounds"
    growth = [after - before for before, after in itertools.pairwise(traced)]
    # A leak grows every round; another thread of this test process allocating during one round
    # (tracemalloc counts the whole process) does not, so the smallest step is the one that tells.
    assert min(growth) < GROWTH_BOUND_BYTES, f"Python memory grew {growth} bytes per round"
