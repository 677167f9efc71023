"""Permission denied inside HERMES_HOME (a real server without root's override of file modes):
every page and API call answers with a clear message, never a 500, and nothing is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.faults.panel import Browser, prepare_panel, serve, without_root_override

pytestmark = pytest.mark.slow

SAVE_HINDSIGHT = json.dumps({"values": {"bank_id": "bank-new"}}).encode()


def _home_files(home: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(home.rglob("*")):
        try:
            if path.is_file():
                out[str(path.relative_to(home))] = path.read_bytes()
        except PermissionError:
            out[str(path.relative_to(home))] = b"<unreadable>"
    return out


@pytest.fixture(scope="module")
def panel(tmp_path_factory):
    """One real server for the module, as root without CAP_DAC_OVERRIDE (file modes apply)."""
    root = tmp_path_factory.mktemp("perm")
    home, data = root / "home", root / "data"
    token = prepare_panel(home=home, data_dir=data)
    (home / "hindsight").mkdir()
    (home / "hindsight" / "config.json").write_text('{"bank_id": "bank-old"}')
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Old fact.")
    (home / ".env").write_text("HINDSIGHT_API_KEY=old\n")
    (home / "config.yaml").write_text("memory:\n  provider: ''\n")
    with serve(home=home, data_dir=data, prefix=without_root_override()) as server:
        browser = Browser(f"http://127.0.0.1:{server.port}")
        browser.sign_in()
        yield home, token, browser, server


@pytest.fixture
def locked(panel):
    """Yield a function that chmods a path for one test and restores it afterwards."""
    changed: list[tuple[Path, int]] = []

    def lock(path: Path, mode: int) -> None:
        changed.append((path, path.stat().st_mode & 0o777))
        path.chmod(mode)

    yield lock
    for path, mode in reversed(changed):
        path.chmod(mode)


def _api(browser: Browser, token: str, method: str, path: str, body: bytes | None = None):
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    return browser.request(method, path, headers=headers, body=body)


def _clear(status: int, body: str) -> None:
    assert status < 500, (status, body[:1500])
    assert "Permission denied" in body or "permission denied" in body, body[:3000]


def test_it_refuses_a_save_into_a_read_only_provider_folder(panel, locked):
    home, token, browser, _server = panel
    locked(home / "hindsight", 0o500)
    before = _home_files(home)

    status, body, _headers = _api(browser, token, "PUT", "/api/memory/providers/hindsight/config", SAVE_HINDSIGHT)

    _clear(status, body)
    assert _home_files(home) == before


def test_it_shows_an_unreadable_provider_folder_and_refuses_to_save(panel, locked):
    home, token, browser, _server = panel
    locked(home / "hindsight", 0o000)

    get_status, get_body, _h = _api(browser, token, "GET", "/api/memory/providers/hindsight/config")
    page_status, page_body, _h = browser.request("GET", "/providers/hindsight/")
    put_status, put_body, _h = _api(browser, token, "PUT", "/api/memory/providers/hindsight/config", SAVE_HINDSIGHT)

    assert get_status == 200 and "Permission denied" in json.loads(get_body)["storage"]["error"]
    _clear(page_status, page_body)
    _clear(put_status, put_body)


def test_it_reports_an_unreadable_env_file_everywhere(panel, locked):
    home, token, browser, _server = panel
    locked(home / ".env", 0o000)

    results = [
        _api(browser, token, "GET", "/api/memory"),
        _api(browser, token, "GET", "/api/memory/providers/hindsight/config"),
        browser.request("GET", "/providers/"),
        browser.request("GET", "/providers/hindsight/"),
        _api(browser, token, "PUT", "/api/memory/providers/hindsight/config",
             json.dumps({"values": {"api_key": "new"}}).encode()),
    ]

    for status, body, _headers in results:
        assert status < 500, (status, body[:800])
    _clear(*results[-1][:2])


def test_it_shows_an_unreadable_memories_folder_and_refuses_to_write(panel, locked):
    home, _token, browser, _server = panel
    locked(home / "memories", 0o000)

    page_status, page_body, _h = browser.request("GET", "/memory/")
    add_status, add_body, _h = browser.request("POST", "/memory/memory/add/", {"content": "New fact."})

    _clear(page_status, page_body)
    _clear(add_status, add_body)
    os.chmod(home / "memories", 0o700)
    assert (home / "memories" / "MEMORY.md").read_text() == "Old fact."


def test_it_refuses_a_memory_write_into_a_read_only_memories_folder(panel, locked):
    home, _token, browser, _server = panel
    (home / "memories" / "MEMORY.md.lock").touch()  # as after any earlier write: the lock opens
    locked(home / "memories", 0o500)

    status, body, _h = browser.request("POST", "/memory/memory/add/", {"content": "Another fact."})

    _clear(status, body)
    assert "memories/ is read-only (permission denied): nothing was changed." in body
    # No absolute path (the footer names the home itself) and no temp file name.
    assert f"{home}/memories" not in body and ".mem_" not in body
    assert (home / "memories" / "MEMORY.md").read_text() == "Old fact."


def test_it_refuses_settings_and_activation_when_config_yaml_cannot_be_replaced(panel, locked):
    home, token, browser, _server = panel
    locked(home, 0o500)
    before = _home_files(home)

    settings_status, settings_body, _h = browser.request(
        "POST", "/settings/", {"v:memory_char_limit": "3000", "o:memory_char_limit": "2200"})
    api_status, api_body, _h = _api(browser, token, "PUT", "/api/memory/provider",
                                    json.dumps({"provider": "holographic"}).encode())

    _clear(api_status, api_body)
    assert settings_status < 500, settings_body[:500]
    assert _home_files(home) == before


def test_it_keeps_serving_other_pages_while_a_folder_is_locked(panel, locked):
    home, _token, browser, _server = panel
    locked(home / "hindsight", 0o000)

    for path in ("/", "/providers/", "/settings/", "/audit/", "/providers/mem0/"):
        status, body, _h = browser.request("GET", path)
        assert status == 200, (path, status, body[:300])
