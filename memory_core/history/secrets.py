"""Which sessions hold a stored secret (docs/agent_formats.md §Reading history safely "Secrets").

Indexed columns (content, tool name, tool-call JSON) are searched through ``messages_fts`` with a
phrase made of each stored form's words (so the JSON-escaped forms inside tool calls are found
too), then confirmed on the row itself; the columns the index does not cover (``api_content``,
``reasoning*``, ``display_metadata``, ``sessions.system_prompt`` and v30's ``system_prompts``) are
scanned with ``instr``; rows the index holds only in part (long tool rows, a backfill in progress)
are confirmed on the row.
"""

from __future__ import annotations

import re
import sqlite3

from memory_core.history.db import History, classify, is_state_error
from memory_core.history.search import long_tool_ids
from memory_core.secret_masking import SecretMasker

_WORD = re.compile(r"[^\W_]+")
UNINDEXED_MESSAGE_COLUMNS = ("api_content", "reasoning", "reasoning_content", "reasoning_details",
                             "codex_reasoning_items", "codex_message_items", "display_metadata")
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
    # Rows the index does not hold in full: confirmed on the row like every candidate.
    if history.caps.fts and history.caps.tool_prefix:
        candidate_ids.update(long_tool_ids(history, history.caps.tool_prefix))
    if history.caps.fts and history.caps.unindexed:
        low, high = history.caps.unindexed
        candidate_ids.update(r[0] for r in history.rows(
            "SELECT id FROM messages WHERE id > ? AND id <= ?", (low, high)))
    prompt_clause = " OR ".join("instr(system_prompt, ?) > 0" for _ in forms)
    prompt_of_hash = prompt_clause.replace("system_prompt", "prompt")
    if "system_prompt" in history.caps.session_columns:
        for r in history.rows(f"SELECT id, system_prompt FROM sessions WHERE {prompt_clause}", forms):  # noqa: S608
            for name in masker.names_in(r["system_prompt"]):
                found.setdefault(name, set()).add(r["id"])
    if history.caps.system_prompts:
        # v30 keeps each prompt once in ``system_prompts``; sessions point to it by hash.
        sql = f"SELECT s.id, p.prompt FROM system_prompts p JOIN sessions s ON s.system_prompt_hash = p.hash WHERE {prompt_of_hash}"  # noqa: S608, E501
        for r in history.rows(sql, forms):
            for name in masker.names_in(r["prompt"] if isinstance(r["prompt"], str) else ""):
                found.setdefault(name, set()).add(r["id"])
    ids = sorted(candidate_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        for row in history.rows(f"SELECT m.session_id, {select} FROM messages m WHERE m.id IN ({marks})", chunk):  # noqa: S608
            text = "\n".join(row[c] for c in message_columns if isinstance(row[c], str))
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
