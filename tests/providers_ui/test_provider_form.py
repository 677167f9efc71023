"""The generic provider form without JavaScript: review, save, errors, conflicts, secrets, `when`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from admin_panel.models import AuditEntry, SecretWrite
from tests.providers_ui.browserless import as_post, form_fields
from tests.providers_ui.helpers import snapshot_files, user_plugin, write

pytestmark = pytest.mark.django_db

PAGE = "/providers/{}/"
REVIEW = "/providers/{}/review/"
SAVE = "/providers/{}/save/"

KINDS_SCHEMA = '''
from plugins.memory.config_schema import (
    KIND_BOOL, KIND_JSON, KIND_NUMBER, KIND_SECRET, KIND_SELECT, KIND_TEXT,
    ProviderConfigSchema, ProviderField, ProviderFieldOption,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="kinds",
    label="Every kind",
    fields=(
        ProviderField("mode", "Mode", kind=KIND_SELECT, default="a", inline=True,
                      options=(ProviderFieldOption("a", "Alpha", "The first"), ProviderFieldOption("b", "Beta"))),
        ProviderField("token", "Token", kind=KIND_SECRET, env_key="KINDS_TOKEN", inline=True),
        ProviderField("name", "Name", default="anon"),
        ProviderField("on", "Enabled", kind=KIND_BOOL, default="false"),
        ProviderField("size", "Size", kind=KIND_NUMBER, default="5"),
        ProviderField("extra", "Extra", kind=KIND_JSON, group="Advanced"),
        ProviderField("beta_only", "Beta only", group="Advanced", when={"mode": "b"}),
    ),
)
'''


JSON_EXAMPLE = "Enter a JSON list or object, such as [&quot;first&quot;, &quot;second&quot;]."


def errors_in(html: str) -> list[str]:
    return [re.sub(r"&#x27;", "'", m) for m in re.findall(r'class="field__error"[^>]*>([^<]*)<', html)]


def open_form(client, name: str) -> tuple[str, list[tuple[str, str]]]:
    html = client.get(PAGE.format(name)).content.decode()
    return html, form_fields(html, REVIEW.format(name))


def review(client, name: str, fields, **changes):
    return client.post(REVIEW.format(name), as_post(fields, **changes))


def save_reviewed(client, name: str, review_html: str, **changes):
    return client.post(SAVE.format(name), as_post(form_fields(review_html, SAVE.format(name)), **changes))


@pytest.fixture
def kinds(home: Path) -> Path:
    user_plugin(home, "kinds", KINDS_SCHEMA)
    return home / "kinds" / "config.json"


# --- valid submissions, per kind --------------------------------------------------------------------


def test_it_saves_every_kind_after_a_review_that_shows_old_and_new(owner_client, kinds):
    _html, fields = open_form(owner_client, "kinds")

    response = review(
        owner_client, "kinds", fields,
        **{"v:mode": "b", "v:name": "zed", "v:on": "true", "v:size": "7.0", "v:extra": '{"k": [1, 2]}',
           "secret:token": "replace", "new:token": "tok-secret-9"},
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert "Review changes to Every kind" in html
    for label, old, new in (("Mode", "—", "b"), ("Name", "—", "zed"), ("Enabled", "—", "true"), ("Size", "—", "7"),
                            ("Extra", "—", '{&quot;k&quot;: [1, 2]}')):
        row = re.search(rf"<th scope=\"row\">{label}</th>.*?</tr>", html, re.S).group(0)
        assert f"<code>{old}</code>" in row and f"<code>{new}</code>" in row, row
    assert "will be set" in html and "tok-secret-9" not in html
    assert not kinds.exists()  # the review writes nothing

    saved = save_reviewed(owner_client, "kinds", html)

    assert saved.status_code == 302
    assert json.loads(kinds.read_text()) == {"mode": "b", "name": "zed", "on": True, "size": 7, "extra": {"k": [1, 2]}}
    assert "KINDS_TOKEN=tok-secret-9" in (kinds.parent.parent / ".env").read_text()
    assert SecretWrite.objects.filter(variable="KINDS_TOKEN").exists()
    entry = AuditEntry.objects.get()
    assert entry.channel == "panel" and entry.provider == "kinds"
    page = owner_client.get(PAGE.format("kinds")).content.decode()
    assert "tok-secret-9" not in page
    assert "Saved. Changes apply the next time the agent starts." in page
    assert "Every kind is not the active provider." in page


def test_it_submits_only_changed_fields_so_displayed_defaults_are_never_written(owner_client, kinds):
    _html, fields = open_form(owner_client, "kinds")

    html = review(owner_client, "kinds", fields, **{"v:size": "6"}).content.decode()
    save_reviewed(owner_client, "kinds", html)

    assert json.loads(kinds.read_text()) == {"size": 6}


def test_it_resets_a_field_to_its_default_by_removing_the_stored_value(owner_client, kinds):
    write(kinds, '{"name": "zed", "size": 9}')
    _html, fields = open_form(owner_client, "kinds")

    html = review(owner_client, "kinds", fields, **{"reset:name": "1"}).content.decode()
    assert "removed (default applies)" in html
    save_reviewed(owner_client, "kinds", html)

    assert json.loads(kinds.read_text()) == {"size": 9}


# --- invalid submissions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"v:size": "12x"}, "Enter a number, such as 5."),
        ({"v:size": "nan"}, "Enter a number, such as 5."),
        ({"v:on": "maybe"}, "Choose on or off."),
        ({"v:mode": "zzz"}, "Choose one of: Alpha, Beta."),
        ({"v:extra": '{"k": 1,\n "j": }'}, JSON_EXAMPLE),
        ({"v:extra": "42"}, JSON_EXAMPLE),
        ({"v:name": "a\x00b"}, "Enter the value on one line, without line breaks."),
        ({"secret:token": "replace", "new:token": ""}, "Enter the new value, or choose “Keep current value”."),
    ],
)
def test_it_shows_each_kinds_error_at_its_field_and_writes_nothing(owner_client, kinds, changes, message):
    write(kinds, '{"name": "before"}')
    before = snapshot_files(kinds.parent.parent)
    _html, fields = open_form(owner_client, "kinds")

    response = review(owner_client, "kinds", fields, **changes)

    html = response.content.decode()
    assert response.status_code == 400
    assert message in errors_in(html)
    assert "Nothing was saved." in html
    assert 'aria-invalid="true"' in html
    assert snapshot_files(kinds.parent.parent) == before


def test_it_lists_every_error_in_a_summary_linking_to_each_field(owner_client, kinds):
    _html, fields = open_form(owner_client, "kinds")

    html = review(owner_client, "kinds", fields, **{"v:size": "x", "v:on": "perhaps", "v:name": "ok"}).content.decode()

    summary = re.search(r'<div class="notice notice--error error-summary".*?</div>', html, re.S).group(0)
    assert "There are problems with 2 settings. Nothing was saved." in summary
    ids = re.findall(r'href="#([^"]+)"', summary)
    assert len(ids) == 2 and all(f'id="{i}"' in html for i in ids)
    assert 'value="ok"' in html  # what the user typed is still in the form


# --- conflicts -------------------------------------------------------------------------------------------


def test_it_refuses_a_review_when_the_file_changed_since_the_form_was_loaded(owner_client, kinds):
    write(kinds, '{"name": "first"}')
    _html, fields = open_form(owner_client, "kinds")
    write(kinds, '{"name": "someone else", "size": 3}')

    response = review(owner_client, "kinds", fields, **{"v:size": "8"})

    html = response.content.decode()
    assert response.status_code == 409
    assert "Changed elsewhere: nothing was saved" in html
    assert "Name (name) changed since the form was loaded" in html
    assert 'value="8"' in html  # the user's edit is kept
    assert 'value="someone else"' in html  # untouched fields show the new value
    assert json.loads(kinds.read_text()) == {"name": "someone else", "size": 3}


def test_it_refuses_a_save_when_the_file_changed_after_the_review(owner_client, kinds):
    _html, fields = open_form(owner_client, "kinds")
    reviewed = review(owner_client, "kinds", fields, **{"v:size": "8"}).content.decode()
    write(kinds, '{"size": 4}')

    response = save_reviewed(owner_client, "kinds", reviewed)

    assert response.status_code == 409
    assert "Changed elsewhere" in response.content.decode()
    assert json.loads(kinds.read_text()) == {"size": 4}
    assert not AuditEntry.objects.exists()


# --- secrets -----------------------------------------------------------------------------------------------


def test_it_keeps_a_secret_unless_replace_or_clear_is_chosen(owner_client, kinds):
    env = kinds.parent.parent / ".env"
    write(env, "KINDS_TOKEN=old-secret-1\n")
    html, fields = open_form(owner_client, "kinds")
    assert "old-secret-1" not in html
    assert "set in .env" in html

    nothing = review(owner_client, "kinds", fields)
    assert "Nothing to save" in nothing.content.decode()

    reviewed = review(owner_client, "kinds", fields, **{"secret:token": "clear"}).content.decode()
    assert "will be cleared" in reviewed
    unconfirmed = save_reviewed(owner_client, "kinds", reviewed)
    assert unconfirmed.status_code == 302 and env.read_text() == "KINDS_TOKEN=old-secret-1\n"

    save_reviewed(owner_client, "kinds", reviewed, **{"confirm:token": "1"})
    assert env.read_text() == ""


def test_it_treats_typing_in_the_secret_box_as_replace_without_javascript(owner_client, kinds):
    _html, fields = open_form(owner_client, "kinds")

    reviewed = review(owner_client, "kinds", fields, **{"new:token": "typed-secret-2"}).content.decode()

    assert "will be set" in reviewed and "typed-secret-2" not in reviewed
    save_reviewed(owner_client, "kinds", reviewed)
    assert "KINDS_TOKEN=typed-secret-2" in (kinds.parent.parent / ".env").read_text()


def test_it_asks_for_a_new_secret_again_when_the_held_value_is_gone(owner_client, kinds):
    _html, fields = open_form(owner_client, "kinds")
    reviewed = review(owner_client, "kinds", fields, **{"new:token": "lost-secret-3"}).content.decode()

    response = save_reviewed(owner_client, "kinds", reviewed, token="forged")

    assert response.status_code == 400
    assert "Enter the new value again" in response.content.decode()
    assert not (kinds.parent.parent / ".env").exists()


# --- when ------------------------------------------------------------------------------------------------


def test_it_lists_hidden_fields_with_a_note_and_ignores_their_values(owner_client, kinds):
    html, fields = open_form(owner_client, "kinds")
    assert "Only used when Mode is Beta." in html
    assert "1 setting hidden (shown when Mode is Beta). Its stored value is kept." in html

    reviewed = review(owner_client, "kinds", fields, **{"v:beta_only": "x", "v:size": "2"}).content.decode()

    assert "Not saved because these settings are hidden" in reviewed and "beta_only" in reviewed
    save_reviewed(owner_client, "kinds", reviewed)
    assert json.loads(kinds.read_text()) == {"size": 2}


def test_it_validates_one_field_and_re_renders_only_that_row_and_rows_whose_visibility_flipped(owner_client, kinds):
    _html, fields = open_form(owner_client, "kinds")

    bad = owner_client.post("/providers/kinds/field/?key=size", as_post(fields, **{"v:size": "1e999"}))
    assert bad.status_code == 200
    assert "Enter a number, such as 5." in bad.content.decode()
    assert bad.content.decode().count('class="field ') == 1

    flip = owner_client.post("/providers/kinds/field/?key=mode", as_post(fields, **{"v:mode": "b"})).content.decode()
    assert 'hx-swap-oob="outerHTML" data-revealed' in flip
    assert 'name="vis:beta_only" value="1"' in flip
    assert not kinds.exists()


# --- pages, roles, errors in place of the form ---------------------------------------------------------


def test_it_shows_a_read_only_form_to_viewers_and_refuses_their_posts(viewer_client, kinds):
    html = viewer_client.get(PAGE.format("kinds")).content.decode()

    assert "Review changes" not in html and "only staff can change them" in html
    assert viewer_client.post(REVIEW.format("kinds"), {"v:size": "1"}).status_code == 403


def test_it_shows_a_schema_error_in_place_of_the_form_and_on_the_card(owner_client, home):
    user_plugin(home, "broken", "x = 1\nCONFIG_SCHEMA = undefined\n")

    page = owner_client.get(PAGE.format("broken")).content.decode()
    listing = owner_client.get("/providers/").content.decode()

    assert "NameError: name &#x27;undefined&#x27; is not defined" in page and "(line 2)" in page
    assert "Fix the file and reload" in page and "Review changes" not in page
    assert "NameError" in listing and "Hindsight" in listing  # the rest of the page works


def test_it_disables_saving_while_the_storage_file_does_not_parse(owner_client, home):
    write(home / "mem0.json", "[1, 2")

    html = owner_client.get(PAGE.format("mem0")).content.decode()

    assert "mem0.json is not valid JSON" in html and "Saving is disabled" in html
    assert "Review changes" not in html


def test_it_flags_shadowed_plugins_with_the_reason(owner_client, home):
    user_plugin(home, "honcho", "CONFIG_SCHEMA = None\n")

    html = owner_client.get("/providers/").content.decode()

    assert "shadowed by the bundled provider “honcho”" in html
    assert "(its config_schema.py is ignored)" in html


def test_it_answers_404_for_unknown_or_invalid_provider_names(owner_client, home):
    assert owner_client.get(PAGE.format("nope")).status_code == 404
    assert owner_client.get("/providers/hind.sight/").status_code == 404


# --- documentation links ---------------------------------------------------------------------------

DOCS_SCHEMA = """from plugins.memory.config_schema import ProviderConfigSchema, ProviderField

CONFIG_SCHEMA = ProviderConfigSchema(
    name="docsy",
    label="Docsy",
    docs_url={url!r},
    fields=(ProviderField("url", "URL"),),
)
"""


def test_it_links_a_providers_documentation_from_its_card_and_page(owner_client, home):
    honcho_docs = 'href="https://docs.honcho.dev/v3/guides/integrations/hermes" rel="noopener noreferrer"'

    card = owner_client.get("/providers/").content.decode().split('id="provider-honcho"', 1)[1].split("</li>", 1)[0]
    page = owner_client.get("/providers/honcho/").content.decode()

    assert honcho_docs in card and "Documentation" in card
    assert honcho_docs in page and "configuration reference" in page


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "//evil.example/x", "data:text/html,x"])
def test_it_does_not_link_a_documentation_address_that_is_not_a_web_page(owner_client, home, url):
    user_plugin(home, "docsy", DOCS_SCHEMA.format(url=url))

    card = owner_client.get("/providers/").content.decode().split('id="provider-docsy"', 1)[1].split("</li>", 1)[0]
    page = owner_client.get("/providers/docsy/").content.decode()

    assert "Documentation" not in card and url not in card
    assert "configuration reference" not in page and f'href="{url}"' not in page
