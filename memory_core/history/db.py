"""Opening the agent's ``state.db`` read-only, and what state it is in (docs/agent_formats.md §Session history,
§Session history, §Reading history safely).

Every read opens its own connection: ``file:…?mode=ro``, ``PRAGMA query_only``, a short busy
timeout, autocommit. Each statement is fetched to the end before the next, and the connection
is closed before the request returns, so no snapshot outlives a request: the agent's
checkpoint and its writers in DELETE journal mode never wait on the panel. Nothing here writes,
migrates, checkpoints or repairs; a damaged file is reported, and the agent's own remedy
(``hermes sessions repair``) is named by the page.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from memory_core.history.schema import SCHEMA_VERSION

STATE_DB = "state.db"
BUSY_TIMEOUT_SECONDS = 0.25

# States in which nothing can be read.
MISSING = "missing"  # no state.db yet (a profile the agent never ran in)
LOCKED = "locked"  # another process holds the file (DELETE journal mode, a repair, a VACUUM)
MALFORMED = "malformed"  # not a database, or damaged
UNREADABLE = "unreadable"  # permissions, or a directory where the file should be
OLD_SCHEMA = "old_schema"  # made by an older agent: tables or columns we need are missing
NEW_SCHEMA = "new_schema"  # made by a newer agent in a shape we do not know

SESSION_COLUMNS_NEEDED = ("id", "source", "parent_session_id", "started_at", "ended_at", "end_reason",
                          "model_config", "message_count", "title", "archived")
MESSAGE_COLUMNS_NEEDED = ("id", "session_id", "role", "content", "tool_calls", "tool_name", "timestamp",
                          "active", "compacted")
FTS_TRIGGERS = (
    "messages_fts_insert", "messages_fts_delete", "messages_fts_update",
    "messages_fts_trigram_insert", "messages_fts_trigram_delete", "messages_fts_trigram_update",
)


class HistoryUnavailable(Exception):
    """The history cannot be read; ``state`` is one of the constants above."""

    def __init__(self, state: str, detail: str = "") -> None:
        super().__init__(f"{state}: {detail}" if detail else state)
        self.state = state
        self.detail = detail


# Index states beyond "usable": the CJK index of a v30 file (docs/history.md).
CJK_ABSENT = "absent"
CJK_UNLOADABLE = "unloadable"  # its tokenizer is a native library the panel never loads
CJK_STALE = "stale"  # the agent marked it incomplete


@dataclass(frozen=True)
class Capabilities:
    """What this file offers the reader; checked on each open (cheap: a few schema reads).

    Decided from what the file holds, not from its version number: the columns of each table, and
    each search index's stored definition (which rows and columns it holds, whether the reader can
    query it at all)."""

    version: int | None
    session_columns: tuple[str, ...]
    message_columns: tuple[str, ...]
    fts: bool
    trigram: bool
    missing_triggers: tuple[str, ...] = field(default=())
    # The main index has one column per field (v30's external-content layout) rather than one
    # joined column (0.19.0's inline layout).
    fts_columns: bool = False
    # Tool rows enter the indexes cut to this many characters (None: whole rows).
    tool_prefix: int | None = None
    # The trigram index leaves out tool rows and cron, subagent and delegated sessions.
    trigram_partial: bool = False
    cjk: str = CJK_ABSENT
    # Message ids the main and trigram indexes do not hold yet (a backfill in progress): lo < id <= hi.
    unindexed: tuple[int, int] | None = None
    system_prompts: bool = False

    @property
    def version_differs(self) -> bool:
        return self.version != SCHEMA_VERSION

    @property
    def newer(self) -> bool:
        return self.version is not None and self.version > SCHEMA_VERSION


def state_db_path(home: Path) -> Path:
    return Path(home) / STATE_DB


def classify(exc: sqlite3.Error) -> HistoryUnavailable:
    text = str(exc)
    lowered = text.lower()
    if "locked" in lowered or "busy" in lowered:
        return HistoryUnavailable(LOCKED, text)
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return HistoryUnavailable(MALFORMED, text)
    return HistoryUnavailable(UNREADABLE, text)


def _connect(path: Path) -> sqlite3.Connection:
    from memory_core.safe_paths import LINK_PROBLEM, leaving_link

    # SQLite cannot open without following links: a state.db leading out of the home is refused
    # before it is opened, and one inside is opened where it leads (docs/safe_paths.md).
    if leaving_link(path, Path(path).absolute().parent) is not None:
        raise HistoryUnavailable(UNREADABLE, LINK_PROBLEM)
    if not path.exists():
        raise HistoryUnavailable(MISSING)
    if not path.is_file():
        raise HistoryUnavailable(UNREADABLE, "not a file")
    uri = f"file:{quote(os.path.realpath(path))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                               check_same_thread=False)
    except sqlite3.Error as exc:
        raise classify(exc) from None
    try:
        conn.execute("PRAGMA query_only = 1")
    except sqlite3.Error as exc:
        conn.close()
        raise classify(exc) from None
    conn.row_factory = sqlite3.Row
    return conn


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to ``path`` with the checks every request makes."""
    return _connect(path)


def read_capabilities(conn: sqlite3.Connection) -> Capabilities:
    """What the file behind ``conn`` offers (see ``Capabilities``)."""
    return _capabilities(conn)


def _probe(conn: sqlite3.Connection, table: str) -> bool:
    try:
        conn.execute(f"SELECT * FROM {table} LIMIT 0").fetchall()  # noqa: S608 - fixed table names
    except sqlite3.Error:
        return False
    return True


