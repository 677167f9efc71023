"""The file format of hermes-agent 0.19.0's ``state.db`` (schema version 22), for building
databases: the demo home, the benchmark and the tests. The reader never runs any of this on an
agent's file; it only reads (see ``memory_core.history.db``).
"""

# DDL is assembled from fixed fragments of this module only; nothing comes from input.
# ruff: noqa: S608

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

SCHEMA_VERSION = 22

# Tables, indexes, the two inline FTS5 indexes and their six triggers, as 0.19.0 creates them.
SCHEMA_SQL = """
CREATE TABLE schema_version (
    version INTEGER NOT NULL
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    session_key TEXT,
    chat_id TEXT,
    chat_type TEXT,
    thread_id TEXT,
    display_name TEXT,
    origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    cwd TEXT,
    git_branch TEXT,
    git_repo_root TEXT,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    api_call_count INTEGER DEFAULT 0,
    handoff_state TEXT,
    handoff_platform TEXT,
    handoff_error TEXT,
    compression_failure_cooldown_until REAL,
    compression_failure_error TEXT,
    compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    profile_name TEXT,
    rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    effect_disposition TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT,
    platform_message_id TEXT,
    observed INTEGER DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0,
    api_content TEXT
);
CREATE TABLE session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '',
    billing_base_url TEXT NOT NULL DEFAULT '',
    billing_mode TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '',
    api_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0,
    actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT,
    cost_source TEXT,
    first_seen REAL,
    last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
);
CREATE TABLE state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
);
CREATE TABLE gateway_routing (
    scope TEXT NOT NULL DEFAULT '',
    session_key TEXT NOT NULL,
    entry_json TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope, session_key)
);
CREATE TABLE compression_locks (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE async_delegations (
    delegation_id TEXT PRIMARY KEY,
    origin_session TEXT NOT NULL,
    origin_ui_session_id TEXT NOT NULL DEFAULT '',
    parent_session_id TEXT,
    state TEXT NOT NULL,
    dispatched_at REAL NOT NULL,
    completed_at REAL,
    updated_at REAL NOT NULL,
    event_json TEXT,
    result_json TEXT,
    delivery_state TEXT NOT NULL DEFAULT 'pending',
    delivery_attempts INTEGER NOT NULL DEFAULT 0,
    delivered_at REAL,
    owner_pid INTEGER,
    owner_started_at INTEGER,
    task_json TEXT,
    delivery_claim TEXT,
    delivery_claimed_at REAL
);
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_source_id ON sessions(source, id);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX idx_compression_locks_expires ON compression_locks(expires_at);
CREATE INDEX idx_session_model_usage_session ON session_model_usage(session_id);
CREATE INDEX idx_session_model_usage_model ON session_model_usage(model);
CREATE INDEX idx_async_delegations_delivery
    ON async_delegations(delivery_state, completed_at);
CREATE INDEX idx_messages_platform_msg_id ON messages(session_id, platform_message_id)
    WHERE platform_message_id IS NOT NULL;
CREATE INDEX idx_messages_session_active
    ON messages(session_id, active, timestamp);
CREATE INDEX idx_messages_active_null
    ON messages(active) WHERE active IS NULL;
CREATE INDEX idx_sessions_session_key
    ON sessions(session_key, started_at DESC);
CREATE INDEX idx_sessions_gateway_peer
    ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC);
CREATE INDEX idx_sessions_handoff_state
    ON sessions(handoff_state, started_at);
CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (
    new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
INSERT INTO messages_fts(rowid, content) VALUES (
    new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END;
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(
    content,
    tokenize='trigram'
);
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (
    new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_trigram_update AFTER UPDATE ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
INSERT INTO messages_fts_trigram(rowid, content) VALUES (
    new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END;
"""


