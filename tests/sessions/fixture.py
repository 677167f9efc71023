"""A hand-built ``state.db`` in 0.19.0's format with every kind of session the reader must handle
(docs/agent_formats.md §Session history): A cli with a memory call, B → C a compressed telegram conversation, D an
in-place
compaction, E a rewound turn, F a Chinese chat, G a delegate subagent of A, J a branch of A, H cron,
I archived, T source ``tool``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from memory_core.history.schema import create_state_db, insert_message, insert_session

A = "20260101_100000_aaaaaa"
B = "20260102_090000_bbbbbb"
C = "20260102_093000_cccccc"
D = "20260103_100000_dddddd"
E = "20260104_100000_eeeeee"
F = "20260105_100000_ffffff"
G = "20260101_100500_gggggg"
J = "20260101_110000_jjjjjj"
H = "cron_job1_20260106_070000"
I = "20260107_100000_iiiiii"  # noqa: E741 - the archived session
T = "20260108_100000_tttttt"
T0 = 1767261600.0  # 2026-01-01 10:00 UTC

SECRET_VALUE = "sk-live-4f9a8b7c6d5e"


def memory_call(call_id: str, arguments: dict) -> str:
    return json.dumps([{"id": call_id, "call_id": call_id, "response_item_id": "fc_" + call_id, "type": "function",
                        "function": {"name": "memory", "arguments": json.dumps(arguments)}}])


@dataclass
class Fixture:
    path: Path
    ids: dict[str, int] = field(default_factory=dict)  # label → messages.id


def build(home: Path, *, wal: bool = True) -> Fixture:
    path = home / "state.db"
    conn = create_state_db(path, wal=wal)
    fx = Fixture(path=path)

    def msg(label: str, session_id: str, role: str, content: str | None, at: float, **cols) -> None:
        fx.ids[label] = insert_message(conn, session_id=session_id, role=role, content=content, timestamp=at, **cols)

    insert_session(conn, id=A, source="cli", started_at=T0, ended_at=T0 + 60, end_reason="cli_close",
                   model="anthropic/claude-sonnet-4", title="Docker networking", input_tokens=1200,
                   output_tokens=300, estimated_cost_usd=0.0)
    msg("a1", A, "user", "How do docker networks talk to each other?", T0 + 1)
    msg("a2", A, "assistant", "", T0 + 2, finish_reason="tool_calls",
        tool_calls=memory_call("call_mem1", {"action": "add", "target": "user",
                                             "content": "  Prefers docker compose over raw docker run.  "}))
    msg("a3", A, "tool", json.dumps({"success": True, "done": True, "target": "user", "message": "Entry added."}),
        T0 + 3, tool_name="memory", tool_call_id="call_mem1")
    msg("a4", A, "assistant", "Use a user-defined bridge network; P2.2 of the guide explains it.", T0 + 4)

    insert_session(conn, id=G, source="subagent", started_at=T0 + 300, parent_session_id=A,
                   model_config=json.dumps({"_delegate_from": A}), ended_at=T0 + 360, end_reason="agent_close")
    msg("g1", G, "user", "Subagent task: list docker networks", T0 + 301)

    insert_session(conn, id=J, source="cli", started_at=T0 + 3600, parent_session_id=A, title="Docker branch",
                   model_config=json.dumps({"_branched_from": A}))
    msg("j1", J, "user", "How do docker networks talk to each other?", T0 + 3601)
    msg("j2", J, "assistant", "Branch answer about snake_case names and chat-send.", T0 + 3602)

    b0 = T0 + 86400 - 3600  # 2026-01-02 09:00
    insert_session(conn, id=B, source="telegram", started_at=b0, ended_at=b0 + 1700, end_reason="compression",
                   model="gpt-5", title="Kubernetes migration")
    msg("b1", B, "user", "Plan the kubernetes migration", b0 + 1)
    msg("b2", B, "assistant", "First move the my-app.config.ts settings.", b0 + 2)
    insert_session(conn, id=C, source="telegram", started_at=b0 + 1800, parent_session_id=B, model="gpt-5",
                   title="Kubernetes migration #2")
    msg("c1", C, "user", "[summary] kubernetes migration so far", b0 + 1801)
    msg("c2", C, "assistant", "Continuing with terraform state.", b0 + 1802)
    msg("c3", C, "assistant", "Rolling out kubernetes namespaces now.", b0 + 1803)

    d0 = T0 + 2 * 86400
    insert_session(conn, id=D, source="cli", started_at=d0, title="Compacted chat")
    msg("d1", D, "user", "Old question about terraform modules", d0 + 1, active=0, compacted=1)
    msg("d2", D, "assistant", "Old answer", d0 + 2, active=0, compacted=1)
    msg("d3", D, "user", "[summary] terraform modules discussed", d0 + 3)

    e0 = T0 + 3 * 86400
    insert_session(conn, id=E, source="cli", started_at=e0, title="Rewound chat", rewind_count=1)
    msg("e1", E, "user", "Keep this docker question", e0 + 1)
    msg("e2", E, "assistant", "Kept answer", e0 + 2)
    msg("e3", E, "user", "撤回的广西问题 and a rewound zebra", e0 + 3, active=0)
    msg("e4", E, "assistant", "rewound answer", e0 + 4, active=0)

    f0 = T0 + 4 * 86400
    insert_session(conn, id=F, source="telegram", started_at=f0, title="中文聊天")
    msg("f1", F, "user", "我们讨论一下大别山项目的进展", f0 + 1)
    msg("f2", F, "assistant", "大别山项目进展顺利，下一步去广西桂林。", f0 + 2)
    msg("f3", F, "user", "漓江的风景怎么样？中文-测试", f0 + 3)

    h0 = T0 + 5 * 86400 - 3 * 3600
    insert_session(conn, id=H, source="cron", started_at=h0, ended_at=h0 + 30, end_reason="cron_complete")
    msg("h1", H, "user", "Nightly docker image cleanup", h0 + 1)

    i0 = T0 + 6 * 86400
    insert_session(conn, id=I, source="cli", started_at=i0, archived=1, title="Archived talk")
    msg("i1", I, "user", f"Archived docker chat; my key is {SECRET_VALUE}", i0 + 1)

    t0 = T0 + 7 * 86400
    insert_session(conn, id=T, source="tool", started_at=t0)
    msg("t1", T, "user", "tool run about docker", t0 + 1)
    conn.close()
    return fx
