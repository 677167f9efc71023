"""The secret store in a real Chromium: switch to the real keyring, move the secrets, save a new
key, and check what the agent would get with ``secrets exec -- env`` in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail
from playwright.sync_api import expect

from tests.conftest import ARTIFACTS_DIR, keep_for_docs
from tests.providers_ui.helpers import write

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]
ENV_TEXT = "# my agent\nOTHER=1\nMEM0_API_KEY=m0-browser-value\nSUPERMEMORY_API_KEY=sm-browser-value\n"
NEW_KEY = "hs-browser-new-key-5K"


def _section_shot(page, name: str) -> Path:
    """The store card as a PNG in test-artifacts/ (and in docs/ with DOCS_SCREENSHOTS=1)."""
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    path = ARTIFACTS_DIR / f"{name}.png"
    page.locator("#secret-store").screenshot(path=str(path))
    keep_for_docs(path, issue=16)
    return path


def _exec_env(home: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HERMES_HOME=str(home), DJANGO_SETTINGS_MODULE="admin_panel.settings")
    child = subprocess.run([sys.executable, "manage.py", "secrets", "exec", "--", "env"], cwd=REPO, env=env,
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr
    return child.stdout.splitlines()


def test_it_switches_to_the_keyring_moves_the_secrets_and_saves_a_new_key_the_agent_receives(
    signed_in_page, live_server, home, real_keyring
):
    page = signed_in_page
    write(home / ".env", ENV_TEXT)
    page.goto(f"{live_server.url}/settings/")
    _section_shot(page, "store-available-en")

    page.get_by_role("radio", name="OS keyring").check()
    page.get_by_role("button", name="Use this store").click()
    expect(page.get_by_text("New secrets now go to the OS keyring.")).to_be_visible()
    section = page.locator("#move-secrets")
    assert section.get_by_text("MEM0_API_KEY").is_visible() and section.get_by_text("SUPERMEMORY_API_KEY").is_visible()

    section.get_by_role("link", name="Move stored secrets to the keyring").click()
    _section_shot(page, "store-move-review-en")
    page.get_by_role("button", name="Confirm the move").click()
    expect(page.get_by_text("Moved 2 stored secrets to the OS keyring")).to_be_visible()
    assert "m0-browser-value" not in page.content()
    assert (home / ".env").read_text() == "# my agent\nOTHER=1\n"

    page.goto(f"{live_server.url}/providers/hindsight/")
    page.get_by_label("Mode", exact=True).select_option("cloud")
    page.get_by_role("radio", name="Set a value").first.check()
    page.get_by_label("New API key", exact=True).fill(NEW_KEY)
    page.get_by_role("button", name="Review changes").click()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Saved. Changes apply the next time the agent starts.")).to_be_visible()

    lines = _exec_env(home)
    assert f"HINDSIGHT_API_KEY={NEW_KEY}" in lines
    assert "MEM0_API_KEY=m0-browser-value" in lines and "SUPERMEMORY_API_KEY=sm-browser-value" in lines
    env_text = (home / ".env").read_text()
    assert NEW_KEY not in env_text and "m0-browser-value" not in env_text


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_it_shows_the_keyring_unavailable_with_its_reason_in_each_language(
    signed_in_page, live_server, home, language
):
    page = signed_in_page
    page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        page.goto(f"{live_server.url}/settings/")
        radio = page.locator('input[name="secret_store"][value="keyring"]')
        assert radio.is_disabled()
        reason = page.locator("#keyring-problem")
        assert "no keyring service was found" in reason.inner_text() or "没有找到" in reason.inner_text()
        assert "keyring.backends" not in reason.inner_text()  # a sentence, never a class name
        assert radio.get_attribute("aria-describedby") == "keyring-problem"
        _section_shot(page, f"store-unavailable-{language}")
    finally:
        keyring.set_keyring(previous)


def test_it_shows_the_keyring_available_in_chinese(signed_in_page, live_server, home, real_keyring):
    page = signed_in_page
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": live_server.url}])
    write(home / ".env", ENV_TEXT)
    page.goto(f"{live_server.url}/settings/")
    assert page.locator('input[name="secret_store"][value="keyring"]').is_enabled()
    assert page.locator("#keyring-problem").count() == 0
    _section_shot(page, "store-available-zh-hans")

    page.locator('input[name="secret_store"][value="keyring"]').check()
    page.get_by_role("button", name="使用此存储").click()
    page.get_by_role("link", name="将已保存的密钥移到密钥环").click()
    expect(page.get_by_role("button", name="确认移动")).to_be_visible()
    _section_shot(page, "store-move-review-zh-hans")


def test_it_moves_into_the_keyring_and_back_to_env_from_the_page_each_after_its_confirmation(
    signed_in_page, live_server, home, real_keyring
):
    from playwright.sync_api import expect

    from admin_panel.models import AuditEntry

    page = signed_in_page
    write(home / ".env", ENV_TEXT)
    page.goto(f"{live_server.url}/settings/")  # the .env file is the store in use; no switch first
    to_keyring, to_env = page.locator("#move-to-keyring"), page.locator("#move-to-env_file")
    expect(to_keyring.get_by_text("SUPERMEMORY_API_KEY")).to_be_visible()
    expect(to_env.get_by_text("Nothing to move: no stored secret is in the OS keyring.")).to_be_visible()

    to_keyring.get_by_role("link", name="Move stored secrets to the keyring").click()
    confirm = page.locator("#confirm-move")
    expect(confirm.get_by_role("button", name="Confirm the move")).to_be_visible()
    confirm.get_by_role("link", name="Cancel").click()  # cancelling moves nothing
    expect(page.locator("#confirm-move")).to_have_count(0)
    assert (home / ".env").read_text() == ENV_TEXT
    page.locator("#move-to-keyring").get_by_role("link", name="Move stored secrets to the keyring").click()
    page.get_by_role("button", name="Confirm the move").click()
    expect(page.get_by_text("Moved 2 stored secrets to the OS keyring")).to_be_visible()
    assert (home / ".env").read_text() == "# my agent\nOTHER=1\n"

    to_env = page.locator("#move-to-env_file")
    expect(to_env.get_by_text("MEM0_API_KEY")).to_be_visible()
    _section_shot(page, "store-move-both-directions-en")
    to_env.get_by_role("link", name="Move stored secrets to the .env file").click()
    expect(page.locator("#move-to-env_file .variable-list")).to_have_text("MEM0_API_KEYSUPERMEMORY_API_KEY")
    expect(page.locator("#confirm-move").get_by_role("button", name="Confirm the move")).to_be_visible()
    _section_shot(page, "store-move-back-review-en")
    assert "m0-browser-value" not in page.content() and "sm-browser-value" not in page.content()
    page.get_by_role("button", name="Confirm the move").click()
    expect(page.get_by_text("Moved 2 stored secrets to the .env file")).to_be_visible()

    text = (home / ".env").read_text()
    assert text.startswith("# my agent\nOTHER=1\n")
    assert "MEM0_API_KEY=m0-browser-value\n" in text and "SUPERMEMORY_API_KEY=sm-browser-value\n" in text
    assert [v for (svc, _), v in real_keyring.items(probes=False).items()] == []
    moved = AuditEntry.objects.filter(kind=AuditEntry.Kind.SECRET_STORE).order_by("pk")
    assert [(e.details["new"], e.details["moved"]) for e in moved] == [
        ("keyring", ["MEM0_API_KEY", "SUPERMEMORY_API_KEY"]), ("env_file", ["MEM0_API_KEY", "SUPERMEMORY_API_KEY"])]


def test_it_reviews_a_move_of_every_profile_by_profile(signed_in_page, live_server, home, real_keyring):
    from playwright.sync_api import expect

    page = signed_in_page
    write(home / ".env", ENV_TEXT)
    (home / "profiles" / "work").mkdir(parents=True)
    write(home / "profiles" / "work" / ".env", "MEM0_API_KEY=m0-work-browser\n")
    page.goto(f"{live_server.url}/settings/")

    page.get_by_label("Every profile (2), all or nothing").check()
    page.get_by_role("button", name="Show what would move").click()
    to_keyring = page.locator("#move-to-keyring")
    expect(to_keyring.get_by_text("Profile work")).to_be_visible()
    to_keyring.get_by_role("link", name="Move stored secrets to the keyring").click()
    expect(page.get_by_role("button", name="Confirm the move")).to_be_visible()
    _section_shot(page, "store-move-every-profile-review-en")
    assert "m0-work-browser" not in page.content()
    page.get_by_role("button", name="Confirm the move").click()

    expect(page.get_by_text("Moved 3 stored secrets to the OS keyring")).to_be_visible()
    assert (home / "profiles" / "work" / ".env").read_text() == ""