def create_state_db(path: Path, *, wal: bool = True) -> sqlite3.Connection:
    """A new, empty ``state.db`` at ``path`` in 0.19.0's format; returns an open connection
    (autocommit, as the agent's own connections)."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode=" + ("WAL" if wal else "DELETE"))
    conn.execute("PRAGMA foreign_keys=ON")
    conn.executescript(SCHEMA_SQL)
    conn.execute("INSERT INTO schema_version(version) VALUES (?)", (SCHEMA_VERSION,))
    return conn


def insert_session(conn: sqlite3.Connection, *, id: str, source: str, started_at: float, **columns: object) -> str:
    """Add one ``sessions`` row (builders only: demo, benchmark, tests); on a v30 file a
    ``system_prompt`` goes to ``system_prompts`` as the agent stores it."""
    values = {"id": id, "source": source, "started_at": started_at, **columns}
    prompt = values.get("system_prompt")
    if isinstance(prompt, str) and conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'system_prompts'").fetchone():
        # A v30 file keeps prompts once, by hash; ``sessions.system_prompt`` stays NULL.
        values["system_prompt"] = None
        values["system_prompt_hash"] = store_system_prompt(conn, prompt)
    names = ", ".join(values)
    marks = ", ".join("?" * len(values))
    conn.execute(f"INSERT INTO sessions ({names}) VALUES ({marks})", tuple(values.values()))
    return id


def insert_message(conn: sqlite3.Connection, *, session_id: str, role: str, content: str | None,
                   timestamp: float, **columns: object) -> int:
    """Add one ``messages`` row as the agent does (its counters follow); returns its id."""
    values = {"session_id": session_id, "role": role, "content": content, "timestamp": timestamp, **columns}
    names = ", ".join(values)
    marks = ", ".join("?" * len(values))
    cursor = conn.execute(f"INSERT INTO messages ({names}) VALUES ({marks})", tuple(values.values()))
    calls = columns.get("tool_calls")
    count = len(json.loads(calls)) if isinstance(calls, str) else 0
    conn.execute("UPDATE sessions SET message_count = message_count + 1, tool_call_count = tool_call_count + ?"
                 " WHERE id = ?", (count, session_id))
    return int(cursor.lastrowid)


# --- Schema version 30: what agents built from the repository write (docs/history.md) ----------
#
# Two shapes carry version 30. A file the newer agent creates gets the tables below and the
# external-content search indexes; a 0.19.0 file it opens is brought to version 30 in place: the
# new columns are appended with ALTER TABLE, the new tables and indexes are added, inline system
# prompts move into ``system_prompts``, and the 0.19.0 inline FTS tables stay (only their update
# triggers are narrowed) until ``hermes sessions optimize-storage`` rebuilds them.

V30_SCHEMA_VERSION = 30
FTS_STORAGE_VERSION = 3  # state_meta 'fts_storage_version' of a file born at v30 (absent when upgraded)
TOOL_INDEX_PREFIX = 8192  # characters of a tool row that v30's main index holds
TRIGRAM_EXCLUDED_SOURCES = ("cron", "subagent")
CJK_TOKENIZER = "cjk_unicode61"

V30_TABLES_SQL = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, created_source TEXT, user_id TEXT, session_key TEXT,
    chat_id TEXT, chat_type TEXT, thread_id TEXT, display_name TEXT, origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0, model TEXT, model_config TEXT, system_prompt TEXT,
    system_prompt_hash TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
    end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0, cwd TEXT, git_branch TEXT,
    git_repo_root TEXT, git_metadata_generation INTEGER NOT NULL DEFAULT 0, billing_provider TEXT,
    billing_base_url TEXT, billing_mode TEXT, estimated_cost_usd REAL, actual_cost_usd REAL,
    cost_status TEXT, cost_source TEXT, pricing_version TEXT, title TEXT, title_source TEXT,
    last_activity_at REAL, last_activity_description TEXT, last_activity_provenance TEXT,
    api_call_count INTEGER DEFAULT 0, handoff_state TEXT, handoff_platform TEXT, handoff_error TEXT,
    compression_failure_cooldown_until REAL, compression_failure_error TEXT,
    compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    compression_ineffective_count INTEGER NOT NULL DEFAULT 0, compression_recovery_deadline REAL,
    compression_overload_streak INTEGER NOT NULL DEFAULT 0, profile_name TEXT, transport_profile TEXT,
    rewind_count INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0,
    pinned INTEGER NOT NULL DEFAULT 0, hidden INTEGER NOT NULL DEFAULT 0, last_read_at REAL, tool_names TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id),
    FOREIGN KEY (system_prompt_hash) REFERENCES system_prompts(hash)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    effect_disposition TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT,
    reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT,
    codex_message_items TEXT, platform_message_id TEXT, observed INTEGER DEFAULT 0,
    _compressed_summary INTEGER NOT NULL DEFAULT 0, active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0, api_content TEXT, display_kind TEXT, display_metadata TEXT,
    display_identity BLOB, display_order INTEGER
);
CREATE TABLE session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '', billing_base_url TEXT NOT NULL DEFAULT '',
    billing_mode TEXT NOT NULL DEFAULT '', task TEXT NOT NULL DEFAULT '',
    api_call_count INTEGER NOT NULL DEFAULT 0, input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0, cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0, reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0, actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT, cost_source TEXT, first_seen REAL, last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
);
CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE gateway_routing (
    scope TEXT NOT NULL DEFAULT '', session_key TEXT NOT NULL, entry_json TEXT NOT NULL,
    updated_at REAL NOT NULL, PRIMARY KEY (scope, session_key)
);
CREATE TABLE gateway_hygiene_state (session_key TEXT PRIMARY KEY, failure_streak INTEGER NOT NULL DEFAULT 0);
CREATE TABLE conversation_generations (
    source TEXT NOT NULL, session_key TEXT NOT NULL, generation INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (source, session_key)
);
CREATE TABLE gateway_heartbeats (
    backend_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, started_at REAL NOT NULL,
    last_heartbeat REAL NOT NULL, profile TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT ''
);
CREATE TABLE compression_locks (
    session_id TEXT PRIMARY KEY, holder TEXT NOT NULL, acquired_at REAL NOT NULL, expires_at REAL NOT NULL
);
CREATE TABLE session_turn_leases (
    conversation_id TEXT PRIMARY KEY, holder TEXT NOT NULL, acquired_at REAL NOT NULL, expires_at REAL NOT NULL
);
CREATE TABLE async_delegations (
    delegation_id TEXT PRIMARY KEY, origin_session TEXT NOT NULL, origin_ui_session_id TEXT NOT NULL DEFAULT '',
    parent_session_id TEXT, state TEXT NOT NULL, dispatched_at REAL NOT NULL, completed_at REAL,
    updated_at REAL NOT NULL, event_json TEXT, result_json TEXT, delivery_state TEXT NOT NULL DEFAULT 'pending',
    delivery_attempts INTEGER NOT NULL DEFAULT 0, delivered_at REAL, owner_pid INTEGER, owner_started_at INTEGER,
    task_json TEXT, delivery_claim TEXT, delivery_claimed_at REAL, origin_session_id TEXT NOT NULL DEFAULT ''
);
"""

