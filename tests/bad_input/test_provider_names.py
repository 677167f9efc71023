"""Provider names with path traversal and encoding tricks never reach the file system: the API
answers 404 (A1's guard) before any file access, the pages answer 404, profile names are checked,
and a plugin directory whose name cannot be addressed is listed but never executed."""

from __future__ import annotations

import pytest

from tests.bad_input.helpers import api_put, assert_unchanged, snapshot

pytestmark = pytest.mark.django_db

# Raw path segment → the name Django hands the view (after percent-decoding).
GUARDED = {
    "..": "..",
    "%2E%2E": "..",
    ".hindsight": ".hindsight",
    "hind.sight": "hind.sight",
    "%20hindsight": " hindsight",
    "hindsight%20": "hindsight ",
    "-hindsight": "-hindsight",
    "hind%00sight": "hind\x00sight",
    "h%C3%AFndsight": "hïndsight",
    "h%D1%96ndsight": "hіndsight",  # Cyrillic і
    "hindsight%E2%80%AE": "hindsight\u202e",
    "%25%32%65%25%32%65": "%2e%2e",
    "a" * 65: "a" * 65,
    "~root": "~root",
    "hindsight;rm": "hindsight;rm",
}
EXTRA_SEGMENTS = ["../../etc", "..%2F..%2Fetc", "hindsight%2F..%2F..", "hindsight/../../config.yaml",
                  "%2e%2e/%2e%2e/etc/passwd"]


@pytest.fixture
def canary(home):
    """Files a traversal would reach: none of them may be read into a page or changed."""
    (home / "config.yaml").write_text("memory:\n  provider: ''\nsecret_marker: CANARY-CONFIG\n")
    (home / ".env").write_text("OPENAI_API_KEY=CANARY-ENV\n")
    return snapshot(home)


@pytest.mark.parametrize("raw", sorted(GUARDED))
def test_it_answers_404_for_a_guarded_name_in_the_api(owner_client, home, canary, raw):
    name = GUARDED[raw]

    got = owner_client.get(f"/api/memory/providers/{raw}/config")
    put = api_put(owner_client, f"/api/memory/providers/{raw}/config", {"values": {"x": "y"}})

    for response in (got, put):
        assert response.status_code == 404, (raw, response.status_code, response.content[:200])
        assert response.json() == {"detail": f"Unknown memory provider: {name}"}
    assert_unchanged(home, canary)


@pytest.mark.parametrize("raw", EXTRA_SEGMENTS)
def test_it_matches_no_route_for_extra_segments(owner_client, home, canary, raw):
    got = owner_client.get(f"/api/memory/providers/{raw}/config")
    put = api_put(owner_client, f"/api/memory/providers/{raw}/config", {"values": {"x": "y"}})

    assert got.status_code == 404 and got.json() == {"detail": "Not Found"}
    assert put.status_code == 405 and put.json() == {"detail": "Method Not Allowed"}
    for response in (got, put):
        assert response["Content-Type"].startswith("application/json")
        assert "CANARY" not in response.content.decode()
    assert_unchanged(home, canary)


def test_it_treats_another_case_as_an_undeclared_provider(owner_client, home, canary):
    got = owner_client.get("/api/memory/providers/HINDSIGHT/config")
    put = api_put(owner_client, "/api/memory/providers/HINDSIGHT/config", {"values": {"bank_id": "x"}})

    assert got.json() == {"name": "HINDSIGHT", "label": "HINDSIGHT", "docs_url": "", "fields": []}
    assert put.status_code == 404 and put.json() == {"detail": "Unknown memory provider: HINDSIGHT"}
    assert_unchanged(home, canary)


@pytest.mark.parametrize("raw", [*sorted(GUARDED), "..%2F..%2Fetc", "HINDSIGHT"])
def test_it_answers_404_on_the_provider_pages(owner_client, home, canary, raw):
    for suffix in ("", "activate/"):
        response = owner_client.get(f"/providers/{raw}/{suffix}")
        assert response.status_code == 404, (raw, suffix, response.status_code)
        assert "CANARY" not in response.content.decode()
    for suffix in ("review/", "save/", "activate/", "field/"):
        response = owner_client.post(f"/providers/{raw}/{suffix}", {"v:bank_id": "x"})
        assert response.status_code == 404, (raw, suffix, response.status_code)
    assert_unchanged(home, canary)


