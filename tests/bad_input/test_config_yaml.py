"""A broken config.yaml: every change that would write it is refused with a message naming the
file (409), nothing is written, pages still render, other providers keep working."""

from __future__ import annotations

import pytest

from tests.bad_input.helpers import api_put, assert_refused, assert_unchanged, others_still_work, snapshot

pytestmark = pytest.mark.django_db

BROKEN = {
    "invalid_yaml": b"memory:\n  provider: [unclosed\n",
    "list_at_top_level": b"- memory\n- provider: hindsight\n",
    "memory_not_a_mapping": b"_config_version: 33\nmemory: just a string\n",
    "memory_is_a_list": b"memory:\n  - provider\n  - hindsight\n",
    "tab_indentation": b"memory:\n\tprovider: hindsight\n",
    "not_utf8": b"memory:\n  provider: \xff\xfe\n",
    "plugins_section_not_a_mapping": b"plugins: 3\nmemory:\n  provider: ''\n",
    "deeply_nested": b"memory: " + b"[" * 20_000 + b"]" * 20_000 + b"\n",
    "refers_to_itself": b"memory: &m\n  provider: ''\n  itself: *m\n",
    "integer_too_long": b"memory:\n  provider: ''\n  memory_char_limit: " + b"9" * 5000 + b"\n",
}
# Messages name the file; the memory: problems also say what is wrong with the section.
MESSAGE = "config.yaml"


@pytest.fixture(params=sorted(BROKEN))
def broken(request, home):
    (home / "config.yaml").write_bytes(BROKEN[request.param])
    return request.param


def test_it_refuses_activation_through_the_api(owner_client, home, broken):
    before = snapshot(home)

    response = api_put(owner_client, "/api/memory/provider", {"provider": "holographic"})
    deactivate = api_put(owner_client, "/api/memory/provider", {"provider": ""})

    if broken == "plugins_section_not_a_mapping":
        # memory: itself is fine here: activation only writes memory.provider.
        assert response.status_code == 200
        return
    assert_refused(response, MESSAGE, "Fix or remove the file first", statuses=(409,))
    assert deactivate.status_code in (200, 409)
    assert_unchanged(home, before)


def test_it_refuses_activation_from_the_panel(owner_client, home, broken):
    before = snapshot(home)

    response = owner_client.post("/providers/holographic/activate/")

    if broken == "plugins_section_not_a_mapping":
        # Only another section is broken: memory.provider is written, that section kept as it was.
        assert response.status_code == 302
        assert (home / "config.yaml").read_text().startswith("plugins: 3\n")
        return
    assert_refused(response, MESSAGE, statuses=(409,))
    assert_unchanged(home, before)


def test_it_refuses_a_config_yaml_provider_save(owner_client, home, broken):
    before = snapshot(home)
    name, values = (("holographic", {"db_path": "/tmp/x.db"}) if broken == "plugins_section_not_a_mapping"
                    else ("byterover", {"auto_extract": False}))

    response = api_put(owner_client, f"/api/memory/providers/{name}/config", {"values": values})

    assert_refused(response, MESSAGE, statuses=(409,))
    assert_unchanged(home, before)
    others_still_work(owner_client, home)


def test_it_refuses_a_memory_settings_save_with_the_reason(owner_client, home, broken):
    before = snapshot(home)

    response = owner_client.post("/settings/", {"v:memory_char_limit": "3000", "o:memory_char_limit": "2200"})

    if broken == "plugins_section_not_a_mapping":
        assert response.status_code == 302
        assert "memory_char_limit: 3000" in (home / "config.yaml").read_text()
        return
    assert_refused(response, MESSAGE, "Fix or remove the file first", statuses=(409,))
    assert_unchanged(home, before)


def test_it_still_renders_every_page_and_says_what_is_wrong(owner_client, home, broken):
    for url in ("/", "/providers/", "/providers/byterover/", "/providers/holographic/", "/settings/", "/memory/",
                "/api/memory", "/api/memory/providers/byterover/config"):
        response = owner_client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    settings_page = owner_client.get("/settings/").content.decode()
    if broken != "plugins_section_not_a_mapping":
        assert MESSAGE in settings_page


def test_it_refuses_a_huge_config_yaml_by_its_size_without_writing(owner_client, home):
    filler = b"  - 'xxxxxxxxxxxxxxxxxxxxxxxxx'\n" * 400_000  # 12 MB
    (home / "config.yaml").write_bytes(b"memory:\n  provider: ''\nfiller:\n" + filler)
    before = snapshot(home)

    response = api_put(owner_client, "/api/memory/provider", {"provider": "holographic"})
    pages = [owner_client.get(url) for url in ("/settings/", "/memory/", "/providers/byterover/")]

    assert_refused(response, "config.yaml", "larger than", statuses=(409,))
    assert [page.status_code for page in pages] == [200, 200, 200]
    assert_unchanged(home, before)


def test_it_survives_a_billion_laughs_config_yaml(owner_client, home):
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [*a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}]"
              for i in range(1, 10)]
    lines += ["memory:", "  provider: ''", "  provider_config: *a9", "  byterover: {auto_extract: *a9}"]
    (home / "config.yaml").write_text("\n".join(lines) + "\n")
    before = snapshot(home)

    responses = [
        owner_client.get("/settings/"),
        owner_client.get("/api/memory/providers/byterover/config"),
        api_put(owner_client, "/api/memory/providers/byterover/config", {"values": {"auto_extract": True}}),
    ]

    assert [r.status_code for r in responses[:2]] == [200, 200]
    assert_refused(responses[2], "config.yaml", "aliases expand it", statuses=(409,))
    assert owner_client.get("/memory/").status_code == 200
    assert_unchanged(home, before)
