"""Shared checks of the bad-input suite: every case gets a clear message, a 4xx status (never
500), writes nothing anywhere in the home, and leaves the other providers working."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.test import Client

from tests.security.site import snapshot

__all__ = ["api_put", "assert_refused", "assert_unchanged", "others_still_work", "snapshot", "text_of"]


def assert_unchanged(home: Path, before: dict[str, bytes]) -> None:
    """No file of the home was written. An empty ``*.lock`` file may appear: taking Honcho's file
    lock creates it (0.19.0's protocol), and it holds no data."""
    after = {k: v for k, v in snapshot(home).items() if not (k.endswith(".lock") and v == b"" and k not in before)}
    assert after == before


def api_put(client: Client, url: str, body: Any) -> Any:
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.put(url, data, content_type="application/json")


def text_of(response) -> str:
    """What the user reads: the JSON detail (and field errors) or the page's text."""
    content = b"".join(response.streaming_content) if response.streaming else response.content
    body = content.decode("utf-8", errors="replace")
    if response.get("Content-Type", "").startswith("application/json"):
        data = json.loads(body)
        return json.dumps(data, ensure_ascii=False)
    return body


def assert_refused(response, *needles: str, statuses: tuple[int, ...] = (400, 404, 409, 413, 422)) -> str:
    """A 4xx answer that says what is wrong; returns the text for further checks."""
    text = text_of(response)
    shown = text.split('<main', 1)[-1][:3000]  # the page's own content, not the header
    assert response.status_code in statuses, (response.status_code, shown)
    assert "Traceback" not in text and "Internal server error" not in text
    for needle in needles:
        assert needle in text, (needle, shown)
    return text


def others_still_work(client: Client, home: Path, *, skip: str = "") -> None:
    """Another provider can still be read and saved, and the provider list still renders."""
    name = "mem0" if skip != "mem0" else "supermemory"
    assert client.get("/api/memory").status_code == 200
    assert client.get(f"/api/memory/providers/{name}/config").status_code == 200
    saved = api_put(client, f"/api/memory/providers/{name}/config", {"values": {"agent_id" if name == "mem0"
                                                                               else "container_tag": "still_works"}})
    assert saved.status_code == 200, saved.content
    assert client.get("/providers/").status_code == 200
