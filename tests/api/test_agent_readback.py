"""Settings saved through the API are what the real hermes-agent 0.19.0 plugins load.

Runs the agent readback tool (``HERMES_READBACK``) (the plugins' own loaders, in a scratch virtualenv holding
hermes-agent 0.19.0) against the home the panel just wrote. Skipped where that virtualenv or the
tool is not installed; hermes-agent is never imported by the panel or by this test process.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.agent_readback import AGENT_PYTHON, READBACK, READBACK_MISSING

pytestmark = pytest.mark.django_db



def put(client, name: str, values: dict) -> None:
    response = client.put(
        f"/api/memory/providers/{name}/config", data=json.dumps({"values": values}), content_type="application/json"
    )
    assert response.status_code == 200, response.content




@pytest.mark.skipif(READBACK_MISSING, reason="hermes-agent 0.19.0 readback not installed")
def test_it_writes_every_bundled_providers_settings_where_the_agent_reads_them(owner_client, home, user_home):
    put(owner_client, "hindsight", {"mode": "local_external", "api_url": "http://127.0.0.1:8888",
                                    "recall_budget": "high", "api_key": "hs-1", "timeout": 12})
    put(owner_client, "mem0", {"host": "http://127.0.0.1:8000", "agent_id": "a1", "rerank": True})
    put(owner_client, "supermemory", {"api_key": "sm-1", "container_tag": "x_{identity}", "max_recall_results": 7})
    put(owner_client, "holographic", {"auto_extract": False, "default_trust": 0.7, "hrr_dim": 512})
    put(owner_client, "byterover", {"auto_extract": False})
    put(owner_client, "retaindb", {"api_key": "r-1", "base_url": "http://r.example", "project": "p1"})
    put(owner_client, "openviking", {"endpoint": "http://127.0.0.1:1933", "recall_limit": 9})
    put(owner_client, "honcho", {"apiKey": "h-1", "workspace": "ws-1", "timeout": 12.5, "pinUserPeer": True})

    out = subprocess.run(
        [str(AGENT_PYTHON), str(READBACK), str(home), "--home", str(user_home)],
        capture_output=True, text=True, timeout=180, check=True,
    )
    agent = json.loads(out.stdout)

    assert agent["hindsight"]["effective"]["mode"] == "local_external"
    assert agent["hindsight"]["effective"]["api_url"] == "http://127.0.0.1:8888"
    assert agent["hindsight"]["effective"]["recall_budget"] == "high"
    assert agent["hindsight"]["effective"]["timeout"] == 12
    assert agent["hindsight"]["effective"]["api_key_set"] is True
    assert agent["mem0"]["effective"]["backend_host"] == "http://127.0.0.1:8000"
    assert agent["mem0"]["effective"]["agent_id"] == "a1"
    assert agent["mem0"]["effective"]["rerank_default"] is True
    assert agent["holographic"]["effective"]["default_trust"] == 0.7
    assert agent["holographic"]["effective"]["hrr_dim"] == 512
    assert agent["holographic"]["effective"]["auto_extract_runs_on_session_end"] is False
    assert agent["byterover"]["effective"]["auto_extract"] is False
    assert agent["retaindb"]["effective"]["base_url"] == "http://r.example"
    assert agent["retaindb"]["effective"]["project"] == "p1"
    assert agent["retaindb"]["effective"]["api_key_set"] is True
    assert agent["openviking"]["effective"]["endpoint"] == "http://127.0.0.1:1933"
    assert agent["openviking"]["effective"]["recall"]["limit"] == 9
    assert agent["honcho"]["effective"]["workspace_id"] == "ws-1"
    assert agent["honcho"]["effective"]["timeout"] == 12.5
    assert agent["honcho"]["effective"]["pin_peer_name"] is True
    assert agent["honcho"]["effective"]["api_key_set"] is True
    assert agent["supermemory"]["loaded"]["container_tag"] == "x_{identity}"  # stored exactly as typed
    assert agent["supermemory"]["effective"]["max_recall_results"] == 7
