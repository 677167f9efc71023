"""hindsight's memories through the contents pages, against a real Hindsight server (hindsight-api on
pg0's PostgreSQL, no LLM, a local embeddings stand-in; tests/provider_contents/hindsight_server.py):
list, search, filter by bank and type, delete the document holding a memory, viewers refused, and
plain words when the server is unreachable or refuses the key."""

from __future__ import annotations

import json
import os
import socket
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from admin_panel.models import AuditEntry
from tests.provider_contents import hindsight_server

pytestmark = [pytest.mark.django_db, pytest.mark.hindsight]


@pytest.fixture(scope="session")
def server() -> Iterator[hindsight_server.Server]:
    """One real server for the whole run (every pytest process shares it): about half a minute to start."""
    missing = hindsight_server.missing()
    if missing:
        message = f"the real Hindsight server needs {missing} (the test extra installs them)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    try:
        with hindsight_server.shared_server() as running:
            yield running
    except RuntimeError as exc:  # a server that cannot start is a failure, in CI and out of it
        pytest.fail(str(exc))


def call(server: hindsight_server.Server, method: str, path: str, body: Any = None) -> Any:
    request = urllib.request.Request(server.url + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"Bearer {server.key}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read() or b"{}")


def retain(server: hindsight_server.Server, bank: str, document: str, *texts: str) -> list[str]:
    """Stores each text as one memory of ``document`` (no LLM: one memory per item) and returns their ids."""
    items = [{"content": text, "document_id": document, "context": "conversation", "tags": ["session:s-1"]}
             for text in texts]
    call(server, "POST", f"/v1/default/banks/{bank}/memories", {"items": items, "async": False})
    listed = call(server, "GET", f"/v1/default/banks/{bank}/memories/list?document_id={document}&limit=100")
    return [m["id"] for m in listed["items"]]


def texts(server: hindsight_server.Server, bank: str) -> set[str]:
    listed = call(server, "GET", f"/v1/default/banks/{bank}/memories/list?limit=100")
    return {m["text"] for m in listed["items"]}


def configure(home: Path, *, url: str, bank: str, key: str) -> None:
    (home / "config.yaml").write_text("memory:\n  provider: hindsight\n")
    (home / "hindsight").mkdir(exist_ok=True)
    (home / "hindsight" / "config.json").write_text(json.dumps({"mode": "local_external", "api_url": url,
                                                                "bank_id": bank}))
    (home / ".env").write_text(f"HINDSIGHT_API_KEY={key}\n" if key else "")


@pytest.fixture
def bank(server: hindsight_server.Server, home: Path) -> str:
    """A bank of this test's own on the shared server, set up as the agent's bank, with two
    documents: a session of two memories and one of a single memory."""
    name = f"t-{uuid.uuid4().hex[:10]}"
    retain(server, name, "session-a", "The user prefers tea over coffee.", "The staging host is kestrel.")
    retain(server, name, "session-b", "Deploys go out on Fridays at noon.")
    configure(home, url=server.url, bank=name, key=server.key)
    return name


def item_id(bank: str, memory_id: str) -> str:
    from memory_core.external.hindsight import _token

    return _token(bank, memory_id)


def memory_ids(server: hindsight_server.Server, bank: str, document: str) -> list[str]:
    listed = call(server, "GET", f"/v1/default/banks/{bank}/memories/list?document_id={document}&limit=100")
    return [m["id"] for m in listed["items"]]


def test_it_lists_and_searches_the_memories_of_the_agents_bank(owner_client, server, bank):
    page = owner_client.get("/contents/hindsight/")
    html = page.content.decode()
    assert page.status_code == 200 and "3 memories" in html
    for text in ("The user prefers tea over coffee.", "The staging host is kestrel.", "Deploys go out on Fridays"):
        assert text in html
    assert "session-a" in html and "session-b" in html
    found = owner_client.get("/contents/hindsight/?q=kestrel").content.decode()
    assert "1 memory" in found and "kestrel" in found and "tea over coffee" not in found
    paged = owner_client.get("/contents/hindsight/?per_page=2&page=2").content.decode()
    assert "Page 2 of 2" in paged and paged.count("/delete/") == 1


def test_it_shows_one_memory_with_its_document_and_tags(owner_client, server, bank):
    memory = memory_ids(server, bank, "session-a")[0]
    page = owner_client.get(f"/contents/hindsight/{item_id(bank, memory)}/").content.decode()
    assert "session-a" in page and "session:s-1" in page and "conversation" in page and "2 memories" in page
    missing = item_id(bank, str(uuid.uuid4()))
    assert owner_client.get(f"/contents/hindsight/{missing}/").status_code == 404
    assert owner_client.get("/contents/hindsight/not-a-token/").status_code == 404


def test_it_filters_by_bank_and_by_type(owner_client, server, bank):
    other = f"t-{uuid.uuid4().hex[:10]}"
    retain(server, other, "elsewhere", "A memory in another bank.")
    # Without an LLM every memory is a world fact; one is re-typed as an extraction would type it.
    import psycopg2

    experience = memory_ids(server, bank, "session-b")[0]
    with psycopg2.connect(server.database) as conn, conn.cursor() as cursor:
        cursor.execute("UPDATE memory_units SET fact_type = 'experience' WHERE id = %s", (experience,))
    conn.close()
    page = owner_client.get("/contents/hindsight/?type=experience").content.decode()
    assert "1 memory" in page and "Deploys go out on Fridays" in page and "kestrel" not in page
    world = owner_client.get("/contents/hindsight/?type=world").content.decode()
    assert "2 memories" in world and "Deploys go out" not in world
    elsewhere = owner_client.get(f"/contents/hindsight/?bank={other}").content.decode()
    assert "1 memory" in elsewhere and "A memory in another bank." in elsewhere and "kestrel" not in elsewhere
    assert f'<option value="{other}"' in elsewhere and f'<option value="{bank}"' in elsewhere


def test_it_deletes_the_document_holding_a_memory_after_confirmation_and_audits(owner_client, server, bank):
    first, second = memory_ids(server, bank, "session-a")
    target = item_id(bank, first)
    confirm = owner_client.get(f"/contents/hindsight/{target}/delete/").content.decode()
    assert "Delete the document session-a?" in confirm and "2 memories" in confirm and "cannot be undone" in confirm
    others = texts(server, bank) - {"Deploys go out on Fridays at noon."}
    assert all(text in confirm for text in others)  # the memory and the other one that goes with it
    before = texts(server, bank)
    response = owner_client.post(f"/contents/hindsight/{target}/delete/", follow=True)
    assert "Deleted the document session-a from hindsight, with the 2 memories" in response.content.decode()
    assert before - texts(server, bank) == others  # the document's two memories, nothing else
    entry = AuditEntry.objects.get()
    assert entry.provider == "hindsight" and entry.details["action"] == "delete" and entry.details["item_id"] == target
    assert entry.details["content"] in {"The user prefers tea over coffee.", "The staging host is kestrel."}
    # Gone already: said so, nothing else touched.
    again = owner_client.post(f"/contents/hindsight/{item_id(bank, second)}/delete/", follow=True)
    assert again.status_code == 404 or b"no longer" in again.content
    assert texts(server, bank) == {"Deploys go out on Fridays at noon."}


def test_it_deletes_nothing_when_the_memory_changed_since_the_page_was_opened(owner_client, server, bank):
    memory = memory_ids(server, bank, "session-b")[0]
    target = item_id(bank, memory)
    confirm = owner_client.get(f"/contents/hindsight/{target}/delete/").content.decode()
    version = confirm.split('name="version" value="')[1].split('"')[0]
    call(server, "PATCH", f"/v1/default/banks/{bank}/memories/{memory}", {"text": "Deploys go out on Thursdays."})
    response = owner_client.post(f"/contents/hindsight/{target}/delete/", {"version": version}, follow=True)
    assert b"nothing was deleted" in response.content
    assert "Deploys go out on Thursdays." in texts(server, bank)


def test_it_refuses_viewers_every_change(viewer_client, server, bank):
    page = viewer_client.get("/contents/hindsight/").content.decode()
    assert "3 memories" in page and "/delete/" not in page
    target = item_id(bank, memory_ids(server, bank, "session-b")[0])
    assert viewer_client.get(f"/contents/hindsight/{target}/delete/").status_code == 403
    assert viewer_client.post(f"/contents/hindsight/{target}/delete/").status_code == 403
    assert len(texts(server, bank)) == 3
    assert not AuditEntry.objects.exists()


def test_it_masks_stored_secrets_in_memories(owner_client, server, bank, home):
    retain(server, bank, "session-c", "The deploy token is ghp_0123456789abcdefABCDEF0123 for prod.")
    (home / ".env").write_text(f"HINDSIGHT_API_KEY={server.key}\nGITHUB_TOKEN=ghp_0123456789abcdefABCDEF0123\n")
    target = item_id(bank, memory_ids(server, bank, "session-c")[0])
    for url in ("/contents/hindsight/", f"/contents/hindsight/{target}/", f"/contents/hindsight/{target}/delete/"):
        page = owner_client.get(url).content.decode()
        assert "ghp_0123456789abcdef" not in page and "[secret: GITHUB_TOKEN]" in page, url
        assert server.key not in page


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_it_says_plainly_when_the_server_does_not_answer(owner_client, home):
    # No real server needed: nothing listens on this port.
    port = _closed_port()
    configure(home, url=f"http://127.0.0.1:{port}", bank="hermes", key="a-key-that-stays-secret")
    page = owner_client.get("/contents/hindsight/")
    html = page.content.decode()
    assert page.status_code == 503
    assert f"The Hindsight server at http://127.0.0.1:{port} did not answer" in html and "reload" in html
    assert "a-key-that-stays-secret" not in html and "<table" not in html
    target = item_id("hermes", str(uuid.uuid4()))
    deleted = owner_client.post(f"/contents/hindsight/{target}/delete/", follow=True).content.decode()
    assert "did not answer" in deleted and "Deleted" not in deleted
    assert not AuditEntry.objects.exists()


def test_it_says_plainly_when_the_server_refuses_the_key(owner_client, server, bank, home):
    (home / ".env").write_text("HINDSIGHT_API_KEY=not-the-servers-key\n")
    html = owner_client.get("/contents/hindsight/").content.decode()
    assert "refused the API key" in html and "Correct the API key in the hindsight settings" in html
    assert "not-the-servers-key" not in html and "kestrel" not in html
    (home / ".env").write_text("")
    html = owner_client.get("/contents/hindsight/").content.decode()
    assert "asks for an API key and none is set" in html and "kestrel" not in html
    target = item_id(bank, memory_ids(server, bank, "session-b")[0])
    owner_client.post(f"/contents/hindsight/{target}/delete/")
    assert len(texts(server, bank)) == 3


def test_it_reads_the_key_from_the_settings_file_before_the_env(owner_client, server, bank, home):
    (home / ".env").write_text("HINDSIGHT_API_KEY=not-the-servers-key\n")
    settings = json.loads((home / "hindsight" / "config.json").read_text())
    (home / "hindsight" / "config.json").write_text(json.dumps({**settings, "apiKey": server.key}))
    assert "3 memories" in owner_client.get("/contents/hindsight/").content.decode()


def test_it_says_so_when_hindsight_is_not_set_up_and_asks_no_server(owner_client, home):
    page = owner_client.get("/contents/hindsight/")
    assert page.status_code == 200 and b"Hindsight is not set up for this agent" in page.content
    assert b"/providers/hindsight/" in page.content


def test_it_answers_in_chinese_when_the_server_does_not_answer(owner_client, home):
    configure(home, url=f"http://127.0.0.1:{_closed_port()}", bank="hermes", key="k")
    html = owner_client.get("/contents/hindsight/", HTTP_ACCEPT_LANGUAGE="zh-Hans").content.decode()
    assert "Hindsight 服务器没有响应" in html


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 900)])
def test_its_pages_read_well_on_a_phone_and_a_desktop_and_pass_axe(browser, live_server, owner, server, bank, home,
                                                                    width, height):
    from tests.a11y.axe_check import assert_accessible
    from tests.conftest import PASSWORD, keep_for_docs, screenshot

    target = item_id(bank, memory_ids(server, bank, "session-a")[0])
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(owner.username)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{live_server.url}/")
        for path, name in (("/contents/hindsight/", "list"), (f"/contents/hindsight/{target}/", "memory"),
                           (f"/contents/hindsight/{target}/delete/", "delete"), ("offline", "offline")):
            if path == "offline":
                configure(home, url=f"http://127.0.0.1:{_closed_port()}", bank=bank, key=server.key)
                path = "/contents/hindsight/"
            page.goto(f"{live_server.url}{path}")
            assert page.locator("main").is_visible()
            # Nothing wider than the screen: the page scrolls down, never sideways.
            assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, name
            keep_for_docs(screenshot(page, f"contents-hindsight-{name}-{width}x{height}"), issue=26)
            assert_accessible(page, where=name)
    finally:
        context.close()