@pytest.mark.parametrize(("profile", "status", "detail"), [
    ("../x", 400, "Invalid profile name '../x'. Must match [a-z0-9][a-z0-9_-]{0,63}"),
    ("..", 400, "Invalid profile name '..'. Must match [a-z0-9][a-z0-9_-]{0,63}"),
    ("Upper", 400, "Invalid profile name 'Upper'. Must match [a-z0-9][a-z0-9_-]{0,63}"),
    ("a/b", 400, "Invalid profile name 'a/b'. Must match [a-z0-9][a-z0-9_-]{0,63}"),
    ("nope", 404, "Profile 'nope' does not exist."),
])
def test_it_checks_the_profile_parameter(owner_client, home, canary, profile, status, detail):
    from urllib.parse import quote

    got = owner_client.get(f"/api/memory/providers/hindsight/config?profile={quote(profile)}")
    put = api_put(owner_client, f"/api/memory/providers/hindsight/config?profile={quote(profile)}",
                  {"values": {"bank_id": "x"}})
    listing = owner_client.get(f"/api/memory?profile={quote(profile)}")

    for response in (got, put, listing):
        assert response.status_code == status
        assert response.json() == {"detail": detail}
    assert_unchanged(home, canary)


def test_it_lists_but_never_executes_a_plugin_whose_name_cannot_be_addressed(owner_client, home):
    for name in ("bad name", "dot.ted", "-dash", "ünïcode"):
        plugin = home / "plugins" / name
        plugin.mkdir(parents=True)
        (plugin / "__init__.py").write_text("register_memory_provider\n")
        (plugin / "config_schema.py").write_text(
            f"open({str(home / 'EXECUTED')!r}, 'w').write('x')\n")

    page = owner_client.get("/providers/")
    listing = owner_client.get("/api/memory")

    assert page.status_code == 200 and listing.status_code == 200
    assert "cannot be addressed" in page.content.decode()
    assert not (home / "EXECUTED").exists()
    assert not any(row["name"] in ("bad name", "dot.ted") for row in listing.json()["providers"])


def test_it_does_not_follow_a_plugin_directory_out_of_the_home_for_a_bundled_name(owner_client, home, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "__init__.py").write_text("register_memory_provider\n")
    (outside / "config_schema.py").write_text(f"open({str(home / 'EXECUTED')!r}, 'w').write('x')\n")
    (home / "plugins").mkdir()
    (home / "plugins" / "hindsight").symlink_to(outside)

    response = owner_client.get("/api/memory/providers/hindsight/config")

    assert response.status_code == 200
    assert response.json()["origin"] == "bundled"
    assert not (home / "EXECUTED").exists()


@pytest.mark.parametrize("url", [
    "/memory/..%2F..%2Fetc/add/",
    "/memory/soul/add/",
    "/memory/memory/backups/..%2Fconfig.yaml/",
    "/memory/memory/backups/MEMORY.md.bak.1..%2F..%2Fconfig.yaml/",
    "/memory/memory/entries/..%2F..%2Fx/edit/",
])
def test_it_answers_404_for_traversal_in_memory_addresses(owner_client, home, canary, url):
    got = owner_client.get(url)
    posted = owner_client.post(url, {"content": "x"})

    assert got.status_code == 404 and posted.status_code == 404
    assert "CANARY" not in got.content.decode()
    assert_unchanged(home, canary)


def test_it_refuses_pending_ids_that_are_paths(owner_client, home, canary):
    (home / "x.json").write_text("{}")
    before = snapshot(home)

    response = owner_client.post("/memory/pending/action/", {"action": "reject", "pending_id": "../../x"})

    assert response.status_code == 400
    assert "8 lower-case hex characters" in response.content.decode()
    assert_unchanged(home, before)