# Indexes (and the display-order trigger) v30 adds over columns that an upgraded file gains late.
V30_INDEX_SQL = """
CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source);
CREATE INDEX IF NOT EXISTS idx_sessions_source_id ON sessions(source, id);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX IF NOT EXISTS idx_messages_session_id ON messages(session_id, id);
CREATE INDEX IF NOT EXISTS idx_messages_assistant_calls_by_session ON messages(session_id)
    WHERE role = 'assistant' AND tool_calls IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_compression_locks_expires ON compression_locks(expires_at);
CREATE INDEX IF NOT EXISTS idx_session_turn_leases_expires ON session_turn_leases(expires_at);
CREATE INDEX IF NOT EXISTS idx_session_model_usage_session ON session_model_usage(session_id);
CREATE INDEX IF NOT EXISTS idx_session_model_usage_model ON session_model_usage(model);
CREATE INDEX IF NOT EXISTS idx_async_delegations_delivery ON async_delegations(delivery_state, completed_at);
CREATE INDEX IF NOT EXISTS idx_messages_session_active ON messages(session_id, active, timestamp);
CREATE INDEX IF NOT EXISTS idx_messages_display_page
    ON messages(session_id, display_order, active DESC, id DESC) WHERE active = 1 OR compacted = 1;
CREATE INDEX IF NOT EXISTS idx_messages_display_identity
    ON messages(session_id, display_identity, display_order)
    WHERE display_identity IS NOT NULL AND (active = 1 OR compacted = 1);
CREATE INDEX IF NOT EXISTS idx_messages_active_null ON messages(active) WHERE active IS NULL;
CREATE INDEX IF NOT EXISTS idx_sessions_session_key ON sessions(session_key, started_at DESC);
CREATE INDEX IF NOT EXISTS idx_sessions_gateway_peer
    ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC);
CREATE INDEX IF NOT EXISTS idx_sessions_handoff_state ON sessions(handoff_state, started_at);
CREATE INDEX IF NOT EXISTS idx_sessions_system_prompt_hash ON sessions(system_prompt_hash);
CREATE INDEX IF NOT EXISTS idx_sessions_tool_names ON sessions(tool_names);
CREATE INDEX IF NOT EXISTS idx_sessions_effective_activity
    ON sessions(COALESCE(last_activity_at, started_at) DESC, started_at DESC);
CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
-- A row written without a display position takes its own id (rows that share a display identity
-- take the first one's; the builders here never share one).
CREATE TRIGGER IF NOT EXISTS messages_display_order_insert AFTER INSERT ON messages
WHEN new.display_order IS NULL
BEGIN
    UPDATE messages SET display_order = new.id WHERE id = new.id;
END;
"""

