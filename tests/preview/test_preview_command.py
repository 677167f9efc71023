"""``manage.py schema preview PATH``: the panel on loopback, focused on a file outside HERMES_HOME."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from playwright.sync_api import expect

from admin_panel.schema_preview_runner import preview_path, preview_target
from tests.conftest import screenshot
from tests.preview.conftest import NOTES_SCHEMA, write_schema
from tests.serving import REPO, child_env, free_port


def test_it_accepts_the_schema_file_or_the_plugin_directory_holding_it(tmp_path):
    schema = write_schema(tmp_path / "notes" / "config_schema.py", NOTES_SCHEMA)

    assert preview_target(schema) == schema
    assert preview_target(tmp_path / "notes") == schema
    assert preview_path(index=2) == "/schema-preview/?choice=dir%3A2%3Aconfig_schema.py"


@pytest.mark.parametrize("name", ["schema.py", "config_schema.py", "missing-dir"])
def test_it_refuses_a_path_that_is_not_an_existing_schema_file(tmp_path, name):
    (tmp_path / "schema.py").write_text("x = 1\n")

    with pytest.raises(CommandError):
        call_command("schema", "preview", str(tmp_path / name))


@pytest.mark.browser
def test_it_serves_the_preview_of_that_file_and_follows_its_edits(page, tmp_path):
    schema = write_schema(tmp_path / "src" / "notes" / "config_schema.py", NOTES_SCHEMA)
    port = free_port()
    env = child_env(HERMES_HOME=str(tmp_path / "hermes"), PANEL_DATA_DIR=str(tmp_path / "panel"),
                    PANEL_SCHEMA_PREVIEW_DIRS="")
    process = subprocess.Popen(
        [sys.executable, str(REPO / "manage.py"), "schema", "preview", str(schema.parent), "--port", str(port)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 180
        while not any("serving on" in line for line in lines):
            assert process.poll() is None and time.monotonic() < deadline, "".join(lines)
            time.sleep(0.1)
        output = "".join(lines)
        preview_url = f"http://127.0.0.1:{port}/schema-preview/?choice=dir%3A0%3Aconfig_schema.py"
        assert preview_url in output
        first_run = re.search(r"http://127\.0\.0\.1:\d+/accounts/first-run/\S+/", output).group(0)

        page.goto(first_run)
        page.get_by_label("Username").fill("author")
        page.get_by_label("Password", exact=True).fill("a long and new passphrase")
        page.get_by_label("Password confirmation").fill("a long and new passphrase")
        page.get_by_role("button", name="Create account and sign in").click()
        page.wait_for_url(f"http://127.0.0.1:{port}/")
        page.goto(preview_url)
        page.get_by_role("heading", name="The form as users see it").wait_for()
        expect(page.get_by_label("Mode")).to_be_visible()
        assert "src/notes/config_schema.py" in page.locator(".preview__title").inner_text()

        write_schema(schema, NOTES_SCHEMA.replace('"Result limit"', '"Maximum results"'))
        page.locator("summary", has_text="Other").click()  # stays open across the reload
        page.get_by_label("Maximum results").wait_for()
        screenshot(page, "preview-command")
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=180)


def test_it_is_reachable_only_on_loopback(tmp_path, monkeypatch):
    schema = write_schema(tmp_path / "notes" / "config_schema.py", NOTES_SCHEMA)
    calls: list[dict] = []
    monkeypatch.setattr("admin_panel.schema_preview_runner.call_command", lambda *a, **kw: calls.append(kw))
    from io import StringIO

    from admin_panel.schema_preview_runner import run_preview

    out = StringIO()
    run_preview(path=Path(schema), port=8123, out=out)

    assert calls == [{"host": "127.0.0.1", "port": 8123, "threads": 8, "schema_dir": [str(schema.parent)]}]
    assert "http://127.0.0.1:8123/schema-preview/?choice=dir%3A0%3Aconfig_schema.py" in out.getvalue()
