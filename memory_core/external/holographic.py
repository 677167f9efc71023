"""The holographic provider's fact store (``memory_store.db``), read and cleaned the plugin's way.

Facts the code relies on are in docs/provider_contents.md. In short:

- Reads never write. The plugin's own search bumps ``retrieval_count``; ours are plain SELECTs on a
  read-only connection. Opening a WAL database ``mode=ro`` makes SQLite create ``-wal`` and ``-shm``
  beside it and leave them there (a read-only connection cannot remove them), so when no ``-wal``
  exists (no writer has the file open) we read with ``immutable=1``, which creates nothing, and
  accept that read only if the file and its neighbours are exactly as before; otherwise, and
  whenever a writer is live (its ``-wal``/``-shm`` already exist), a normal ``mode=ro`` read.
- Writes take SQLite's write lock (``BEGIN IMMEDIATE``, busy timeout 10 s like the plugin) and do
  the whole delete in one transaction: the plugin's triggers drop the FTS row, the bank of the
  fact's category is rebuilt exactly as the plugin rebuilds it, and entities only this fact used
  are removed (the plugin leaves them behind).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import sqlite3
import struct
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import yaml

from memory_core.external.base import ContentsError, Item, NotFound, Page, Query, Removed

NAME = "holographic"
DEFAULT_FILE = "memory_store.db"
BUSY_TIMEOUT_SECONDS = 10.0  # the plugin's own
CATEGORY_OF_TARGET = {"memory": "general", "user": "user_pref"}
TARGET_OF_CATEGORY = {v: k for k, v in CATEGORY_OF_TARGET.items()}
_TWO_PI = 2.0 * math.pi
_FACT_COLUMNS = ("fact_id", "content", "category", "tags", "trust_score", "retrieval_count", "helpful_count",
                 "created_at", "updated_at")
_TOKEN = re.compile(r"\w+", re.UNICODE)
_IMMUTABLE_TRIES = 3
COUNT_CAP = 1000
T = TypeVar("T")


def db_path(home: Path) -> Path:
    """``plugins.hermes-memory-store.db_path`` of config.yaml (``$HERMES_HOME`` expanded), else the default."""
    home = Path(home)
    configured = ""
    try:
        document = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        document = {}
    plugins = document.get("plugins") if isinstance(document, dict) else None
    section = plugins.get("hermes-memory-store") if isinstance(plugins, dict) else None
    if isinstance(section, dict) and isinstance(section.get("db_path"), str):
        configured = section["db_path"].strip()
    if not configured:
        return home / DEFAULT_FILE
    configured = configured.replace("${HERMES_HOME}", str(home)).replace("$HERMES_HOME", str(home))
    path = Path(configured).expanduser()
    return path if path.is_absolute() else home / path


# --- the bank, as the plugin computes it --------------------------------------------------------


def bundle(blobs: Sequence[bytes]) -> bytes:
    """The plugin's ``bundle``: the angle of the sum of ``e^(i·phase)`` over the vectors, taken in
    row order, then ``mod 2π``; float64 in the machine's byte order. numpy is not needed."""
    try:  # optional: with numpy the bytes are the plugin's own, to the last bit
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        phases = [np.frombuffer(blob, dtype=np.float64) for blob in blobs]
        return bytes((np.angle(np.sum([np.exp(1j * p) for p in phases], axis=0)) % _TWO_PI).tobytes())
    # Without numpy: the same sums in the same order; libm's atan2 and numpy's arctan2 may differ
    # in the last bit of some components (docs/provider_contents.md).
    dim = len(blobs[0]) // 8
    fmt = f"={dim}d"
    real = [0.0] * dim
    imag = [0.0] * dim
    for blob in blobs:
        phases = struct.unpack(fmt, blob)
        real = list(map(float.__add__, real, map(math.cos, phases)))
        imag = list(map(float.__add__, imag, map(math.sin, phases)))
    return struct.pack(fmt, *(math.atan2(i, r) % _TWO_PI for r, i in zip(real, imag, strict=True)))