# What a row puts into an index, as a WHERE-able predicate on ``s`` (sessions) for the trigram one.
_TRIGRAM_SESSION = ("{s}.source NOT IN ('cron', 'subagent') AND json_extract(CASE WHEN json_valid({s}.model_config)"
                    " THEN {s}.model_config ELSE '{{}}' END, '$._delegate_from') IS NULL")
_TOOL_PREFIX = f"CASE WHEN {{r}}.role = 'tool' THEN substr(COALESCE({{r}}.content, ''), 1, {TOOL_INDEX_PREFIX})" \
               " ELSE {r}.content END"

# The main index reads a view that cuts tool rows; the trigram index reads a view without tool
# rows and without cron, subagent and delegated sessions. Both are "external content": the text
# lives in ``messages`` and the index only holds tokens.
V30_FTS_SQL = f"""
CREATE VIEW messages_fts_src AS
    SELECT id, {_TOOL_PREFIX.format(r='messages')} AS content, tool_name, tool_calls FROM messages;
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, tool_name, tool_calls, content='messages_fts_src', content_rowid='id'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
    VALUES (new.id, {_TOOL_PREFIX.format(r='new')}, new.tool_name, new.tool_calls);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, {_TOOL_PREFIX.format(r='old')}, old.tool_name, old.tool_calls);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, tool_name, tool_calls, role ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, {_TOOL_PREFIX.format(r='old')}, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
    VALUES (new.id, {_TOOL_PREFIX.format(r='new')}, new.tool_name, new.tool_calls);
END;
CREATE VIEW messages_fts_trigram_src AS
    SELECT m.id, m.role, m.content, m.tool_name FROM messages AS m JOIN sessions AS s ON s.id = m.session_id
    WHERE m.role <> 'tool' AND {_TRIGRAM_SESSION.format(s='s')};
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(
    content, tool_name, content='messages_fts_trigram_src', content_rowid='id', tokenize='trigram'
);
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages
WHEN new.role <> 'tool' AND EXISTS (SELECT 1 FROM sessions AS s WHERE s.id = new.session_id
                                    AND {_TRIGRAM_SESSION.format(s='s')})
BEGIN
    INSERT INTO messages_fts_trigram(rowid, content, tool_name) VALUES (new.id, new.content, new.tool_name);
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages
WHEN old.role <> 'tool' AND EXISTS (SELECT 1 FROM sessions AS s WHERE s.id = old.session_id
                                    AND {_TRIGRAM_SESSION.format(s='s')})
BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name)
    VALUES ('delete', old.id, old.content, old.tool_name);
END;
"""

