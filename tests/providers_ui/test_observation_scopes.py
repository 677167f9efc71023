"""Hindsight's ``observation_scopes``: the panel accepts what the 0.19.0 plugin uses as given (a
keyword, a flat list of tags, a list of tag lists, or both mixed) and refuses, at the field and in
the API, what the plugin would drop, strip or turn into text, saying where the value differs."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.api.test_agent_readback import AGENT_PYTHON, READBACK, READBACK_MISSING
from tests.bad_input.helpers import api_put
from tests.providers_ui.browserless import as_post, form_fields
from tests.providers_ui.helpers import snapshot_files

pytestmark = pytest.mark.django_db

URL = "/api/memory/providers/hindsight/config"


def _saved_scopes(home) -> object:
    return json.loads((home / "hindsight" / "config.json").read_text(encoding="utf-8"))["observation_scopes"]


def _errors_at_fields(html: str) -> dict[str, str]:
    found = {}
    for key, message in re.findall(r'class="field__error" id="fld-\d+-([^"]+)-error">([^<]*)<', html):
        found[key] = message.replace("&#x27;", "'").replace("&quot;", '"')
    return found


def _review(client, **changes):
    html = client.get("/providers/hindsight/").content.decode()
    fields = form_fields(html, "/providers/hindsight/review/")
    return client.post("/providers/hindsight/review/", as_post(fields, **changes))


@pytest.mark.parametrize("typed", ['["project:hermes", "team:core"]', '[["project:hermes"], ["team:core", "x"]]',
                                   '[["project:hermes", "team:core"], "ops"]'])
def test_it_saves_a_flat_list_a_list_of_lists_or_both_as_typed(owner_client, home, typed):
    response = api_put(owner_client, URL, {"values": {"observation_scopes": typed}})

    assert response.status_code == 200, response.content
    assert _saved_scopes(home) == typed  # kept as the text typed: the plugin parses it


@pytest.mark.parametrize(
    ("typed", "where"),
    [
        ('[1, "a"]', "[0] must be either text or a list"),
        ('[["a", 2]]', "[0][1] must be text"),
        ('[" a", "b"]', "[0] is not in the expected form"),
        ("[]", "the value needs at least 1 item(s)"),
        ('{"scope": ["a"]}', "the value must be a list"),
    ],
)
def test_it_refuses_what_the_plugin_would_change_naming_the_place_and_writes_nothing(
    owner_client, home, typed, where
):
    before = snapshot_files(home)

    response = _review(owner_client, **{"v:observation_scopes": typed})

    assert response.status_code == 400
    assert _errors_at_fields(response.content.decode())["observation_scopes"] == (
        f'Enter one of: per_tag, combined, all_combinations, or JSON such as [["text"]] ({where}).')
    assert snapshot_files(home) == before
    refused = api_put(owner_client, URL, {"values": {"observation_scopes": typed}})
    assert refused.status_code == 400
    assert refused.json()["field_errors"]["observation_scopes"]["constraint"] == "keywords"
    assert snapshot_files(home) == before


def test_it_words_the_refusal_in_chinese(owner_client, home):
    owner_client.cookies["django_language"] = "zh-hans"

    html = _review(owner_client, **{"v:observation_scopes": '[1, "a"]'}).content.decode()

    assert _errors_at_fields(html)["observation_scopes"] == (
        '请输入以下之一：per_tag, combined, all_combinations，或形如 [["text"]] 的 JSON（[0] 必须是文本或列表）。')


@pytest.mark.skipif(READBACK_MISSING, reason="hermes-agent 0.19.0 readback not installed")
@pytest.mark.parametrize(("typed", "scopes"), [
    ('["project:hermes", "team:core"]', [["project:hermes", "team:core"]]),
    ('[["project:hermes"], ["team:core"]]', [["project:hermes"], ["team:core"]]),
    ('[["project:hermes", "team:core"], "ops"]', [["project:hermes", "team:core"], ["ops"]]),
])
def test_it_saves_scopes_the_real_plugin_uses_as_typed(owner_client, home, user_home, typed, scopes):
    api_put(owner_client, URL, {"values": {"mode": "local_external", "observation_scopes": typed}})

    out = subprocess.run([str(AGENT_PYTHON), str(READBACK), str(home), "--home", str(user_home)],
                         capture_output=True, text=True, timeout=180, check=True)

    assert json.loads(out.stdout)["hindsight"]["effective"]["observation_scopes"] == scopes


@pytest.mark.django_db(transaction=True)
def test_it_accepts_a_flat_list_and_names_the_wrong_item_at_the_field_in_the_browser(signed_in_page, live_server, home):
    from tests.conftest import ARTIFACTS_DIR, keep_for_docs

    def shoot(name: str) -> None:
        ARTIFACTS_DIR.mkdir(exist_ok=True)
        row.screenshot(path=str(ARTIFACTS_DIR / name))
        keep_for_docs(ARTIFACTS_DIR / name, issue=14)

    page = signed_in_page
    before = snapshot_files(home)
    page.goto(f"{live_server.url}/providers/hindsight/")
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    control = page.locator('[name="v:observation_scopes"]')
    row = page.locator('[data-key="observation_scopes"]')

    control.fill('[1, "a"]')
    control.press("Tab")
    error = row.locator(".field__error")
    error.wait_for()
    assert error.inner_text().endswith("([0] must be either text or a list).")
    shoot("hindsight-observation-scopes-refused-item.png")

    control.fill('["project:hermes", "team:core"]')
    control.press("Tab")
    error.wait_for(state="detached")
    shoot("hindsight-observation-scopes-flat-list.png")
    assert snapshot_files(home) == before