def _bank_inputs(conn: sqlite3.Connection, category: str) -> list[bytes]:
    blobs = [row[0] for row in conn.execute(
        "SELECT hrr_vector FROM facts WHERE category = ? AND hrr_vector IS NOT NULL", (category,))]
    blobs = [b for b in blobs if isinstance(b, bytes) and len(b) % 8 == 0 and len(b) > 0]
    return [b for b in blobs if len(b) == len(blobs[0])] if blobs else []


def _bank_signature(conn: sqlite3.Connection, category: str) -> tuple[Any, ...]:
    """Which facts of the category carry a vector, and when they last changed (cheap: the index)."""
    return tuple(conn.execute(
        "SELECT COUNT(*), TOTAL(fact_id), MAX(updated_at), TOTAL(length(hrr_vector)) FROM facts"
        " WHERE category = ? AND hrr_vector IS NOT NULL", (category,)).fetchone())


def rebuild_bank(conn: sqlite3.Connection, category: str) -> None:
    """What the plugin's ``_rebuild_bank`` leaves: one ``cat:<category>`` row bundling every vector
    of the category, or no row when none is left. Vectors of another width than the first are
    skipped (the plugin could not bundle them either). On the caller's connection and transaction."""
    blobs = _bank_inputs(conn, category)
    _write_bank(conn, category, blobs, bundle(blobs) if blobs else None)


