"""A holographic ``memory_store.db`` in the plugin's format, and writes done the plugin's way
(autocommit statements in its order, busy timeout 10 s), for tests and benches."""

from __future__ import annotations

import random
import re
import sqlite3
import struct
from pathlib import Path

TABLES = """
CREATE TABLE IF NOT EXISTS facts (fact_id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL UNIQUE,
  category TEXT DEFAULT 'general', tags TEXT DEFAULT '', trust_score REAL DEFAULT 0.5,
  retrieval_count INTEGER DEFAULT 0, helpful_count INTEGER DEFAULT 0,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, hrr_vector BLOB);
CREATE TABLE IF NOT EXISTS entities (entity_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
  entity_type TEXT DEFAULT 'unknown', aliases TEXT DEFAULT '', created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE IF NOT EXISTS fact_entities (fact_id INTEGER REFERENCES facts(fact_id),
  entity_id INTEGER REFERENCES entities(entity_id), PRIMARY KEY (fact_id, entity_id));
CREATE INDEX IF NOT EXISTS idx_facts_trust ON facts(trust_score DESC);
CREATE INDEX IF NOT EXISTS idx_facts_category ON facts(category);
CREATE INDEX IF NOT EXISTS idx_entities_name ON entities(name);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(content, tags, content=facts, content_rowid=fact_id);
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags); END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags); END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags);
  INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags); END;
CREATE TABLE IF NOT EXISTS memory_banks (bank_id INTEGER PRIMARY KEY AUTOINCREMENT, bank_name TEXT NOT NULL UNIQUE,
  vector BLOB NOT NULL, dim INTEGER NOT NULL, fact_count INTEGER DEFAULT 0,
  updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
"""
NAMES = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")
DIM = 64  # small vectors keep tests fast; the width is whatever the store holds


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=60.0, isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def create(path: Path) -> Path:
    conn = connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(TABLES)
    conn.close()
    return path


def vector(seed: str, dim: int = DIM) -> bytes:
    rng = random.Random(seed)
    return struct.pack(f"={dim}d", *(rng.uniform(0, 6.283185307179586) for _ in range(dim)))


def add_fact(conn: sqlite3.Connection, content: str, category: str = "general", *, with_vector: bool = True,
             rebuild: bool = True) -> int:
    """The plugin's add: the row, its entities (found or made), links, its vector, the bank."""
    from memory_core.external.holographic import rebuild_bank

    content = content.strip()
    try:
        fact_id = int(conn.execute("INSERT INTO facts (content, category, tags, trust_score) VALUES (?, ?, '', 0.5)",
                                   (content, category)).lastrowid or 0)
    except sqlite3.IntegrityError:
        return int(conn.execute("SELECT fact_id FROM facts WHERE content = ?", (content,)).fetchone()[0])
    for name in dict.fromkeys(m.group(1) for m in NAMES.finditer(content)):
        row = conn.execute("SELECT entity_id FROM entities WHERE name LIKE ?", (name,)).fetchone()
        entity_id = row[0] if row else conn.execute("INSERT INTO entities (name) VALUES (?)", (name,)).lastrowid
        conn.execute("INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)", (fact_id, entity_id))
    if with_vector:
        conn.execute("UPDATE facts SET hrr_vector = ? WHERE fact_id = ?", (vector(content), fact_id))
    if rebuild:
        rebuild_bank(conn, category)
    return fact_id


def remove_fact(conn: sqlite3.Connection, fact_id: int) -> bool:
    """The plugin's delete: links, the row (its trigger drops the FTS row), the bank; entities stay."""
    from memory_core.external.holographic import rebuild_bank

    row = conn.execute("SELECT category FROM facts WHERE fact_id = ?", (fact_id,)).fetchone()
    if row is None:
        return False
    conn.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
    conn.execute("DELETE FROM facts WHERE fact_id = ?", (fact_id,))
    rebuild_bank(conn, row[0])
    return True


def dump(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table, for byte-level comparisons."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()  # noqa: S608
                for t in ("facts", "entities", "fact_entities", "memory_banks")}
    finally:
        conn.close()