def _capabilities(conn: sqlite3.Connection) -> Capabilities:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    if "sessions" not in tables or "messages" not in tables:
        raise HistoryUnavailable(OLD_SCHEMA, "tables sessions/messages missing")
    version = None
    if "schema_version" in tables:
        row = conn.execute("SELECT version FROM schema_version LIMIT 1").fetchone()
        version = int(row[0]) if row is not None and isinstance(row[0], int) else None
    session_columns = tuple(r[1] for r in conn.execute("PRAGMA table_info(sessions)"))
    message_columns = tuple(r[1] for r in conn.execute("PRAGMA table_info(messages)"))
    missing = [c for c in SESSION_COLUMNS_NEEDED if c not in session_columns]
    missing += [c for c in MESSAGE_COLUMNS_NEEDED if c not in message_columns]
    if missing:
        newer = version is not None and version > SCHEMA_VERSION
        raise HistoryUnavailable(NEW_SCHEMA if newer else OLD_SCHEMA, "columns missing: " + ", ".join(missing))
    definitions = {r[0]: (r[1] or "") for r in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE name IN ('messages_fts', 'messages_fts_trigram',"
        " 'messages_fts_cjk', 'messages_fts_insert', 'messages_fts_src')")}
    cjk = _cjk_state(conn, tables, definitions.get("messages_fts_cjk", ""))
    # Never probe a table whose definition names a tokenizer SQLite lacks: it would only fail.
    fts = "messages_fts" in tables and _probe(conn, "messages_fts")
    trigram = fts and "messages_fts_trigram" in tables and _probe(conn, "messages_fts_trigram")
    fts_sql = definitions.get("messages_fts", "").lower()
    fts_columns = "tool_name" in fts_sql
    # The prefix cut sits in the view the external index reads, or in the insert trigger an
    # upgrading agent installs over the old inline index.
    cut_source = (definitions.get("messages_fts_src", "") + definitions.get("messages_fts_insert", "")).lower()
    tool_prefix = _tool_prefix(cut_source)
    trigram_partial = "content='messages_fts_trigram_src'" in definitions.get("messages_fts_trigram", "").replace(
        '"', "'").lower()
    meta = _state_meta(conn, tables, ("fts_rebuild_high_water", "fts_rebuild_progress"))
    unindexed = None
    if "fts_rebuild_high_water" in meta:
        high = _as_int(meta.get("fts_rebuild_high_water"))
        low = _as_int(meta.get("fts_rebuild_progress")) or 0
        if high is not None and high > low:
            unindexed = (low, high)
    return Capabilities(
        version=version,
        session_columns=session_columns,
        message_columns=message_columns,
        fts=fts,
        trigram=trigram,
        missing_triggers=tuple(t for t in FTS_TRIGGERS if t not in triggers),
        fts_columns=fts_columns,
        tool_prefix=tool_prefix,
        trigram_partial=trigram_partial,
        cjk=cjk,
        unindexed=unindexed,
        system_prompts="system_prompts" in tables and "system_prompt_hash" in session_columns,
    )


_PREFIX = re.compile(r"substr\(\s*coalesce\(\s*(?:\w+\.)?content\s*,\s*''\s*\)\s*,\s*1\s*,\s*(\d+)\s*\)")


def _tool_prefix(sql: str) -> int | None:
    found = _PREFIX.search(sql)
    return int(found.group(1)) if found else None


def _as_int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _state_meta(conn: sqlite3.Connection, tables: set[str], keys: tuple[str, ...]) -> dict[str, object]:
    if "state_meta" not in tables:
        return {}
    marks = ", ".join("?" * len(keys))
    try:
        return {r[0]: r[1] for r in conn.execute(f"SELECT key, value FROM state_meta WHERE key IN ({marks})", keys)}  # noqa: S608
    except sqlite3.OperationalError:
        return {}


def _cjk_state(conn: sqlite3.Connection, tables: set[str], sql: str) -> str:
    """The CJK index's state, from its stored definition only: the reader never runs a statement
    on it (its tokenizer is a native library; see docs/history.md)."""
    if "messages_fts_cjk" not in tables:
        return CJK_ABSENT
    meta = _state_meta(conn, tables, ("fts_cjk_stale", "fts_cjk_rebuild_high_water"))
    if str(meta.get("fts_cjk_stale") or "") == "1" or "fts_cjk_rebuild_high_water" in meta:
        return CJK_STALE
    return CJK_UNLOADABLE


@dataclass
class History:
    """One open, read-only view of a home's history, for the length of one request."""

    conn: sqlite3.Connection
    caps: Capabilities
    path: Path

    def rows(self, sql: str, params: tuple | list = ()) -> list[sqlite3.Row]:
        """All rows of ``sql``: fetched to the end, so SQLite's read snapshot ends with it."""
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and not is_state_error(exc):
                raise
            raise classify(exc) from None

    def one(self, sql: str, params: tuple | list = ()) -> sqlite3.Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None


def is_state_error(exc: sqlite3.Error) -> bool:
    lowered = str(exc).lower()
    return any(w in lowered for w in ("locked", "busy", "malformed", "not a database", "corrupt", "disk i/o"))


@contextmanager
def open_history(home: Path) -> Iterator[History]:
    """A read-only ``History`` of ``home``'s ``state.db``; raises ``HistoryUnavailable``."""
    path = state_db_path(home)
    conn = _connect(path)
    try:
        try:
            caps = _capabilities(conn)
        except sqlite3.Error as exc:
            raise classify(exc) from None
        yield History(conn=conn, caps=caps, path=path)
    finally:
        conn.close()
