"""The maintenance page's findings extend to what the active provider remembers: duplicates,
credentials and stored secrets, relative dates and task state in provider items, each linking to
the item's page; a stored secret in a provider item is masked on every page that shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core import caching
from tests.memory_view.helpers import write_store
from tests.provider_contents import store as plugin

pytestmark = pytest.mark.django_db

SECRET = "mauve-otter-4471"  # no known key format: only the stored secret makes it a finding
PLACEHOLDER = "[secret: BACKUP_PASSPHRASE]"


@pytest.fixture
def facts(home: Path) -> Path:
    (home / ".env").write_text(f"BACKUP_PASSPHRASE={SECRET}\n", encoding="utf-8")
    caching.clear_all()
    (home / "config.yaml").write_text("memory:\n  provider: holographic\n")
    write_store(home, "memory", ["Uses uv."])
    conn = plugin.connect(plugin.create(home / "memory_store.db"))
    for text, category in (("Uses uv.", "general"),                                            # 1: a mirror
                           (f"The offsite backup opens with {SECRET} only.", "general"),        # 2: secret
                           ("The deploy broke yesterday after the cache change.", "project"),   # 3: relative
                           ("Prefers concise answers without emojis.", "user_pref"),            # 4
                           ("Prefers concise answers, no emojis.", "user_pref"),                # 5: near 4
                           ("Likes green tea in the morning.", "user_pref")):                   # 6: clean
        plugin.add_fact(conn, text, category)
    conn.close()
    return home


def _section(html: str) -> str:
    start = html.index('id="maintenance-provider"')
    return html[start:html.index("</section>", start)]


def _finding(section: str, item_id: str) -> str:
    start = section.rindex("<li", 0, section.index(f'data-provider-item="{item_id}"'))
    return section[start:section.index("</li>", start)]


def test_it_reports_a_stored_secret_in_a_provider_item_masked_with_a_link_to_the_item(owner_client, facts):
    for target in ("memory", "user"):
        html = owner_client.get(f"/memory/{target}/maintenance/").content.decode()
        assert SECRET not in html
        finding = _finding(_section(html), "2")
        assert 'data-category="credential"' in finding
        assert f"<mark>{PLACEHOLDER}</mark>" in finding
        assert 'href="/contents/holographic/2/"' in finding
    # Masked wherever the item is shown: its page, the list, a search that finds it.
    for url in ("/contents/holographic/2/", "/contents/holographic/", "/contents/holographic/?q=offsite"):
        html = owner_client.get(url).content.decode()
        assert SECRET not in html and PLACEHOLDER in html, url


def test_it_reports_stale_wording_and_duplicates_among_provider_items(owner_client, facts):
    section = _section(owner_client.get("/memory/memory/maintenance/").content.decode())
    assert 'data-category="relative_date"' in _finding(section, "3")
    assert 'href="/contents/holographic/3/"' in _finding(section, "3")
    duplicates = section[section.index('id="maintenance-provider-duplicates"'):]
    duplicates = duplicates[:duplicates.index("</ol>")]
    assert 'href="/contents/holographic/4/"' in duplicates and 'href="/contents/holographic/5/"' in duplicates
    assert "/contents/holographic/6/" not in section and "/contents/holographic/1/" not in section


def test_it_follows_the_store_after_the_item_is_deleted(owner_client, facts):
    assert 'data-provider-item="2"' in owner_client.get("/memory/memory/maintenance/").content.decode()
    conn = plugin.connect(facts / "memory_store.db")
    plugin.remove_fact(conn, 2)
    conn.close()
    assert 'data-provider-item="2"' not in owner_client.get("/memory/memory/maintenance/").content.decode()
    # Built-in memory only: no provider section at all.
    (facts / "config.yaml").write_text("memory:\n  provider: ''\n")
    assert 'id="maintenance-provider"' not in owner_client.get("/memory/memory/maintenance/").content.decode()


def test_it_reads_a_byterover_tree_the_same_way(owner_client, home):
    (home / "config.yaml").write_text("memory:\n  provider: byterover\n")
    topic = home / "byterover" / ".brv" / "context-tree" / "ops" / "ci"
    topic.mkdir(parents=True)
    (topic / "runner.md").write_text("---\ntitle: Runner\n---\nTODO: move the runner to the new host.\n")
    html = owner_client.get("/memory/memory/maintenance/").content.decode()
    section = _section(html)
    assert "What byterover remembers" in section
    assert 'data-category="task_state"' in section
    assert "/contents/byterover/" in section


def test_it_says_so_plainly_when_the_provider_store_cannot_be_read(owner_client, home):
    (home / "config.yaml").write_text("memory:\n  provider: holographic\n")
    (home / "memory_store.db").write_bytes(b"this is not a database, only text" * 40)
    response = owner_client.get("/memory/memory/maintenance/")
    assert response.status_code == 200
    assert "The holographic store could not be read" in _section(response.content.decode())


def test_it_checks_the_newest_items_of_a_large_store_and_says_so(owner_client, facts, monkeypatch):
    from memory_core.maintenance import provider

    monkeypatch.setattr(provider, "SCAN_LIMIT", 4)
    monkeypatch.setattr(provider, "DUPLICATE_LIMIT", 2)
    section = _section(owner_client.get("/memory/memory/maintenance/").content.decode())
    assert "Only the newest 4 items are checked (duplicates among the newest 2)." in section
    assert 'data-provider-item="3"' in section  # newest first: 6, 5, 4, 3
    assert 'data-provider-item="2"' not in section
    assert 'id="maintenance-provider-duplicates"' not in section  # 4 and 5 are not among the newest 2


def test_it_speaks_chinese_too(owner_client, facts):
    html = owner_client.get("/memory/memory/maintenance/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    section = _section(html)
    assert "holographic 记住的内容" in section and "打开 holographic 中的条目 2" in section
    assert SECRET not in html
    form = owner_client.get(f"/memory/memory/entries/{_key('Uses uv.')}/edit/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "将副本更新为新文本" in form.content.decode()


def _key(text: str) -> str:
    from admin_panel.selectors.memory import entry_key

    return entry_key(text)


def test_the_check_command_reports_a_provider_item_holding_a_secret_without_printing_it(facts):
    import json
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("memory", "check", "--json", stdout=out)
    assert exited.value.code == 1  # Uses uv. alone is clean: the provider's credential fails the check
    assert SECRET not in out.getvalue()
    provider = json.loads(out.getvalue())["provider"]
    assert provider["provider"] == "holographic" and provider["items_checked"] == 6
    credential = next(f for f in provider["findings"] if f["category"] == "credential")
    assert credential["item_id"] == "2" and "[credential hidden]" in credential["entry"]
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("memory", "check", stdout=out)
    assert "credential in item 2: '[credential hidden]'" in out.getvalue() and SECRET not in out.getvalue()


def test_it_says_so_plainly_when_the_providers_server_does_not_answer(owner_client, home):
    import json
    import socket

    with socket.socket() as closed:  # a port nothing listens on once this closes
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    (home / "config.yaml").write_text("memory:\n  provider: hindsight\n")
    (home / "hindsight").mkdir()
    (home / "hindsight" / "config.json").write_text(json.dumps({"mode": "local_external",
                                                               "api_url": f"http://127.0.0.1:{port}"}))
    response = owner_client.get("/memory/memory/maintenance/")
    assert response.status_code == 200
    assert "The hindsight store could not be read, so its items are not checked." in _section(
        response.content.decode())