def _write_bank(conn: sqlite3.Connection, category: str, blobs: list[bytes], vector: bytes | None) -> None:
    name = f"cat:{category}"
    if vector is None:
        conn.execute("DELETE FROM memory_banks WHERE bank_name = ?", (name,))
        return
    conn.execute(
        "INSERT INTO memory_banks (bank_name, vector, dim, fact_count, updated_at)"
        " VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)"
        " ON CONFLICT(bank_name) DO UPDATE SET vector = excluded.vector, dim = excluded.dim,"
        " fact_count = excluded.fact_count, updated_at = excluded.updated_at",
        (name, vector, len(blobs[0]) // 8, len(blobs)))


# --- a fact's vector and entities, as the plugin computes them ---------------------------------

# The plugin's entity rules, in its order: capitalised multi-word names, "double" and 'single'
# quoted terms, "X aka Y" / "X also known as Y" (both sides); first seen wins, case ignored.
_ENTITY_RULES = (
    (re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b"), (1,)),
    (re.compile(r'"([^"]+)"'), (1,)),
    (re.compile(r"'([^']+)'"), (1,)),
    (re.compile(r"(\w+(?:\s+\w+)*)\s+(?:aka|also known as)\s+(\w+(?:\s+\w+)*)", re.IGNORECASE), (1, 2)),
)
_WORD_EDGES = ".,!?;:\"'()[]{}"


def extract_entities(text: str) -> list[str]:
    seen: set[str] = set()
    names: list[str] = []
    for pattern, groups in _ENTITY_RULES:
        for match in pattern.finditer(text):
            for group in groups:
                name = match.group(group).strip()
                if name and name.lower() not in seen:
                    seen.add(name.lower())
                    names.append(name)
    return names


def _atom(word: str, dim: int) -> list[float]:
    """A word's phase vector: SHA-256 of ``word:i`` for i = 0, 1, ..., read as little-endian
    16-bit numbers, scaled to [0, 2π)."""
    values: list[int] = []
    for block in range(-(-dim // 16)):
        values.extend(struct.unpack("<16H", hashlib.sha256(f"{word}:{block}".encode()).digest()))
    return [v * (_TWO_PI / 65536.0) for v in values[:dim]]


def _bind(a: Sequence[float], b: Sequence[float]) -> list[float]:
    return [(x + y) % _TWO_PI for x, y in zip(a, b, strict=True)]


def _bundle(vectors: Sequence[Sequence[float]]) -> list[float]:
    dim = len(vectors[0])
    real = [0.0] * dim
    imag = [0.0] * dim
    for phases in vectors:
        real = list(map(float.__add__, real, map(math.cos, phases)))
        imag = list(map(float.__add__, imag, map(math.sin, phases)))
    return [math.atan2(i, r) % _TWO_PI for r, i in zip(real, imag, strict=True)]


def fact_vector(content: str, entities: Sequence[str], dim: int) -> bytes:
    """The plugin's vector of a fact: the text's bag of word atoms bound to the content role, each
    entity's atom bound to the entity role, all bundled (docs/provider_contents.md)."""
    tokens = [t for t in (w.strip(_WORD_EDGES) for w in content.lower().split()) if t]
    text = _bundle([_atom(t, dim) for t in tokens]) if tokens else _atom("__hrr_empty__", dim)
    parts = [_bind(text, _atom("__hrr_role_content__", dim))]
    role_entity = _atom("__hrr_role_entity__", dim)
    parts.extend(_bind(_atom(name.lower(), dim), role_entity) for name in entities)
    return struct.pack(f"={dim}d", *_bundle(parts))


# --- connections --------------------------------------------------------------------------------


def _stamp(path: Path) -> tuple[Any, ...]:
    def one(p: Path) -> tuple[int, int, int] | None:
        try:
            st = os.stat(p)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    return tuple(one(Path(f"{path}{suffix}")) for suffix in ("", "-wal", "-shm", "-journal"))


def _classify(exc: sqlite3.Error) -> ContentsError:
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return ContentsError("The agent is writing to its fact store right now; try again in a moment.", code="busy")
    if "not a database" in text or "malformed" in text:
        return ContentsError("memory_store.db is damaged or is not a database.", code="damaged")
    if "no such table" in text or "no such column" in text:
        return ContentsError("memory_store.db is not in the shape the holographic plugin writes.", code="shape")
    return ContentsError("memory_store.db could not be read.", code="unreadable")


def _open(uri: str) -> sqlite3.Connection:
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                           check_same_thread=False)
    conn.execute("PRAGMA query_only = 1")
    return conn


class HolographicStore:
    name = NAME
    local_files = True  # its whole store is in fingerprint_paths(): their stat tells a change

    def __init__(self, *, home: Path, path: Path | None = None) -> None:
        self.home = Path(home)
        self.path = Path(path) if path is not None else db_path(self.home)

    # -- plumbing --

    def exists(self) -> bool:
        return self.path.is_file()

    def fingerprint_paths(self) -> Sequence[str]:
        return [str(self.path), f"{self.path}-wal"]

    def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if not self.path.exists():
            raise ContentsError("There is no memory_store.db yet: the agent has not stored a fact.", code="missing")
        base = quote(str(self.path.absolute()))
        try:
            for _ in range(_IMMUTABLE_TRIES):
                before = _stamp(self.path)
                if before[1] is not None or before[3] is not None:
                    break  # a writer is live (WAL) or mid-transaction (rollback journal)
                conn = _open(f"file:{base}?mode=ro&immutable=1")
                try:
                    result = work(conn)
                finally:
                    conn.close()
                if _stamp(self.path) == before:
                    return result
            conn = _open(f"file:{base}?mode=ro")
            try:
                return work(conn)
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise _classify(exc) from None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        if not self.path.is_file():
            raise ContentsError("There is no memory_store.db: nothing to change.", code="missing")
        try:
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        except sqlite3.Error as exc:
            raise _classify(exc) from None
        try:
            conn.row_factory = sqlite3.Row
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _classify(exc) from None
        finally:
            conn.close()

    # -- reads --

    def filter_choices(self) -> Mapping[str, Sequence[str]]:
        if not self.exists():
            return {"category": []}

        def work(conn: sqlite3.Connection) -> Mapping[str, Sequence[str]]:
            # One index probe per category (a skip scan), not a walk over every fact.
            rows = conn.execute(
                "WITH RECURSIVE c(x) AS (SELECT MIN(category) FROM facts UNION ALL"
                " SELECT (SELECT MIN(category) FROM facts WHERE category > c.x) FROM c WHERE c.x IS NOT NULL)"
                " SELECT x FROM c WHERE x IS NOT NULL").fetchall()
            return {"category": [r[0] for r in rows]}

        return self._read(work)

    def list(self, query: Query) -> Page:
        where: list[str] = []
        params: list[Any] = []
        category = (query.filters.get("category") or "").strip()
        if category:
            where.append("f.category = ?")
            params.append(category)
        min_trust = _as_float(query.filters.get("min_trust"))
        if min_trust is not None:
            where.append("f.trust_score >= ?")
            params.append(min_trust)
        max_trust = _as_float(query.filters.get("max_trust"))
        if max_trust is not None:
            where.append("f.trust_score <= ?")
            params.append(max_trust)
        entity = (query.filters.get("entity") or "").strip()
        if entity:
            where.append("EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.fact_id = f.fact_id AND fe.entity_id IN"
                         " (SELECT entity_id FROM entities WHERE name = ? COLLATE NOCASE))")
            params.append(entity)
        search = query.search.strip()
        match = _fts_query(search)

        def run(conn: sqlite3.Connection, use_fts: bool) -> Page:
            clauses = list(where)
            args = list(params)
            source = "facts f"
            order = "f.fact_id DESC"
            if search and use_fts and match:
                source = "facts_fts JOIN facts f ON f.fact_id = facts_fts.rowid"
                clauses.append("facts_fts MATCH ?")
                args.append(match)
                order = "facts_fts.rowid DESC"  # FTS5 walks its rowids backwards: no sort of every hit
            elif search:
                clauses.append("f.content LIKE ? ESCAPE '\\'")
                args.append("%" + _like_escape(search) + "%")
            sql_where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
            # Counting stops past COUNT_CAP: a word in a third of 100,000 facts need not be counted exactly.
            capping = bool(search or entity or min_trust is not None or max_trust is not None)
            if capping:
                total = conn.execute(f"SELECT COUNT(*) FROM (SELECT 1 FROM {source}{sql_where} LIMIT ?)",  # noqa: S608
                                     [*args, COUNT_CAP + 1]).fetchone()[0]
            else:  # the whole table or one category (indexed): exact and cheap
                total = conn.execute(f"SELECT COUNT(*) FROM {source}{sql_where}", args).fetchone()[0]  # noqa: S608
            rows = conn.execute(
                f"SELECT {', '.join('f.' + c for c in _FACT_COLUMNS)} FROM {source}{sql_where}"  # noqa: S608
                f" ORDER BY {order} LIMIT ? OFFSET ?", [*args, query.per_page, query.offset]).fetchall()
            entities = _entities_of(conn, [r[0] for r in rows])
            more = capping and total > COUNT_CAP
            if more and len(rows) == query.per_page:
                more_after = conn.execute(f"SELECT 1 FROM {source}{sql_where} LIMIT 1 OFFSET ?",  # noqa: S608
                                          [*args, query.offset + query.per_page]).fetchone() is not None
            else:
                more_after = False
            items = [_item(r, entities.get(r[0], [])) for r in rows]
            return Page(items=items, total=min(int(total), COUNT_CAP) if more else int(total), query=query,
                        capped=more, more_after=more_after)

        def work(conn: sqlite3.Connection) -> Page:
            try:
                return run(conn, True)
            except sqlite3.OperationalError as exc:
                if "fts" not in str(exc).lower() and "match" not in str(exc).lower():
                    raise
                return run(conn, False)  # an FTS index the plugin did not make (or none): plain LIKE

        return self._read(work)

    def get(self, item_id: str) -> Item:
        fact_id = _fact_id(item_id)

        def work(conn: sqlite3.Connection) -> Item:
            row = conn.execute(f"SELECT {', '.join(_FACT_COLUMNS)}, length(hrr_vector) FROM facts"  # noqa: S608
                               " WHERE fact_id = ?", (fact_id,)).fetchone()
            if row is None:
                raise NotFound()
            item = _item(row, _entities_of(conn, [fact_id]).get(fact_id, []))
            details = dict(item.details)
            details["vector_bytes"] = row[len(_FACT_COLUMNS)] or 0
            return Item(id=item.id, text=item.text, group=item.group, details=details)

        return self._read(work)

    def mirrors(self, entries: Mapping[str, Sequence[str]]) -> dict[tuple[str, str], Item]:
        """Each built-in entry → its fact: content equal to the trimmed entry, in the target's category."""
        if not self.exists():
            return {}

        def work(conn: sqlite3.Connection) -> dict[tuple[str, str], Item]:
            found: dict[tuple[str, str], Item] = {}
            for target, texts in entries.items():
                category = CATEGORY_OF_TARGET.get(target)
                if category is None:
                    continue
                by_trimmed: dict[str, list[str]] = {}
                for text in texts:
                    by_trimmed.setdefault(text.strip(), []).append(text)
                keys = [k for k in by_trimmed if k]
                for start in range(0, len(keys), 500):
                    chunk = keys[start:start + 500]
                    marks = ",".join("?" * len(chunk))
                    for row in conn.execute(f"SELECT {', '.join(_FACT_COLUMNS)} FROM facts"  # noqa: S608
                                            # "+category": look up by the unique content index, never
                                            # walk the category's index (a quarter of the facts)
                                            f" WHERE content IN ({marks}) AND +category = ?", [*chunk, category]):
                        for original in by_trimmed[row[1]]:
                            found[(target, original)] = _item(row, [])
            return found

        return self._read(work)

    def copies_without_entry(self, entries: Mapping[str, Sequence[str]], *, limit: int = 500) -> list[Item]:
        """Facts in a mirror category (``general``, ``user_pref``) whose text is no current entry of
        that store. Some may be facts the agent stored on its own in those categories; the panel
        says which ones it saw in the built-in store before."""
        if not self.exists():
            return []
        present = {CATEGORY_OF_TARGET[t]: {e.strip() for e in texts} for t, texts in entries.items()
                   if t in CATEGORY_OF_TARGET}

        def work(conn: sqlite3.Connection) -> list[Item]:
            found: list[Item] = []
            for r in conn.execute(f"SELECT {', '.join(_FACT_COLUMNS)} FROM facts"  # noqa: S608
                                  # "+category": walk the table in id order and stop at the limit
                                  " WHERE +category IN ('general', 'user_pref') ORDER BY fact_id"):
                if r[1] not in present.get(r[2], set()):
                    found.append(_item(r, []))
                    if len(found) >= limit:
                        break
            return found

        return self._read(work)

    # -- writes --

    def rebuild_bank(self, category: str) -> None:
        """The category's bank as the plugin would rebuild it, computed OUTSIDE the write lock (a
        large category takes seconds without numpy, and the agent's writes wait at most 10 s):
        vectors read from a snapshot, the bank written in a short transaction only if the
        category's vectors are still the ones read. If the agent changed them meanwhile, its own
        add or delete rebuilt the bank after ours, from a store that already lacked our fact."""
        try:
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        except sqlite3.Error as exc:
            raise _classify(exc) from None
        try:
            conn.execute("BEGIN")
            seen = _bank_signature(conn, category)
            blobs = _bank_inputs(conn, category)
            conn.execute("COMMIT")
            vector = bundle(blobs) if blobs else None
            conn.execute("BEGIN IMMEDIATE")
            if _bank_signature(conn, category) != seen:
                conn.execute("ROLLBACK")
                return
            _write_bank(conn, category, blobs, vector)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise _classify(exc) from None
        finally:
            conn.close()

    def delete_many(self, item_ids: Sequence[str]) -> tuple[list[Removed], list[tuple[str, ContentsError]]]:
        """Each fact on its own (one that is gone is reported, the rest still go); each touched
        category's bank rebuilt once at the end, not once per fact."""
        removed: list[Removed] = []
        failed: list[tuple[str, ContentsError]] = []
        for item_id in item_ids:
            try:
                removed.append(self.delete(item_id, rebuild=False))
            except ContentsError as exc:
                failed.append((item_id, exc))
        for category in dict.fromkeys(r.item.group for r in removed if r.undo and r.undo.get("hrr_vector")):
            self.rebuild_bank(category)
        return removed, failed

    def delete(self, item_id: str, *, expected: str | None = None, rebuild: bool = True) -> Removed:
        """``expected``: the ``version`` the person saw; a fact changed since is not deleted."""
        fact_id = _fact_id(item_id)
        with self._write() as conn:
            row = _fact_as_seen(conn, fact_id, expected, nothing="deleted")
            linked = conn.execute(
                "SELECT e.entity_id, e.name, e.entity_type, e.aliases, e.created_at FROM fact_entities fe"
                " JOIN entities e ON e.entity_id = fe.entity_id WHERE fe.fact_id = ? ORDER BY e.entity_id",
                (fact_id,)).fetchall()
            link_ids = [r[0] for r in conn.execute("SELECT entity_id FROM fact_entities WHERE fact_id = ?",
                                                   (fact_id,))]
            conn.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
            conn.execute("DELETE FROM facts WHERE fact_id = ?", (fact_id,))  # facts_ad drops the FTS row
            # fact_entities has no index on entity_id (the plugin's schema): one pass for all of them.
            ids = [r[0] for r in linked]
            still_used = {r[0] for r in conn.execute(
                f"SELECT DISTINCT entity_id FROM fact_entities WHERE entity_id IN ({','.join('?' * len(ids))})",  # noqa: S608
                ids)} if ids else set()
            orphans = [dict(r) for r in linked if r[0] not in still_used]
            for entity in orphans:
                conn.execute("DELETE FROM entities WHERE entity_id = ?", (entity["entity_id"],))
        # A fact without a vector is in no bank: the bundle of the others is what it was.
        if rebuild and row["hrr_vector"] is not None:
            self.rebuild_bank(row["category"])
        item = _item(row, [r[1] for r in linked])
        fact = {c: row[c] for c in _FACT_COLUMNS}
        vector = row["hrr_vector"]
        undo = {"fact": fact, "hrr_vector": vector.hex() if isinstance(vector, bytes) else None,
                "links": link_ids, "entities": orphans}
        notes = [f"entities removed: {len(orphans)}"] if orphans else []
        return Removed(item=item, undo=undo, notes=notes)

    def replace_text(self, item_id: str, text: str, *, expected: str | None = None, old: str = "") -> Item:
        """The fact's text changed the way the plugin's own ``update`` does it: same id, trust,
        counts and creation time; ``updated_at`` now; its entity links re-extracted from the new
        text; its vector recomputed (when it had one) and its bank rebuilt. Entities only the old
        text used are removed, as the panel's delete does. Refused (nothing changed) when the fact
        changed since ``expected`` or another fact already holds the new text. ``old`` is not
        needed: the fact's whole text is the entry's."""
        fact_id = _fact_id(item_id)
        content = text.strip()
        if not content:
            raise ContentsError("The new text is empty.", code="empty")
        with self._write() as conn:
            row = _fact_as_seen(conn, fact_id, expected, nothing="changed")
            clash = conn.execute("SELECT fact_id FROM facts WHERE content = ? AND fact_id != ?",
                                 (content, fact_id)).fetchone()
            if clash is not None:
                raise ContentsError(f"Fact {clash[0]} already holds the new text.", code="clash")
            old_links = [r[0] for r in conn.execute("SELECT entity_id FROM fact_entities WHERE fact_id = ?",
                                                    (fact_id,))]
            conn.execute("UPDATE facts SET content = ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?",
                         (content, fact_id))  # facts_au swaps the FTS row
            conn.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
            for name in extract_entities(content):
                conn.execute("INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)",
                             (fact_id, _resolve_entity(conn, name)))
            still_used = {r[0] for r in conn.execute(
                f"SELECT DISTINCT entity_id FROM fact_entities WHERE entity_id IN ({','.join('?' * len(old_links))})",  # noqa: S608
                old_links)} if old_links else set()
            for entity_id in old_links:
                if entity_id not in still_used:
                    conn.execute("DELETE FROM entities WHERE entity_id = ?", (entity_id,))
            old_vector = row["hrr_vector"]
            if isinstance(old_vector, bytes) and old_vector and len(old_vector) % 8 == 0:
                names = [r[0] for r in conn.execute(
                    "SELECT e.name FROM entities e JOIN fact_entities fe ON fe.entity_id = e.entity_id"
                    " WHERE fe.fact_id = ?", (fact_id,))]
                conn.execute("UPDATE facts SET hrr_vector = ? WHERE fact_id = ?",
                             (fact_vector(content, names, len(old_vector) // 8), fact_id))
        if row["hrr_vector"] is not None:
            self.rebuild_bank(row["category"])
        return self.get(str(fact_id))

    def restore(self, undo: Mapping[str, Any]) -> Item:
        """The deleted fact back under its id with every column it had, its entity links, and the
        entities the delete removed (under their ids when free); then its bank rebuilt."""
        try:
            fact = dict(undo["fact"])
            fact_id = int(fact["fact_id"])
            vector = bytes.fromhex(undo["hrr_vector"]) if undo.get("hrr_vector") else None
            links = [int(x) for x in undo.get("links", [])]
            entities = [dict(e) for e in undo.get("entities", [])]
        except (KeyError, TypeError, ValueError):
            raise ContentsError("This undo no longer applies.", code="stale") from None
        with self._write() as conn:
            clash = conn.execute("SELECT fact_id FROM facts WHERE fact_id = ? OR content = ?",
                                 (fact_id, fact["content"])).fetchone()
            if clash is not None:
                raise ContentsError(f"Fact {clash[0]} already holds this id or this text; nothing was restored.",
                                    code="clash")
            remap: dict[int, int] = {}
            for entity in entities:
                old_id = int(entity["entity_id"])
                # The plugin's case-blind name match, but the name as it is: "_" and "%" in it are
                # letters here, not wildcards that would link the fact to another entity.
                same = conn.execute("SELECT entity_id FROM entities WHERE name LIKE ? ESCAPE '\\'",
                                    (_like_escape(str(entity["name"])),)).fetchone()
                if same is not None:
                    remap[old_id] = int(same[0])
                elif conn.execute("SELECT 1 FROM entities WHERE entity_id = ?", (old_id,)).fetchone() is None:
                    conn.execute("INSERT INTO entities (entity_id, name, entity_type, aliases, created_at)"
                                 " VALUES (?, ?, ?, ?, ?)", (old_id, entity["name"], entity["entity_type"],
                                                             entity["aliases"], entity["created_at"]))
                else:
                    cur = conn.execute("INSERT INTO entities (name, entity_type, aliases, created_at)"
                                       " VALUES (?, ?, ?, ?)", (entity["name"], entity["entity_type"],
                                                                entity["aliases"], entity["created_at"]))
                    remap[old_id] = int(cur.lastrowid or 0)
            conn.execute(f"INSERT INTO facts ({', '.join(_FACT_COLUMNS)}, hrr_vector)"  # noqa: S608
                         f" VALUES ({', '.join('?' * (len(_FACT_COLUMNS) + 1))})",
                         [*(fact[c] for c in _FACT_COLUMNS), vector])
            for entity_id in links:
                entity_id = remap.get(entity_id, entity_id)
                if conn.execute("SELECT 1 FROM entities WHERE entity_id = ?", (entity_id,)).fetchone():
                    conn.execute("INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)",
                                 (fact_id, entity_id))
        self.rebuild_bank(fact["category"])
        return self.get(str(fact_id))


# --- helpers ------------------------------------------------------------------------------------


def _fact_id(item_id: str) -> int:
    try:
        value = int(str(item_id))
    except ValueError:
        raise NotFound("There is no fact with that number.") from None
    if value < 1 or value > 2**63 - 1:
        raise NotFound("There is no fact with that number.")
    return value


def _as_float(value: object) -> float | None:
    try:
        number = float(str(value))
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _fts_query(text: str) -> str:
    """Every word as a quoted prefix term, all required: no FTS syntax can reach MATCH from a user."""
    tokens = _TOKEN.findall(text)
    return " AND ".join(f'"{t}"*' for t in tokens)


def _entities_of(conn: sqlite3.Connection, fact_ids: Sequence[int]) -> dict[int, list[str]]:
    if not fact_ids:
        return {}
    marks = ",".join("?" * len(fact_ids))
    found: dict[int, list[str]] = {}
    for fact_id, name in conn.execute(
            f"SELECT fe.fact_id, e.name FROM fact_entities fe JOIN entities e ON e.entity_id = fe.entity_id"  # noqa: S608
            f" WHERE fe.fact_id IN ({marks}) ORDER BY e.name", list(fact_ids)):
        found.setdefault(int(fact_id), []).append(name)
    return found


def _resolve_entity(conn: sqlite3.Connection, name: str) -> int:
    """The plugin's lookup: an entity of that name (case ignored), else one listing it among its
    comma-separated aliases, else a new one."""
    row = conn.execute("SELECT entity_id FROM entities WHERE name LIKE ?", (name,)).fetchone()
    if row is None:
        row = conn.execute("SELECT entity_id FROM entities WHERE ',' || aliases || ',' LIKE '%,' || ? || ',%'",
                           (name,)).fetchone()
    if row is not None:
        return int(row[0])
    return int(conn.execute("INSERT INTO entities (name) VALUES (?)", (name,)).lastrowid or 0)


def _version(row: Sequence[Any]) -> str:
    """What the person saw of a fact (text, category, tags, trust, update time); counters excluded:
    the agent bumps them on every recall."""
    values = dict(zip(_FACT_COLUMNS, row, strict=False))
    seen = [values[k] for k in ("content", "category", "tags", "trust_score", "updated_at")]
    return hashlib.sha256(repr(seen).encode()).hexdigest()[:16]


def _item(row: Sequence[Any], entities: list[str]) -> Item:
    values = dict(zip(_FACT_COLUMNS, row, strict=False))
    return Item(id=str(values["fact_id"]), text=values["content"] or "", group=values["category"] or "",
                details={**values, "entities": entities, "version": _version(row)})


def _fact_as_seen(conn: sqlite3.Connection, fact_id: int, expected: str | None, *, nothing: str) -> Any:
    """The fact's row with its vector, under the caller's write transaction; refused when it is gone
    or changed since the person saw ``expected`` (``nothing``: what was then not done)."""
    row = conn.execute(f"SELECT {', '.join(_FACT_COLUMNS)}, hrr_vector FROM facts"  # noqa: S608
                       " WHERE fact_id = ?", (fact_id,)).fetchone()
    if row is None:
        raise NotFound()
    if expected is not None and expected != _version(tuple(row)[:len(_FACT_COLUMNS)]):
        raise ContentsError(f"The fact changed since you opened it; nothing was {nothing}.", code="changed")
    return row
