"""The session history of ``serve --demo``: a ``state.db`` in the agent's own file format (0.19.0,
written with its schema and triggers) with one of everything the Sessions page shows.

* cli: Docker networking, with a memory write (tool call + result) and a subagent it delegated to;
* telegram: a conversation compressed into a continuation ("… #2");
* an in-place compaction and a rewound turn; a Chinese chat; a cron run; an archived session;
* a pasted secret (the demo ``.env``'s ``OPENAI_API_KEY``), which the page masks and reports.

An existing ``state.db`` is left alone, like the rest of the demo.
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

from memory_core.history.schema import create_state_db, insert_message, insert_session

PASTED_SECRET = "demo-not-a-real-key"  # noqa: S105 - the fake OPENAI_API_KEY of the demo .env
DAY = 86400.0


def _session_id(at: float, suffix: str) -> str:
    return datetime.fromtimestamp(at).strftime("%Y%m%d_%H%M%S_") + suffix


def _call(call_id: str, name: str, arguments: dict) -> str:
    return json.dumps([{"id": call_id, "call_id": call_id, "response_item_id": f"fc_{call_id}", "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments)}}])


def demo_session_ids(home: Path) -> list[str]:
    """Ids of the demo sessions in ``home`` (newest first), for tests and screenshots."""
    import sqlite3

    conn = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT id FROM sessions ORDER BY started_at DESC")]
    finally:
        conn.close()


def seed_demo_sessions(home: Path, *, now: float | None = None) -> None:
    path = Path(home) / "state.db"
    if path.exists():
        return
    now = time.time() if now is None else now
    base = float(int(now - 6 * DAY))
    conn = create_state_db(path)
    try:
        _seed(conn, base)
    finally:
        conn.close()


def _seed(conn, base: float) -> None:
    def msg(session_id: str, role: str, content: str | None, at: float, **cols: object) -> int:
        return insert_message(conn, session_id=session_id, role=role, content=content, timestamp=at, **cols)

    # cli: a memory write and a delegated subagent
    a = _session_id(base, "a1b2c3")
    insert_session(conn, id=a, source="cli", started_at=base, ended_at=base + 900, end_reason="cli_close",
                   model="anthropic/claude-sonnet-4", title="Docker networking", input_tokens=18420,
                   output_tokens=2310, estimated_cost_usd=0.0899, cwd="/home/dana/src/shop",
                   git_branch="main", api_call_count=6)
    msg(a, "user", "Why can't my web container reach the database container by name?", base + 5)
    msg(a, "assistant", "Containers on the default bridge network cannot resolve each other by name. Put both on "
        "a user-defined network:\n\n    docker network create shop\n    docker run --network shop --name db "
        "postgres:16\n\nThen the web container reaches it as `db:5432`.", base + 40,
        reasoning="The user is on the default bridge; DNS by name needs a user-defined network.")
    msg(a, "user", "That worked. I always use docker compose, by the way — remember that.", base + 300)
    msg(a, "assistant", "", base + 310, finish_reason="tool_calls",
        tool_calls=_call("call_m1", "memory", {"action": "add", "target": "user",
                                                "content": "Prefers docker compose over raw docker run."}))
    msg(a, "tool", json.dumps({"success": True, "done": True, "target": "user", "usage": "4% — 56/1,375 chars",
                               "entry_count": 3, "message": "Entry added."}, ensure_ascii=False), base + 311,
        tool_name="memory", tool_call_id="call_m1")
    msg(a, "assistant", "Noted: compose it is. Want me to write a compose.yaml for web + db?", base + 320)
    sub = _session_id(base + 400, "5ab0e1")
    insert_session(conn, id=sub, source="subagent", started_at=base + 400, ended_at=base + 460,
                   end_reason="agent_close", parent_session_id=a, model="anthropic/claude-haiku-4",
                   model_config=json.dumps({"_delegate_from": a}), title="Draft compose.yaml")
    msg(sub, "user", "Write a compose.yaml with services web and db on one network.", base + 401)
    msg(sub, "assistant", "services:\n  web:\n    build: .\n    networks: [shop]\n  db:\n    image: postgres:16\n"
        "    networks: [shop]\nnetworks:\n  shop: {}", base + 440)

    # telegram: compressed into a continuation
    b0 = base + DAY + 3600
    b = _session_id(b0, "b7e4d0")
    insert_session(conn, id=b, source="telegram", started_at=b0, ended_at=b0 + 5400, end_reason="compression",
                   model="openai/gpt-5", title="Kubernetes migration", input_tokens=96000, output_tokens=8200,
                   estimated_cost_usd=0.2012, user_id="4711", chat_id="4711", chat_type="private")
    msg(b, "user", "Plan the kubernetes migration for the shop: three services, one Postgres.", b0 + 10)
    msg(b, "assistant", "Step one: containerise each service and push images; step two: a namespace per "
        "environment; step three: Postgres stays outside the cluster at first.", b0 + 60)
    msg(b, "user", "Here is my kubeconfig context name: prod-eu-1. And the registry is ghcr.io/dana/shop.", b0 + 900)
    c0 = b0 + 5500
    c = _session_id(c0, "c9f1a2")
    insert_session(conn, id=c, source="telegram", started_at=c0, parent_session_id=b, model="openai/gpt-5",
                   title="Kubernetes migration #2", input_tokens=21000, output_tokens=3100,
                   estimated_cost_usd=0.0521, user_id="4711", chat_id="4711", chat_type="private")
    msg(c, "user", "[summary] Migration plan agreed: images to ghcr.io/dana/shop, namespace per environment, "
        "Postgres outside the cluster. Context prod-eu-1.", c0 + 1)
    msg(c, "user", "Now the ingress: we use Traefik.", c0 + 120)
    msg(c, "assistant", "Then install Traefik with its Helm chart and add one IngressRoute per service.", c0 + 150)

    # cli: in-place compaction, and a pasted secret
    d0 = base + 2 * DAY
    d = _session_id(d0, "d3c0a1")
    insert_session(conn, id=d, source="cli", started_at=d0, ended_at=d0 + 4000, end_reason="cli_close",
                   model="anthropic/claude-sonnet-4", title="Terraform modules", input_tokens=52000,
                   output_tokens=6100, estimated_cost_usd=0.1475)
    msg(d, "user", "Split our terraform into modules: network, database, app.", d0 + 5, active=0, compacted=1)
    msg(d, "assistant", "Create modules/network, modules/database and modules/app, each with variables.tf and "
        "outputs.tf.", d0 + 60, active=0, compacted=1)
    msg(d, "user", "[summary] Terraform split into network, database and app modules.", d0 + 3000)
    msg(d, "user", f"The plan fails with 401. I set OPENAI_API_KEY={PASTED_SECRET} in the runner, is that "
        "right?", d0 + 3100)
    msg(d, "assistant", "Yes, the runner needs that variable, but do not paste keys into chats: rotate this one.",
        d0 + 3150)

    # cli: a rewound turn
    e0 = base + 3 * DAY
    e = _session_id(e0, "e5d6f7")
    insert_session(conn, id=e, source="cli", started_at=e0, ended_at=e0 + 600, end_reason="cli_close",
                   model="anthropic/claude-sonnet-4", title="Backup schedule", rewind_count=1)
    msg(e, "user", "Schedule nightly Postgres backups to the NAS.", e0 + 5)
    msg(e, "assistant", "A cron entry running pg_dump at 02:00, keeping 14 days.", e0 + 30)
    msg(e, "user", "Actually, back them up every hour.", e0 + 200, active=0)
    msg(e, "assistant", "Hourly backups would fill the NAS in a week.", e0 + 230, active=0)

    # telegram: a Chinese chat
    f0 = base + 4 * DAY
    f = _session_id(f0, "f0c1d2")
    insert_session(conn, id=f, source="telegram", started_at=f0, ended_at=f0 + 1200, end_reason="idle",
                   model="openai/gpt-5", title="大别山项目进展", user_id="4711", chat_id="4711")
    msg(f, "user", "我们讨论一下大别山项目的进展，下周要去广西桂林开会。", f0 + 10)
    msg(f, "assistant", "好的。大别山项目目前完成了数据迁移，剩下部署和验收；去桂林前我可以整理一份进度报告。", f0 + 40)
    msg(f, "user", "请记住：我喜欢简洁的回答。", f0 + 100)
    msg(f, "assistant", "", f0 + 105, finish_reason="tool_calls",
        tool_calls=_call("call_m2", "memory", {"action": "add", "target": "user", "content": "喜欢简洁的回答。"}))
    msg(f, "tool", json.dumps({"success": True, "done": True, "target": "user", "message": "Entry added."}),
        f0 + 106, tool_name="memory", tool_call_id="call_m2")

    # cron, archived
    h0 = base + 5 * DAY - 5 * 3600
    h = f"cron_nightly-cleanup_{datetime.fromtimestamp(h0).strftime('%Y%m%d_%H%M%S')}"
    insert_session(conn, id=h, source="cron", started_at=h0, ended_at=h0 + 45, end_reason="cron_complete",
                   model="anthropic/claude-haiku-4", estimated_cost_usd=0.0031)
    msg(h, "user", "Remove dangling docker images older than 7 days and report the space freed.", h0 + 1)
    msg(h, "assistant", "", h0 + 5, finish_reason="tool_calls",
        tool_calls=_call("call_t1", "terminal", {"command": "docker image prune -a --filter until=168h -f"}))
    msg(h, "tool", "Total reclaimed space: 3.2GB", h0 + 20, tool_name="terminal", tool_call_id="call_t1")
    msg(h, "assistant", "Freed 3.2 GB of old images.", h0 + 30)
    i0 = base + 5 * DAY
    i = _session_id(i0, "a0a0a0")
    insert_session(conn, id=i, source="cli", started_at=i0, ended_at=i0 + 120, end_reason="cli_close",
                   model="anthropic/claude-sonnet-4", title="Old laptop setup", archived=1)
    msg(i, "user", "List what I installed on the old laptop.", i0 + 3)
