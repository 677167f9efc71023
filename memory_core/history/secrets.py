"""Which sessions hold a stored secret (sessions.md §7 "Secrets").

Indexed columns (content, tool name, tool-call JSON) are searched through ``messages_fts`` with a
phrase made of each stored form's words (so the JSON-escaped forms inside tool calls are found
too), then confirmed on the row itself; the columns the index does not cover (``api_content``,
``reasoning*``, ``sessions.system_prompt``) are scanned with ``instr``.
"""

from __future__ import annotations

import re
import sqlite3

from memory_core.history.db import History, classify, is_state_error
from memory_core.secret_masking import SecretMasker

_WORD = re.compile(r"[^\W_]+")
UNINDEXED_MESSAGE_COLUMNS = ("api_content", "reasoning", "reasoning_content", "reasoning_details",
                             "codex_reasoning_items", "codex_message_items")
MATCHED_COLUMNS = ("content", "tool_name", "tool_calls", *UNINDEXED_MESSAGE_COLUMNS)


def _phrase(form: str) -> str | None:
    words = _WORD.findall(form)
    return '"' + " ".join(words) + '"' if words else None


def sessions_with_secrets(history: History, masker: SecretMasker) -> dict[str, list[str]]:
    """``{ENV_NAME: [session ids]}`` for every stored secret found, sessions newest first."""
    if not masker:
        return {}
    message_columns = [c for c in MATCHED_COLUMNS if c in history.caps.message_columns]
    select = ", ".join(f"m.{c}" for c in message_columns)
    found: dict[str, set[str]] = {}
    candidate_ids: set[int] = set()
    scan_forms: list[str] = []  # forms the index cannot look up: searched in the one scan below
    for form in masker.forms:
        phrase = _phrase(form) if history.caps.fts else None
        if phrase is None:
            scan_forms.append(form)
            continue
        try:
            candidate_ids.update(r[0] for r in history.rows(
                "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?", (phrase,)))
        except sqlite3.OperationalError as exc:
            if is_state_error(exc):
                raise classify(exc) from None
            scan_forms.append(form)
    forms = list(masker.forms)
    # One pass over the columns the index does not cover (and, for forms it could not look up,
    # the indexed ones too); each condition is a plain substring test.
    conditions = [(c, forms) for c in UNINDEXED_MESSAGE_COLUMNS if c in history.caps.message_columns]
    conditions += [(c, scan_forms) for c in ("content", "tool_calls") if scan_forms]
    clauses, params = [], []
    for column, column_forms in conditions:
        for form in column_forms:
            clauses.append(f"instr({column}, ?) > 0")
            params.append(form)
    if clauses:
        candidate_ids.update(r[0] for r in history.rows(
            f"SELECT id FROM messages WHERE {' OR '.join(clauses)}", params))  # noqa: S608
    if "system_prompt" in history.caps.session_columns:
        prompt_clause = " OR ".join("instr(system_prompt, ?) > 0" for _ in forms)
        for r in history.rows(f"SELECT id, system_prompt FROM sessions WHERE {prompt_clause}", forms):  # noqa: S608
            for name in masker.names_in(r["system_prompt"]):
                found.setdefault(name, set()).add(r["id"])
    ids = sorted(candidate_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        for row in history.rows(f"SELECT m.session_id, {select} FROM messages m WHERE m.id IN ({marks})", chunk):  # noqa: S608
            text = "\n".join(str(row[c]) for c in message_columns if row[c] is not None)
            for name in masker.names_in(text):
                found.setdefault(name, set()).add(row["session_id"])
    if not found:
        return {}
    every = sorted({s for ids_ in found.values() for s in ids_})
    order: dict[str, float] = {}
    for start in range(0, len(every), 500):
        chunk = every[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        order.update((r["id"], r["started_at"]) for r in history.rows(
            f"SELECT id, started_at FROM sessions WHERE id IN ({marks})", chunk))  # noqa: S608
    return {name: sorted(ids_, key=lambda s: (-order.get(s, 0.0), s)) for name, ids_ in found.items()}
