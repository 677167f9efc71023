"""The Django forms generated from a declaration read the pages' posts, and a save is one service
call that answers with an outcome (admin_panel.forms.declared, admin_panel.services.outcomes)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from django.http import QueryDict

import provider_schemas
from admin_panel.forms import declared
from admin_panel.forms.declared import api_form, provider_form_class, settings_form_class
from admin_panel.forms.settings import SETTINGS
from admin_panel.services import outcomes
from admin_panel.services import providers as provider_services
from tests.bad_input.helpers import api_put
from tests.providers_ui.browserless import as_post, form_fields

pytestmark = pytest.mark.django_db


def _field(key, kind, *, read_only=None):
    return SimpleNamespace(key=key, kind=kind, read_only_reason=read_only)


FIELDS = [_field("mode", "select"), _field("token", "secret"), _field("on", "bool"), _field("size", "number"),
          _field("locked", "text", read_only="managed elsewhere")]


def _post(text: str) -> QueryDict:
    return QueryDict(text)


def test_it_builds_one_field_class_per_kind_and_leaves_read_only_fields_out():
    form = provider_form_class(FIELDS)()

    kinds = {name: type(field).__name__ for name, field in form.fields.items()}
    assert kinds == {"mode": "DeclaredChoice", "reset:mode": "BooleanField", "token": "SecretChoice",
                     "on": "DeclaredBool", "reset:on": "BooleanField", "size": "DeclaredValue",
                     "reset:size": "BooleanField"}


def test_it_reports_as_changed_only_what_differs_from_the_value_as_rendered():
    form = provider_form_class(FIELDS)(data=_post("v:mode=a&o:mode=a&v:on=false&v:on=true&o:on=false&v:size=7"))

    sub = form.submission()

    # the switch posts its hidden "false" first; a value without its rendered twin counts as changed
    assert sub.values == {"on": "true", "size": "7"}
    assert sub.edited == {"mode": "a", "on": "true", "size": "7"}
    assert sub.secret_actions == {"token": "keep"}


def test_it_reads_the_secret_choice_and_its_new_value_as_one_widget():
    form = provider_form_class(FIELDS)(data=_post("secret:token=keep&new:token=s3cret"))
    typed = form.submission()
    empty = provider_form_class(FIELDS)(data=_post("secret:token=replace&new:token=+")).submission()
    cleared = provider_form_class(FIELDS)(data=_post("secret:token=clear&v:size=1&o:size=1&reset:size=1"))

    assert typed.secret_actions == {"token": "replace"} and typed.values == {"token": "s3cret"}
    assert "token" in empty.errors and empty.values == {}
    assert cleared.submission().clear == ["token", "size"]


def test_it_finds_the_changed_memory_settings_in_declaration_order():
    data = _post("v:nudge_interval=5&o:nudge_interval=10&v:memory_enabled=true&o:memory_enabled=true"
                 "&v:provider=mem0")

    changed, edited = settings_form_class(SETTINGS)(data=data).changes()

    assert changed == {"nudge_interval": "5", "provider": "mem0"}
    assert edited == {"memory_enabled": "true", "nudge_interval": "5", "provider": "mem0"}


def test_it_answers_a_save_with_an_outcome_instead_of_an_exception(home, owner):
    (home / "hindsight").mkdir()
    (home / "hindsight" / "config.json").write_text(json.dumps({"bank_id": "old"}))

    invalid = provider_services.save_provider_changes(user=owner, channel="panel", home=home, name="hindsight",
                                                      values={"recall_budget": "enormous"})
    stale = provider_services.save_provider_changes(user=owner, channel="panel", home=home, name="hindsight",
                                                    values={"bank_id": "new"}, expected_fingerprint="stale")
    saved = provider_services.save_provider_changes(user=owner, channel="panel", home=home, name="hindsight",
                                                    values={"bank_id": "new"})

    assert invalid.kind == outcomes.INVALID and list(invalid.errors) == ["recall_budget"]
    assert stale.kind == outcomes.CONFLICT and stale.changes
    assert saved.kind == outcomes.SAVED and saved.result.written
    assert json.loads((home / "hindsight" / "config.json").read_text())["bank_id"] == "new"


# --- one form for the page and the API ------------------------------------------------------------

BAD_VALUES = {"timeout": "soon", "recall_budget": "enormous", "auto_recall": "maybe", "recall_tags": "[unclosed",
              "recall_max_tokens": "-5", "bank_id": "two\nlines"}


def test_it_refuses_through_the_form_exactly_what_the_api_answers_in_0_19_0_words(owner_client, home):
    schema = provider_schemas.get_provider_config_schema("hindsight", home=home)

    refused = api_form(schema).value_errors(BAD_VALUES)
    body = api_put(owner_client, "/api/memory/providers/hindsight/config", {"values": BAD_VALUES}).json()

    assert list(refused) == list(body["errors"])  # the same fields, in declaration order
    assert {key: str(problem) for key, problem in refused.items()} == body["errors"]
    assert body["detail"] == body["errors"]["timeout"] == "Invalid number for 'timeout'"
    assert api_form(schema).value_errors({"timeout": "30", "recall_tags": ["a"], "auto_recall": True}) == {}


def test_it_builds_a_declarations_form_class_once_for_the_page_and_the_api(owner_client, home, monkeypatch):
    built = []
    real = declared._build_form_class
    monkeypatch.setattr(declared, "_build_form_class", lambda *a, **k: built.append(1) or real(*a, **k))
    declared._form_classes.clear()  # as at start-up

    for timeout in ("10", "11", "12"):
        api_put(owner_client, "/api/memory/providers/hindsight/config", {"values": {"timeout": timeout}})
    fields = form_fields(owner_client.get("/providers/hindsight/").content.decode(), "/providers/hindsight/review/")
    owner_client.post("/providers/hindsight/review/", as_post(fields, **{"v:bank_id": "b"}))
    owner_client.post("/providers/hindsight/review/", as_post(fields, **{"v:bank_id": "c"}))

    assert len(built) == 1


def test_it_answers_a_field_left_with_a_bad_value_from_the_form_without_planning_a_save(owner_client, home,
                                                                                          monkeypatch):
    fields = form_fields(owner_client.get("/providers/hindsight/").content.decode(), "/providers/hindsight/review/")

    def no_plan(**kwargs):
        raise AssertionError("planned a save for a value the form refuses")

    monkeypatch.setattr(provider_services, "plan_provider_save", no_plan)
    response = owner_client.post("/providers/hindsight/field/?key=recall_max_tokens",
                                 as_post(fields, **{"v:recall_max_tokens": "abc12"}))

    html = response.content.decode()
    assert "Enter a whole number of tokens from 1 to 100000." in html
    assert 'value="abc12"' in html
