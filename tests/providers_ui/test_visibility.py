"""While the user edits, a row shows exactly when the save would treat its field as visible
(provider_schemas computes it, docs/agent_formats.md §Saving provider values step 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.providers_ui.browserless import as_post, form_fields
from tests.providers_ui.helpers import user_plugin, write

pytestmark = pytest.mark.django_db

FIELD = "/providers/vis/field/?key={}"

VIS_SCHEMA = """
from plugins.memory.config_schema import (
    KIND_NUMBER, KIND_SELECT, ProviderConfigSchema, ProviderField, ProviderFieldOption,
)

CONFIG_SCHEMA = ProviderConfigSchema(
    name="vis",
    label="Visibility",
    fields=(
        ProviderField("mode", "Mode", kind=KIND_SELECT, default="a", env_fallbacks=("VIS_MODE",),
                      options=(ProviderFieldOption("a", "Alpha"), ProviderFieldOption("b", "Beta"))),
        ProviderField("beta_only", "Beta only", when={"mode": "b"}),
        ProviderField("size", "Size", kind=KIND_NUMBER, default="1"),
        ProviderField("big_only", "Big only", when={"size": "4"}),
    ),
)
"""


@pytest.fixture
def vis(home: Path) -> Path:
    user_plugin(home, "vis", VIS_SCHEMA)
    return home / "vis" / "config.json"


def _form(client) -> list[tuple[str, str]]:
    html = client.get("/providers/vis/").content.decode()
    return form_fields(html, "/providers/vis/review/")


def _rows(html: str) -> int:
    return html.count('class="field ')


def test_it_keeps_a_row_whose_controller_is_reset_to_an_env_fallback_that_still_matches(owner_client, home, vis):
    write(vis, json.dumps({"mode": "b"}))
    write(home / ".env", "VIS_MODE=b\n")
    fields = _form(owner_client)
    assert ("vis:beta_only", "1") in fields

    response = owner_client.post(FIELD.format("mode"), as_post(fields, **{"reset:mode": "1"})).content.decode()

    assert _rows(response) == 1, "only the reset row: beta_only stays shown, as the save would keep it"
    assert json.loads(vis.read_text()) == {"mode": "b"}


def test_it_hides_a_row_whose_controller_is_reset_to_its_default(owner_client, home, vis):
    write(vis, json.dumps({"mode": "b"}))
    fields = _form(owner_client)

    response = owner_client.post(FIELD.format("mode"), as_post(fields, **{"reset:mode": "1"})).content.decode()

    assert _rows(response) == 2
    assert 'name="vis:beta_only" value="0"' in response


def test_it_keeps_rows_as_they_are_while_the_controller_holds_an_invalid_value(owner_client, home, vis):
    write(vis, json.dumps({"mode": "b", "size": 4}))
    fields = _form(owner_client)

    mode = owner_client.post(FIELD.format("mode"), as_post(fields, **{"v:mode": "zzz"})).content.decode()
    size = owner_client.post(FIELD.format("size"), as_post(fields, **{"v:size": "lots"})).content.decode()

    assert "Choose one of: " in mode and _rows(mode) == 1
    assert "Enter a number, such as 1." in size and _rows(size) == 1


def test_it_shows_a_row_for_the_value_a_number_is_saved_as(owner_client, home, vis):
    fields = _form(owner_client)
    assert ("vis:big_only", "0") in fields

    response = owner_client.post(FIELD.format("size"), as_post(fields, **{"v:size": "4.0"})).content.decode()

    assert _rows(response) == 2
    assert 'name="vis:big_only" value="1"' in response
