"""Try it (validate and plan, never write), per-field re-rendering, hot-reload polling, paste mode."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from admin_panel.selectors import preview as selectors
from tests.preview.conftest import NOTES_SCHEMA, snapshot, write_schema

pytestmark = pytest.mark.django_db

SECRET = "s3cr3t-Value-never-echoed"


def _form(**values: str) -> dict[str, str]:
    """The preview form as rendered for the notes schema with nothing stored, then edited."""
    data = {"o:mode": "cloud", "v:mode": "cloud", "secret:api_key": "keep", "new:api_key": "",
            "o:url": "", "v:url": "", "vis:url": "0", "o:limit": "10", "v:limit": "10"}
    data.update(values)
    return data


def _hostile(proof: Path) -> str:
    return NOTES_SCHEMA + f"\n__import__('os').system('touch {proof}')\nopen({str(proof)!r}, 'w').write('ran')\n"


# --- Try it -------------------------------------------------------------------------------------


def test_it_shows_what_a_save_would_store_where_and_writes_nothing(owner_client, notes_plugin, home):
    (home / "notes.json").write_text('{"limit": 42}')
    before = snapshot(home)

    response = owner_client.post("/schema-preview/try/", {"choice": "plugin:notes", **_form(
        **{"o:limit": "42", "v:limit": "50", "v:mode": "local", "v:url": "http://127.0.0.1:9000"})})
    content = response.content.decode()

    assert response.status_code == 200
    assert "Nothing was written" in content
    assert "<code>notes.json</code> · <code>limit</code></td>" in content
    assert "<td><code>42</code></td><td><code>50</code></td>" in content
    assert "<code>http://127.0.0.1:9000</code>" in content
    assert 'name="v:limit" value="50"' in content  # the form keeps what was typed
    assert snapshot(home) == before


def test_it_reports_every_invalid_field_and_writes_nothing(owner_client, notes_plugin, home):
    before = snapshot(home)

    response = owner_client.post("/schema-preview/try/", {"choice": "plugin:notes", **_form(
        **{"v:limit": "lots", "secret:api_key": "replace", "new:api_key": ""})})
    content = response.content.decode()

    assert response.status_code == 400
    assert "a save would be refused and nothing would be written" in content
    assert "Enter the new value" in content
    response = owner_client.post("/schema-preview/try/", {"choice": "plugin:notes", **_form(**{"v:limit": "lots"})})
    assert "Enter a number, such as 10." in response.content.decode()
    assert 'aria-invalid="true"' in response.content.decode()
    assert snapshot(home) == before


def test_it_plans_a_new_secret_without_ever_showing_it(owner_client, notes_plugin, home):
    before = snapshot(home)

    response = owner_client.post("/schema-preview/try/", {"choice": "plugin:notes", **_form(
        **{"secret:api_key": "replace", "new:api_key": SECRET})})
    content = response.content.decode()

    assert response.status_code == 200
    assert SECRET not in content
    assert "<code>.env</code> · <code>NOTES_API_KEY</code>" in content
    assert "secret set (value never shown)" in content
    assert not (home / ".env").exists()
    assert snapshot(home) == before


def test_it_answers_htmx_with_the_fragment_even_when_values_are_invalid(owner_client, notes_plugin):
    response = owner_client.post("/schema-preview/try/", {"choice": "plugin:notes", **_form(**{"v:limit": "x"})},
                                 headers={"HX-Request": "true"})
    content = response.content.decode()

    assert response.status_code == 200  # htmx only swaps 2xx answers
    assert content.startswith('<div class="preview" data-fingerprint=')
    assert "Enter a number" in content and "<html" not in content
    assert response["X-Preview-Fingerprint"]


def test_it_plans_a_file_outside_the_home_as_a_first_save(owner_client, home, tmp_path, settings, monkeypatch):
    scratch_parent = tmp_path / "scratch"
    scratch_parent.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_parent))
    write_schema(tmp_path / "src" / "notes" / "config_schema.py", NOTES_SCHEMA)
    settings.PANEL_SCHEMA_PREVIEW_DIRS = [tmp_path / "src"]
    before = snapshot(home)

    response = owner_client.post("/schema-preview/try/", {"choice": "dir:0:notes/config_schema.py",
                                                          **_form(**{"v:limit": "3"})})
    content = response.content.decode()

    assert response.status_code == 200
    assert "<td>—</td><td><code>3</code></td>" in content
    assert "Files a save would write: <code>notes.json</code>" in content
    assert "this is what a first save would write" in content
    assert snapshot(home) == before
    assert list(scratch_parent.iterdir()) == []  # the throwaway home is gone


def test_it_plans_in_static_mode_against_the_homes_values(owner_client, notes_plugin, home):
    (home / "notes.json").write_text('{"limit": 42}')
    before = snapshot(home)

    response = owner_client.post("/schema-preview/try/", {"choice": "plugin:notes", "mode": "static",
                                                          **_form(**{"o:limit": "42", "v:limit": "43"})})

    assert "<td><code>42</code></td><td><code>43</code></td>" in response.content.decode()
    assert snapshot(home) == before


def test_it_says_when_nothing_would_change(owner_client, notes_plugin):
    response = owner_client.post("/schema-preview/try/", {"choice": "plugin:notes", **_form()})

    assert "A save of this form would change nothing" in response.content.decode()


def test_it_refuses_a_try_for_a_choice_it_does_not_list(owner_client, home):
    response = owner_client.post("/schema-preview/try/", {"choice": "plugin:../../etc", **_form()})

    assert response.status_code == 404


# --- per-field re-rendering ---------------------------------------------------------------------


def test_it_reveals_a_conditional_row_when_its_condition_starts_to_hold(owner_client, notes_plugin):
    response = owner_client.post("/schema-preview/field/?key=mode",
                                 {"choice": "plugin:notes", **_form(**{"v:mode": "local"})},
                                 headers={"HX-Request": "true"})
    content = response.content.decode()

    assert response.status_code == 200
    assert 'id="row-fld-0-mode"' in content
    url_row = re.search(r'<div [^>]*id="row-fld-2-url"[^>]*>', content).group(0)
    assert 'hx-swap-oob="outerHTML"' in url_row
    assert "field--off" not in url_row


def test_it_validates_the_field_just_left(owner_client, notes_plugin):
    response = owner_client.post("/schema-preview/field/?key=limit",
                                 {"choice": "plugin:notes", **_form(**{"v:limit": "nan"})},
                                 headers={"HX-Request": "true"})

    assert "Enter a number, such as 10." in response.content.decode()


# --- hot reload ---------------------------------------------------------------------------------


def test_it_answers_204_while_the_file_is_unchanged_and_the_fragment_once_it_changes(owner_client, notes_plugin):
    first = owner_client.get("/schema-preview/?choice=plugin:notes")
    fingerprint = first["X-Preview-Fingerprint"]
    poll = "/schema-preview/poll/?choice=plugin%3Anotes&fp="

    unchanged = owner_client.get(poll + fingerprint, headers={"HX-Request": "true"})
    assert unchanged.status_code == 204 and unchanged.content == b""

    write_schema(notes_plugin, NOTES_SCHEMA.replace('"Result limit"', '"Maximum results"'))
    changed = owner_client.get(poll + fingerprint, headers={"HX-Request": "true"})
    assert changed.status_code == 200
    assert changed["X-Preview-Fingerprint"] != fingerprint
    assert b"Maximum results" in changed.content
    assert f'data-fingerprint="{changed["X-Preview-Fingerprint"]}"'.encode() in changed.content

    write_schema(notes_plugin, NOTES_SCHEMA.replace("fields=(", "fields=(]"))
    broken = owner_client.get(poll + changed["X-Preview-Fingerprint"], headers={"HX-Request": "true"})
    assert b"The schema does not load" in broken.content and b"SyntaxError" in broken.content
    assert b'name="v:mode"' not in broken.content

    write_schema(notes_plugin, NOTES_SCHEMA)
    fixed = owner_client.get(poll + broken["X-Preview-Fingerprint"], headers={"HX-Request": "true"})
    assert b'name="v:mode"' in fixed.content and b"The schema does not load" not in fixed.content


def test_it_notices_a_file_replaced_by_rename_and_a_removed_file(owner_client, notes_plugin):
    fingerprint = owner_client.get("/schema-preview/?choice=plugin:notes")["X-Preview-Fingerprint"]
    poll = "/schema-preview/poll/?choice=plugin%3Anotes&fp="
    replacement = notes_plugin.with_name("config_schema.py.new")
    replacement.write_text(NOTES_SCHEMA)  # same size, new inode: what editors do on save
    replacement.replace(notes_plugin)

    assert owner_client.get(poll + fingerprint).status_code == 200

    notes_plugin.unlink()
    gone = owner_client.get(poll + fingerprint)
    assert gone.status_code == 200 and b"FileNotFoundError" in gone.content


def test_it_polls_only_choices_it_lists(owner_client, home):
    assert owner_client.get("/schema-preview/poll/?choice=plugin:..&fp=x").status_code == 404


# --- paste mode ---------------------------------------------------------------------------------


def test_it_previews_pasted_text_with_defaults(owner_client, home):
    response = owner_client.post("/schema-preview/paste/", {"source": NOTES_SCHEMA})
    content = response.content.decode()

    assert response.status_code == 200
    assert "Pasted: evaluated as pure data, never executed" in content
    assert 'name="v:limit" value="10"' in content
    assert '<textarea name="source" hidden' in content  # Try it carries the text along


def test_it_refuses_a_paste_that_would_run_code_with_its_line_and_no_side_effect(owner_client, home, tmp_path):
    proof = tmp_path / "created-by-paste"
    text = _hostile(proof)

    response = owner_client.post("/schema-preview/paste/", {"source": text})
    content = response.content.decode()

    assert response.status_code == 400
    assert "Not accepted as pure data" in content
    line = next(n for n, text_line in enumerate(text.splitlines(), start=1) if "__import__" in text_line)
    assert f"<dt>Line</dt><dd>{line}" in content
    for url in ("/schema-preview/try/", "/schema-preview/field/?key=mode"):
        owner_client.post(url, {"source": text, **_form()})
    assert not proof.exists()


def test_it_tries_pasted_text_against_an_empty_home(owner_client, home):
    before = snapshot(home)

    response = owner_client.post("/schema-preview/try/", {"source": NOTES_SCHEMA, **_form(**{"v:limit": "4"})})
    content = response.content.decode()

    assert response.status_code == 200
    assert "<td>—</td><td><code>4</code></td>" in content
    assert "Preview pasted schema text" in content  # the paste page, text kept in its box
    assert snapshot(home) == before


def test_it_refuses_a_paste_over_256_kb_with_a_clear_message(owner_client, home):
    text = NOTES_SCHEMA + "#" * (selectors.MAX_SCHEMA_BYTES)

    response = owner_client.post("/schema-preview/paste/", {"source": text})

    assert response.status_code == 413
    assert "larger than 256 KB" in response.content.decode()
    assert owner_client.post("/schema-preview/try/", {"source": text}).status_code == 413


def test_it_refuses_a_huge_body_before_reading_it(owner_client, home):
    body = "source=" + "x" * (2 * selectors.MAX_SCHEMA_BYTES + 1)

    response = owner_client.post("/schema-preview/paste/", body, content_type="application/x-www-form-urlencoded")

    assert response.status_code == 413
    assert "larger than 256 KB" in response.content.decode()


def test_it_asks_for_text_when_the_paste_is_empty(owner_client, home):
    response = owner_client.post("/schema-preview/paste/", {"source": "   "})

    assert response.status_code == 400
    assert "Paste the text of a config_schema.py." in response.content.decode()