def test_the_maintenance_page_reads_hindsight_anew_so_a_secret_stored_on_the_server_shows(owner_client, server,
                                                                                          bank, home):
    from memory_core import caching

    (home / ".env").write_text(f"HINDSIGHT_API_KEY={server.key}\nBACKUP_PASSPHRASE=mauve-otter-4471\n")
    caching.clear_all()

    def section() -> str:
        html = owner_client.get("/memory/memory/maintenance/").content.decode()
        start = html.index('id="maintenance-provider"')
        return html[start:html.index("</section>", start)]

    assert "[secret: BACKUP_PASSPHRASE]" not in section()
    retain(server, bank, "session-c", "The offsite backup opens with mauve-otter-4471 only.")
    found = section()  # the server has no files to watch: nothing cached may hide the new memory
    assert "[secret: BACKUP_PASSPHRASE]" in found and "mauve-otter-4471" not in found
    assert "/contents/hindsight/" in found


def test_it_finds_the_key_in_the_keyring_when_the_panel_keeps_secrets_there(owner_client, server, bank, home,
                                                                             settings, dict_keyring):
    from provider_schemas.secret_stores.keyring_store import keyring_service

    settings.PANEL_SECRET_STORE = "keyring"
    (home / ".env").write_text("")
    dict_keyring.set_password(keyring_service(home), "HINDSIGHT_API_KEY", server.key)
    assert "3 memories" in owner_client.get("/contents/hindsight/").content.decode()