# The CJK index: bigrams of CJK runs from the agent's loadable ``cjk_unicode61`` tokenizer, over
# every non-tool row. ``{tokenizer}`` is that name in a real file; see ``make_cjk_tokenizer_unloadable``.
V30_CJK_SQL = """
CREATE VIEW messages_fts_cjk_src AS
    SELECT id, role, content, tool_name, tool_calls FROM messages WHERE role <> 'tool';
CREATE VIRTUAL TABLE messages_fts_cjk USING fts5(
    content, tool_name, tool_calls, content='messages_fts_cjk_src', content_rowid='id', tokenize='{tokenizer}'
);
CREATE TRIGGER messages_fts_cjk_insert AFTER INSERT ON messages WHEN new.role <> 'tool' BEGIN
    INSERT INTO messages_fts_cjk(rowid, content, tool_name, tool_calls)
    VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;
CREATE TRIGGER messages_fts_cjk_delete AFTER DELETE ON messages WHEN old.role <> 'tool' BEGIN
    INSERT INTO messages_fts_cjk(messages_fts_cjk, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
END;
"""

# The 0.19.0 inline indexes' update triggers as a v30 agent narrows them on an upgraded file: they
# fire only when the indexed columns change, and a tool row is re-indexed by its first 8,192
# characters (rows written by 0.19.0 keep their whole text in the index).
_LEGACY_INDEXED = (f"COALESCE({_TOOL_PREFIX.format(r='new')}, '') || ' ' || COALESCE(new.tool_name, '')"
                   " || ' ' || COALESCE(new.tool_calls, '')")
V30_LEGACY_TRIGGER_SQL = f"""
DROP TRIGGER IF EXISTS messages_fts_insert;
DROP TRIGGER IF EXISTS messages_fts_update;
DROP TRIGGER IF EXISTS messages_fts_trigram_insert;
DROP TRIGGER IF EXISTS messages_fts_trigram_update;
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, {_LEGACY_INDEXED});
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, tool_name, tool_calls, role ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, {_LEGACY_INDEXED});
END;
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, {_LEGACY_INDEXED});
END;
CREATE TRIGGER messages_fts_trigram_update AFTER UPDATE OF content, tool_name, tool_calls, role ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, {_LEGACY_INDEXED});
END;
"""

# Stand-in tokenizer a CJK table is built with before it is relabelled (see below).
_STAND_IN_TOKENIZER = "unicode61"


