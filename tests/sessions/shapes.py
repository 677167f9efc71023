"""The same history in each file shape the panel reads (docs/history.md): 0.19.0, v30 fresh, a
0.19.0 file upgraded in place to v30, and v30 with a CJK index whose tokenizer the panel cannot
load. Every text is unique to one session, so a search names exactly the sessions it must find.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from memory_core.history.schema import (
    create_state_db,
    create_state_db_v30,
    insert_message,
    insert_session,
    make_cjk_tokenizer_unloadable,
    upgrade_to_v30,
)

SHAPES = ("0.19.0", "v30", "v30-upgraded", "v30-no-cjk-tokenizer")

T0 = 1767261600.0  # 2026-01-01 10:00 UTC
EN = "20260101_100000_aaaaaa"  # English words, prefix, phrase; a hidden scaffolding row on v30
CJK = "20260102_100000_bbbbbb"  # Chinese of 1, 2 and 4+ characters
TOOL = "20260103_100000_cccccc"  # text only in tool rows, one longer than the 8,192 the agent indexes
CRON = "cron_nightly_20260104_070000"
SUB = "20260105_100000_dddddd"  # a delegated subagent of EN
COMP = "20260106_100000_eeeeee"  # a turn summarized away by compaction
REW = "20260107_100000_ffffff"  # a rewound turn
PROMPT = "20260108_100000_gggggg"  # a secret in its system prompt
# v30 only
HID = "20260109_100000_hhhhhh"  # hidden in the agent's lists
PIN = "20260110_100000_iiiiii"  # pinned; recent activity heartbeat
CAR = "20260111_100000_jjjjjj"  # a compaction's carried tail

SECRET = "sk-live-9b8a7c6d5e4f3a21"
LONG_FILLER = "lorem " * 1600  # 9,600 characters: past the agent's 8,192-character tool prefix


def _identity(n: int) -> bytes:
    return bytes([0x80, 0xFF, n % 256, 0x00])  # binary, and not valid UTF-8


def build(home: Path, shape: str) -> Path:
    path = home / "state.db"
    v30 = shape != "0.19.0"
    if shape in ("0.19.0", "v30-upgraded"):
        conn = create_state_db(path)
    else:
        conn = create_state_db_v30(path, cjk_table=shape == "v30-no-cjk-tokenizer")
    counter = iter(range(1, 10_000))

    def msg(session_id: str, role: str, content: str | None, at: float, **cols) -> int:
        if v30 and "display_identity" in _columns(conn):
            cols.setdefault("display_identity", _identity(next(counter)))
        return insert_message(conn, session_id=session_id, role=role, content=content, timestamp=at, **cols)

    insert_session(conn, id=EN, source="cli", started_at=T0, title="Docker talk")
    msg(EN, "user", "How do quokka containers talk during the migration?", T0 + 2)
    msg(EN, "assistant", "They share a velvet thunder bridge network.", T0 + 3)

    insert_session(conn, id=CJK, source="telegram", started_at=T0 + 86400, title="中文聊天")
    msg(CJK, "user", "我们讨论一下大别山项目的进展", T0 + 86401)
    msg(CJK, "assistant", "进展顺利，下一步去广西桂林看鹦鹉。", T0 + 86402)

    insert_session(conn, id=TOOL, source="cli", started_at=T0 + 2 * 86400, title="Tool output")
    msg(TOOL, "user", "Run the checker", T0 + 2 * 86400 + 1)
    msg(TOOL, "assistant", "", T0 + 2 * 86400 + 2, tool_calls=json.dumps(
        [{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]))
    msg(TOOL, "tool", "checker said xylophone 独角兽乐园开放", T0 + 2 * 86400 + 3, tool_name="terminal",
        tool_call_id="call_1")

    insert_session(conn, id=CRON, source="cron", started_at=T0 + 3 * 86400, ended_at=T0 + 3 * 86400 + 30,
                   end_reason="cron_complete")
    msg(CRON, "user", "Nightly kumquat cleanup 夜间清理任务", T0 + 3 * 86400 + 1)

    insert_session(conn, id=SUB, source="subagent", started_at=T0 + 4 * 86400, parent_session_id=EN,
                   model_config=json.dumps({"_delegate_from": EN}))
    msg(SUB, "user", "Subagent found a pangolin 穿山甲数据", T0 + 4 * 86400 + 1)

    insert_session(conn, id=COMP, source="cli", started_at=T0 + 5 * 86400, title="Compacted")
    msg(COMP, "user", "Earlier walrus question 海象讨论", T0 + 5 * 86400 + 1, active=0, compacted=1)
    msg(COMP, "assistant", "Earlier answer", T0 + 5 * 86400 + 2, active=0, compacted=1)
    msg(COMP, "user", "[summary] an earlier question", T0 + 5 * 86400 + 3)

    insert_session(conn, id=REW, source="cli", started_at=T0 + 6 * 86400, title="Rewound", rewind_count=1)
    msg(REW, "user", "Kept question", T0 + 6 * 86400 + 1)
    msg(REW, "user", "Rewound narwhal 独角鲸问题", T0 + 6 * 86400 + 2, active=0)

    insert_session(conn, id=PROMPT, source="cli", started_at=T0 + 7 * 86400, title="Prompted",
                   system_prompt=f"You are helpful. Use key {SECRET} for the API.")
    msg(PROMPT, "user", "hello", T0 + 7 * 86400 + 1)

    if shape == "v30-upgraded":
        upgrade_to_v30(conn)
        v30 = True
    # Written by the v30 agent (or, on 0.19.0, by 0.19.0): a tool row past the index's prefix.
    msg(TOOL, "tool", LONG_FILLER + " zeppelin 长颈鹿饲养", T0 + 2 * 86400 + 4, tool_name="terminal",
        tool_call_id="call_1")
    if v30:
        # Scaffolding the agent never shows, before the first real user message.
        msg(EN, "user", "SCAFFOLD internal instruction", T0 + 1, display_kind="hidden")
        insert_session(conn, id=HID, source="cli", started_at=T0 + 8 * 86400, title="Hidden one", hidden=1)
        msg(HID, "user", "A hidden ocelot 隐藏的猫科", T0 + 8 * 86400 + 1)
        insert_session(conn, id=PIN, source="cli", started_at=T0 + 9 * 86400 - 3600, title="Pinned one", pinned=1,
                       title_source="user", last_activity_at=T0 + 30 * 86400)
        msg(PIN, "user", "pinned note", T0 + 9 * 86400 - 3599)
        insert_session(conn, id=CAR, source="cli", started_at=T0 + 10 * 86400, title="Carried")
        c0 = T0 + 10 * 86400
        first = msg(CAR, "user", "Old start", c0 + 1, active=0, compacted=1)
        tail = msg(CAR, "user", "Carried tail tapir", c0 + 2, active=0, compacted=0, display_identity=b"\x01tail")
        tail2 = msg(CAR, "assistant", "Carried tail answer", c0 + 3, active=0, compacted=1,
                    display_identity=b"\x01ans")
        msg(CAR, "user", "[summary] the old start", c0 + 4)
        msg(CAR, "user", "Carried tail tapir", c0 + 2, display_identity=b"\x01tail", display_order=tail)
        msg(CAR, "assistant", "Carried tail answer", c0 + 3, display_identity=b"\x01ans", display_order=tail2)
        assert first
    if shape == "v30-no-cjk-tokenizer":
        make_cjk_tokenizer_unloadable(conn)
    conn.close()
    return path


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {r[1] for r in conn.execute("PRAGMA table_info(messages)")}


# (kind, query, sessions every shape finds, sessions a v30 file adds)
MATRIX = [
    ("english word", "quokka", {EN}),
    ("prefix", "migrat", {EN}),
    ("phrase", '"velvet thunder"', {EN}),
    ("cjk 1 character", "鹦", {CJK}),
    ("cjk 2 characters", "桂林", {CJK}),
    ("cjk 4+ characters", "大别山项目", {CJK}),
    ("word only in a tool row", "xylophone", {TOOL}),
    ("cjk only in a tool row", "独角兽乐园", {TOOL}),
    ("word past the tool prefix", "zeppelin", {TOOL}),
    ("cjk past the tool prefix", "长颈鹿饲养", {TOOL}),
    ("word in a cron session", "kumquat", {CRON}),
    ("cjk in a cron session", "夜间清理任务", {CRON}),
    ("word in a subagent session", "pangolin", {SUB}),
    ("cjk in a subagent session", "穿山甲数据", {SUB}),
    ("word in a compacted turn", "walrus", {COMP}),
    ("cjk in a compacted turn", "海象讨论", {COMP}),
    ("word in a rewound turn", "narwhal", set()),
    ("cjk in a rewound turn", "独角鲸问题", set()),
    ("hidden scaffolding", "SCAFFOLD", set()),
]
