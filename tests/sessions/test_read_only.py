"""A full crawl of the Sessions pages and API by every persona leaves state.db byte for byte and
its modification time as they were (docs/agent_formats.md §Reading history safely)."""

from __future__ import annotations

import hashlib
import os

import pytest

from tests.sessions import fixture as fx

pytestmark = pytest.mark.django_db


def _urls(fixture) -> list[str]:
    urls = ["/sessions/", "/sessions/?hidden=1&archived=include&order=recent", "/sessions/?q=docker",
            "/sessions/?q=大别山", "/sessions/?q=广西", "/sessions/?q=don%27t", "/sessions/secrets/",
            "/api/sessions?limit=-1&archived=include&full=1", "/api/sessions?order=recent", "/api/sessions/stats",
            "/api/sessions/search?q=kubern", "/api/sessions/search?q=广西 OR 漓江"]
    for session_id in (fx.A, fx.B, fx.C, fx.D, fx.E, fx.F, fx.G, fx.H, fx.I, fx.J, fx.T):
        urls += [f"/sessions/{session_id}/", f"/sessions/{session_id}/?all=1",
                 f"/sessions/{session_id}/export/?format=markdown", f"/sessions/{session_id}/export/?format=json",
                 f"/api/sessions/{session_id}", f"/api/sessions/{session_id}/messages",
                 f"/api/sessions/{session_id}/export"]
    urls += [f"/sessions/{fx.C}/?hit={fixture.ids['b1']}", f"/sessions/{fx.E}/?hit={fixture.ids['e3']}"]
    return urls


def _stamp(path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), os.stat(path).st_mtime_ns


@pytest.mark.parametrize("persona", ["owner", "viewer", "other_user", "anonymous"])
def test_it_leaves_the_database_untouched_after_a_crawl(client, home, persona, request):
    fixture = fx.build(home)
    before = _stamp(fixture.path)
    if persona != "anonymous":
        client.force_login(request.getfixturevalue(persona))
    expected = {"owner": {200, 302}, "viewer": {200, 302}, "other_user": {403}, "anonymous": {302, 401}}[persona]
    for url in _urls(fixture):
        assert client.get(url).status_code in expected, url
    assert _stamp(fixture.path) == before