def create_state_db_v30(path: Path, *, wal: bool = True, cjk_table: bool = False) -> sqlite3.Connection:
    """A new, empty ``state.db`` as a v30 agent creates it; autocommit connection.

    ``cjk_table`` adds the CJK index as an agent that could load its tokenizer library creates it.
    Nothing here can load that library, so the table is built with a stand-in tokenizer; call
    ``make_cjk_tokenizer_unloadable`` once the file is filled to give it its real tokenizer name."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode=" + ("WAL" if wal else "DELETE"))
    conn.execute("PRAGMA foreign_keys=ON")
    conn.executescript(V30_TABLES_SQL)
    conn.executescript(V30_INDEX_SQL)
    conn.executescript(V30_FTS_SQL)
    if cjk_table:
        conn.executescript(V30_CJK_SQL.format(tokenizer=_STAND_IN_TOKENIZER))
    conn.execute("INSERT INTO schema_version(version) VALUES (?)", (V30_SCHEMA_VERSION,))
    conn.execute("INSERT INTO state_meta(key, value) VALUES ('fts_storage_version', ?)", (str(FTS_STORAGE_VERSION),))
    return conn


def make_cjk_tokenizer_unloadable(conn: sqlite3.Connection) -> None:
    """Give the CJK index its real tokenizer name, ``cjk_unicode61``, so the file reads exactly
    like one written by an agent that had its tokenizer library, to a reader that has not.

    SQLite cannot create a table with a tokenizer it cannot load, so the stored definition is
    rewritten in place (``PRAGMA writable_schema``): the index's shadow tables, triggers and view
    stay as they were. Any later write to ``messages`` on this file fails, as it would for an agent
    without the library that has not yet dropped the CJK triggers; fill the file first."""
    conn.execute("PRAGMA writable_schema = ON")
    try:
        conn.execute("BEGIN")
        conn.execute("UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?",
                     (f"tokenize='{_STAND_IN_TOKENIZER}'", f"tokenize='{CJK_TOKENIZER}'", "messages_fts_cjk"))
        # The schema cookie tells every connection (this one included) to re-read the schema.
        cookie = conn.execute("PRAGMA schema_version").fetchone()[0]
        conn.execute(f"PRAGMA schema_version = {int(cookie) + 1}")
        conn.execute("COMMIT")
    finally:
        conn.execute("PRAGMA writable_schema = OFF")


def _table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]


def upgrade_to_v30(conn: sqlite3.Connection) -> None:
    """Bring a 0.19.0 file to version 30 in place, as a v30 agent does when it first opens it:
    missing tables are created, missing columns appended (``ALTER TABLE ... ADD COLUMN``), inline
    system prompts moved to ``system_prompts``, the new indexes added, and the 0.19.0 inline FTS
    tables kept, their insert/update triggers narrowed."""
    reference = sqlite3.connect(":memory:")
    reference.executescript(V30_TABLES_SQL)
    definitions = {name: sql for name, sql in reference.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
    present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.execute("BEGIN")
    for table, sql in definitions.items():
        if table not in present:
            conn.execute(sql)
            continue
        have = set(_table_columns(conn, table))
        for row in reference.execute(f"PRAGMA table_info({table})"):
            _cid, name, kind, notnull, default, _pk = tuple(row)
            if name in have:
                continue
            clause = f"{name} {kind}"
            if notnull:
                clause += " NOT NULL"
            if default is not None:
                clause += f" DEFAULT {default}"
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {clause}")
    reference.close()
    for session_id, prompt in conn.execute(
            "SELECT id, system_prompt FROM sessions WHERE system_prompt IS NOT NULL").fetchall():
        digest = store_system_prompt(conn, prompt)
        conn.execute("UPDATE sessions SET system_prompt_hash = ?, system_prompt = NULL WHERE id = ?",
                     (digest, session_id))
    # Statement by statement: executescript would commit the open transaction.
    for statement in _statements(V30_INDEX_SQL) + _statements(V30_LEGACY_TRIGGER_SQL):
        conn.execute(statement)
    conn.execute("UPDATE schema_version SET version = ?", (V30_SCHEMA_VERSION,))
    conn.execute("COMMIT")


def _statements(script: str) -> list[str]:
    """Split a DDL script into statements (triggers hold ``;`` inside BEGIN ... END)."""
    out, buffer = [], ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            out.append(buffer.strip())
            buffer = ""
    return [s for s in out if s.strip(" ;\n")]


def store_system_prompt(conn: sqlite3.Connection, prompt: str) -> str:
    """Put ``prompt`` into v30's content-addressed ``system_prompts``; returns its key."""
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
    conn.execute("INSERT OR IGNORE INTO system_prompts(hash, prompt) VALUES (?, ?)", (digest, prompt))
    return digest
