"""Stored secrets never leave the panel through the Sessions pages or API (docs/api.md §Deviations from 0.19.0)."""

from __future__ import annotations

import json
import sqlite3
from urllib.parse import quote, unquote

import keyring
import pytest
from django.utils.html import escape

from memory_core import caching
from memory_core.history.schema import insert_message, insert_session
from memory_core.secret_masking import SecretMasker, encoded_forms
from provider_schemas.secret_stores import keyring_service
from tests.sessions import fixture as fx

pytestmark = pytest.mark.django_db

ENV_SECRET = fx.SECRET_VALUE  # pasted by the user in session I
KEYRING_SECRET = 'hs-"quoted"-clé-0042'  # JSON escapes it in tool calls: \" and \u00e9
PASTED = "20260109_100000_ssssss"


@pytest.fixture
def secret_home(home, dict_keyring):
    history = fx.build(home)
    (home / ".env").write_text(f"OPENAI_API_KEY={ENV_SECRET}\nSHORT_TOKEN=abc12\nMODEL=gpt-5\n")
    keyring.set_password(keyring_service(home), "HINDSIGHT_API_KEY", KEYRING_SECRET)
    conn = sqlite3.connect(history.path, isolation_level=None)
    insert_session(conn, id=PASTED, source="cli", started_at=fx.T0 + 8 * 86400, title="Pasted keys",
                   system_prompt=f"key {KEYRING_SECRET}")
    insert_message(conn, session_id=PASTED, role="user", content=f"my keys: {ENV_SECRET} and {KEYRING_SECRET}",
                   timestamp=fx.T0 + 8 * 86400 + 1, api_content=f"ctx {ENV_SECRET}")
    insert_message(conn, session_id=PASTED, role="assistant", content="", timestamp=fx.T0 + 8 * 86400 + 2,
                   tool_calls=fx.memory_call("call_s", {"action": "add", "content": f"key is {KEYRING_SECRET}"}),
                   reasoning=f"the user pasted {ENV_SECRET}")
    conn.close()
    caching.clear_all()
    yield history
    caching.clear_all()


def _leaks(text: str) -> list[str]:
    found = []
    for secret in (ENV_SECRET, KEYRING_SECRET):
        for form in encoded_forms(secret):
            if form in text:
                found.append(form)
        # Any 8-character piece of a value is a leak too (a cut snippet, a split token).
        found += [secret[i:i + 8] for i in range(len(secret) - 7) if secret[i:i + 8] in text]
    return found


def _without_echo(url: str, text: str) -> str:
    """A search page repeats what the user typed (search box, language form): their own input,
    not the history's. Everything else must be clean."""
    if "?q=" not in url:
        return text
    query = unquote(url.split("?q=", 1)[1])
    # The hit links carry the search too (the transcript marks the searched words).
    for echo in (f'value="{escape(query)}"', f'value="{escape(url)}"', f"q={quote(query)}#"):
        text = text.replace(echo, "")
    return text


def _crawl(client) -> dict[str, str]:
    urls = ["/sessions/", "/sessions/?hidden=1&archived=include", "/sessions/?order=recent&archived=include",
            "/sessions/secrets/", "/api/sessions?archived=include&limit=-1&full=true", "/api/sessions/stats"]
    for query in (ENV_SECRET, KEYRING_SECRET, "keys", "4f9a8b7c6d5e", "live", "quoted", "clé", "pasted", "key"):
        urls += [f"/sessions/?q={quote(query)}", f"/api/sessions/search?q={quote(query)}"]
    for session_id in (fx.A, fx.B, fx.C, fx.I, PASTED):
        urls += [f"/sessions/{session_id}/", f"/sessions/{session_id}/?all=1",
                 f"/sessions/{session_id}/export/?format=markdown", f"/sessions/{session_id}/export/?format=json",
                 f"/api/sessions/{session_id}", f"/api/sessions/{session_id}/messages",
                 f"/api/sessions/{session_id}/export"]
    pages = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        pages[url] = response.content.decode()
    return pages


def test_it_never_shows_a_stored_secret_anywhere(viewer_client, secret_home):
    pages = _crawl(viewer_client)
    leaks = {url: _leaks(_without_echo(url, text)) for url, text in pages.items()}
    assert {url: found for url, found in leaks.items() if found} == {}
    transcript = pages[f"/sessions/{PASTED}/"]
    assert "[secret: OPENAI_API_KEY]" in transcript and "[secret: HINDSIGHT_API_KEY]" in transcript
    export = json.loads(pages[f"/api/sessions/{PASTED}/export"])
    assert export["system_prompt"] == "key [secret: HINDSIGHT_API_KEY]"
    assert "[secret: HINDSIGHT_API_KEY]" in export["messages"][1]["tool_calls"][0]["function"]["arguments"]


def test_it_masks_the_hit_inside_a_secret_in_search_snippets(owner_client, secret_home):
    results = owner_client.get("/api/sessions/search?q=4f9a8b7c6d5e").json()["results"]
    snippets = [r["snippet"] for r in results]
    assert snippets and all("4f9a8b7c6d5e" not in s for s in snippets)
    assert any("[secret: OPENAI_API_KEY]" in s for s in snippets)


def test_it_warns_on_the_list_and_the_session_naming_the_secret(viewer_client, secret_home):
    listing = viewer_client.get("/sessions/").content.decode()
    assert "Contains the stored secrets HINDSIGHT_API_KEY, OPENAI_API_KEY" in listing
    page = viewer_client.get(f"/sessions/{fx.I}/").content.decode()
    assert "This session contains the stored secret OPENAI_API_KEY." in page


def test_it_lists_the_sessions_of_each_secret_with_the_delete_command(viewer_client, secret_home):
    html = viewer_client.get("/sessions/secrets/").content.decode()
    env_part = html[html.index("<code>OPENAI_API_KEY</code>"):html.index("<code>HINDSIGHT_API_KEY</code>")]
    assert f"hermes sessions delete {PASTED}" in env_part and f"hermes sessions delete {fx.I}" in env_part
    keyring_part = html[html.index("<code>HINDSIGHT_API_KEY</code>"):]
    assert f"hermes sessions delete {PASTED}" in keyring_part and fx.I not in keyring_part
    assert "SHORT_TOKEN" not in html  # shorter than 6 characters: not masked, not searched


def test_it_masks_every_json_escaped_form_and_reports_names():
    masker = SecretMasker({"A_KEY": 'p"w\\é-123456', "TINY": "12345"})
    nested = json.dumps([{"arguments": json.dumps({"x": 'p"w\\é-123456'})}])
    assert 'p"w' not in masker.mask(nested) and "[secret: A_KEY]" in masker.mask(nested)
    assert masker.mask(json.dumps('p"w\\é-123456', ensure_ascii=False)) == '"[secret: A_KEY]"'
    assert masker.names_in("x 12345 y") == [] and masker.names == ("A_KEY",)


def test_it_masks_a_piece_of_a_secret_at_the_cut_edge_of_an_excerpt():
    masker = SecretMasker({"K": "abcdef-123456"})
    assert masker.mask_excerpt("...f-123456 and >>>more<<<", markers=(">>>", "<<<")) == (
        "...[secret: K] and >>>more<<<")
    assert masker.mask_excerpt(">>>abcdef<<<-123456 x", markers=(">>>", "<<<")) == ">>>[secret: K] x"

