"""The preview page: the provider form, lint findings with their source lines, load errors in
place of the form, the API payload and the storage map."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from tests.preview.conftest import NOTES_SCHEMA, make_plugin, write_schema

pytestmark = pytest.mark.django_db

ENDPOINTS = [
    ("get", "/schema-preview/"),
    ("get", "/schema-preview/?choice=bundled:hindsight"),
    ("get", "/schema-preview/poll/?choice=bundled:hindsight"),
    ("get", "/schema-preview/paste/"),
    ("post", "/schema-preview/paste/"),
    ("post", "/schema-preview/try/"),
    ("post", "/schema-preview/field/?key=mode"),
]

LINTY = '''\
from plugins.memory.config_schema import KIND_SECRET, KIND_SELECT, ProviderConfigSchema, ProviderField
from plugins.memory.config_schema import ProviderFieldOption

CONFIG_SCHEMA = ProviderConfigSchema(
    name="linty",
    label="Linty",
    fields=(
        ProviderField("mode", "Mode", kind=KIND_SELECT, default="a",
                      options=(ProviderFieldOption("a", "A"), ProviderFieldOption("b", "B"))),
        ProviderField("api_token", "API token"),
        ProviderField("extra", "Extra", when={"mode": "c"}),
        ProviderField("key_one", "Key one", kind=KIND_SECRET, env_key="LINTY_KEY"),
        ProviderField("key_two", "Key two", kind=KIND_SECRET, env_key="LINTY_KEY"),
    ),
)
'''


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


def _payload_from(content: bytes) -> dict:
    match = re.search(rb'<pre class="payload"[^>]*><code>(.*?)</code></pre>', content, re.S)
    assert match is not None
    return json.loads(html.unescape(match.group(1).decode()))


@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_it_is_for_staff_only_even_to_look(viewer_client, home, method, url):
    response = getattr(viewer_client, method)(url)

    assert response.status_code == 403


def test_it_renders_the_form_with_the_provider_pages_field_rows(owner_client, notes_plugin):
    response = owner_client.get("/schema-preview/?choice=plugin:notes")
    content = response.content.decode()

    assert response.status_code == 200
    # The provider page's row partial: same controls, names and "Stored in" meta line.
    assert 'data-key="mode"' in content and 'name="v:mode"' in content and 'name="o:mode"' in content
    assert 'name="secret:api_key"' in content
    assert "Stored in: notes.json · limit" in content
    assert 'hx-post="/schema-preview/field/?key=mode"' in content
    assert 'data-poll-url="/schema-preview/poll/?choice=plugin%3Anotes"' in content


def test_it_shows_the_values_stored_in_this_home_for_its_own_providers(owner_client, notes_plugin, home):
    (home / "notes.json").write_text('{"limit": 42}')

    content = owner_client.get("/schema-preview/?choice=plugin:notes").content.decode()

    assert 'name="v:limit" value="42"' in content
    assert "the form shows the values stored there" in content


def test_it_shows_defaults_for_a_file_outside_the_home(owner_client, home, tmp_path, settings):
    (home / "notes.json").write_text('{"limit": 42}')
    write_schema(tmp_path / "src" / "notes" / "config_schema.py", NOTES_SCHEMA)
    settings.PANEL_SCHEMA_PREVIEW_DIRS = [tmp_path / "src"]

    content = owner_client.get("/schema-preview/?choice=dir:0:notes/config_schema.py").content.decode()

    assert 'name="v:limit" value="10"' in content
    assert "Shown with no stored values" in content


def test_it_shows_each_lint_finding_with_its_line_and_source(owner_client, home):
    make_plugin(home, "linty", LINTY)

    content = html.unescape(owner_client.get("/schema-preview/?choice=plugin:linty").content.decode())

    findings = re.findall(r'<li class="finding finding--(\w+)">(.*?)</li>', content, re.S)
    by_key = {re.search(r"<code>(\w+)</code>", body).group(1): (severity, body) for severity, body in findings}
    severity, body = by_key["api_token"]
    assert severity == "warning" and f"line {_line_of(LINTY, 'api_token')}" in body
    assert "looks like a credential" in body
    assert 'ProviderField("api_token", "API token")' in body
    severity, body = by_key["extra"]
    extra_line = _line_of(LINTY, '"extra"')
    assert severity == "error" and f"line {extra_line}" in body
    assert 'when={"mode": "c"}' in body
    severity, body = by_key["key_two"]
    assert severity == "error" and "LINTY_KEY" in body and f"line {_line_of(LINTY, 'key_two')}" in body


def test_it_marks_the_whole_field_declaration_under_a_finding(owner_client, home):
    spread = 'ProviderField(\n            "api_token",\n            "API token",\n        )'
    make_plugin(home, "linty", LINTY.replace('ProviderField("api_token", "API token")', spread))

    content = owner_client.get("/schema-preview/?choice=plugin:linty").content.decode()

    finding = re.search(r'<li class="finding finding--warning">.*?</li>', content, re.S).group(0)
    assert finding.count('class="source__line') == 4
    assert finding.count("source__line--marked") == 1


def test_it_replaces_the_form_with_a_load_error_and_the_lines_around_it(owner_client, home):
    broken = NOTES_SCHEMA.replace('storage_path="notes.json",', 'storage_path=NOWHERE,')
    make_plugin(home, "notes", broken)
    line = _line_of(broken, "NOWHERE")

    response = owner_client.get("/schema-preview/?choice=plugin:notes")
    content = response.content.decode()

    assert response.status_code == 200
    assert "The schema does not load" in content
    assert "<code>NameError</code>" in content and "name &#x27;NOWHERE&#x27; is not defined" in content
    assert f"<dt>Line</dt><dd>{line}</dd>" in content
    marked = re.findall(r'source__line--marked"><span class="source__no" aria-hidden="true">(\d+)</span>', content)
    assert marked == [str(line)]
    numbers = re.findall(r'<span class="source__no" aria-hidden="true">(\d+)</span>', content)
    assert numbers == [str(n) for n in range(line - 3, line + 4)]
    assert 'name="v:mode"' not in content  # no form while the schema does not load
    assert _payload_from(response.content)["schema_error"]["line"] == line


def test_it_places_a_declaration_check_failure_at_its_field(owner_client, home):
    make_plugin(home, "notes", NOTES_SCHEMA.replace('default="cloud"', 'default="nowhere"'))

    content = owner_client.get("/schema-preview/?choice=plugin:notes").content.decode()

    assert "<code>ValueError</code>" in content
    line = _line_of(NOTES_SCHEMA, 'ProviderField("mode"')
    assert f"<dt>Line</dt><dd>{line}</dd>" in content


def test_it_shows_the_payload_the_api_returns(owner_client, notes_plugin, home):
    (home / "notes.json").write_text('{"mode": "local", "url": "http://x"}')

    page = _payload_from(owner_client.get("/schema-preview/?choice=plugin:notes").content)
    api = owner_client.get("/api/memory/providers/notes/config").json()

    assert page == api
    assert [f["key"] for f in page["fields"]] == ["mode", "api_key", "url", "limit"]


def test_it_shows_where_every_field_is_stored(owner_client, home):
    schema = '''\
from plugins.memory.config_schema import KIND_BOOL, KIND_SECRET, ProviderConfigSchema, ProviderField

CONFIG_SCHEMA = ProviderConfigSchema(
    name="mapped",
    label="Mapped",
    storage="config_yaml",
    storage_path="memory.mapped",
    fields=(
        ProviderField("auto", "Auto", kind=KIND_BOOL, default="true"),
        ProviderField("base_url", "Base URL", storage="env_file", env_key="MAPPED_BASE_URL"),
        ProviderField("token", "Token", kind=KIND_SECRET, env_key="MAPPED_TOKEN"),
    ),
)
'''
    make_plugin(home, "mapped", schema)

    content = html.unescape(owner_client.get("/schema-preview/?choice=plugin:mapped").content.decode())
    table = re.search(r'<table class="storage-map">.*?</table>', content, re.S).group(0)
    rows = {re.search(r"<code>(\w+)</code>", r).group(1): r for r in re.findall(r"<tr>.*?</tr>", table, re.S)[1:]}

    assert "config.yaml · memory.mapped.auto" in rows["auto"]
    assert ".env · variable MAPPED_BASE_URL" in rows["base_url"]
    assert "secret store (.env file) · MAPPED_TOKEN" in rows["token"]


def test_it_notes_a_plugin_the_agent_would_not_load(owner_client, home):
    make_plugin(home, "notes", NOTES_SCHEMA, marker=False)

    content = owner_client.get("/schema-preview/?choice=plugin:notes").content.decode()

    assert "The agent does not load this plugin yet" in content
    assert "Shown with no stored values" in content
    assert 'name="v:mode"' in content


def test_it_notes_a_plugin_shadowed_by_a_bundled_provider(owner_client, home):
    make_plugin(home, "hindsight", NOTES_SCHEMA.replace('name="notes"', 'name="hindsight"'))

    content = owner_client.get("/schema-preview/?choice=plugin:hindsight").content.decode()

    assert "takes precedence: the agent ignores this file" in content


def test_it_previews_every_bundled_provider(owner_client, home):
    for name in ("byterover", "hindsight", "holographic", "honcho", "mem0", "openviking", "retaindb", "supermemory"):
        response = owner_client.get(f"/schema-preview/?choice=bundled:{name}")
        assert response.status_code == 200, name
        assert b"The form as users see it" in response.content, name
        assert _payload_from(response.content)["name"] == name


def test_it_escapes_everything_taken_from_the_file(owner_client, home):
    hostile = NOTES_SCHEMA.replace('label="Notes"', 'label="<script>alert(1)</script>"').replace(
        '"Result limit"', '"<img src=x onerror=alert(2)>"'
    )
    make_plugin(home, "notes", hostile)
    make_plugin(home, "broken", "x = 1\nraise ValueError('<b>bold</b>')\n")

    for choice in ("plugin:notes", "plugin:broken"):
        content = owner_client.get(f"/schema-preview/?choice={choice}").content.decode()
        assert "<script>alert" not in content and "<img src=x" not in content and "<b>bold" not in content
        assert "style=" not in content
        assert not re.search(r"<script(?![^>]*\bsrc=)", content)  # no inline script


def test_it_answers_an_unknown_choice_with_404_and_reads_nothing(owner_client, home, tmp_path):
    proof = tmp_path / "executed"
    target = tmp_path / "loose" / "config_schema.py"
    write_schema(target, f"open({str(proof)!r}, 'w').write('ran')\n")

    response = owner_client.get("/schema-preview/", {"choice": str(target)})

    assert response.status_code == 404
    assert b"not a schema file the preview can open" in response.content
    assert not proof.exists()


def test_it_checks_a_file_as_pure_data_without_executing_it(owner_client, home, tmp_path):
    proof = tmp_path / "executed"
    code = NOTES_SCHEMA + f"\nopen({str(proof)!r}, 'w').write('ran')\n"
    make_plugin(home, "notes", code)

    content = owner_client.get("/schema-preview/?choice=plugin:notes&mode=static").content.decode()

    assert "Not accepted as pure data" in content
    assert f"<dt>Line</dt><dd>{_line_of(code, 'open(')}" in content
    assert not proof.exists()


def test_it_shows_a_pure_data_file_in_static_mode_with_the_homes_values(owner_client, notes_plugin, home):
    (home / "notes.json").write_text('{"limit": 7}')

    content = owner_client.get("/schema-preview/?choice=plugin:notes&mode=static").content.decode()

    assert "Evaluated as pure data, not executed" in content
    assert 'name="v:limit" value="7"' in content
    assert '<input type="hidden" name="mode" value="static">' in content


def test_it_requires_the_directory_name_in_static_mode_too(owner_client, home):
    make_plugin(home, "notes", NOTES_SCHEMA.replace('name="notes"', 'name="other"'))

    content = owner_client.get("/schema-preview/?choice=plugin:notes&mode=static").content.decode()

    assert "does not match the provider directory" in content
    assert 'name="v:mode"' not in content


def test_it_lists_the_allowed_directories_in_the_picker(owner_client, home, tmp_path, settings):
    write_schema(tmp_path / "src" / "notes" / "config_schema.py", NOTES_SCHEMA)
    settings.PANEL_SCHEMA_PREVIEW_DIRS = [tmp_path / "src"]

    content = owner_client.get("/schema-preview/").content.decode()

    assert 'value="dir:0:notes/config_schema.py"' in content
    assert str(Path(tmp_path / "src").as_posix()) in content
