"""Engine messages are codes with parameters: the panel translates the code, never the English."""

from __future__ import annotations

import pytest
from django.utils import translation

from admin_panel.localisation import localise_message
from admin_panel.messages import MESSAGES
from provider_schemas import messages as engine_messages
from provider_schemas.config_schema import KIND_NUMBER, ProviderField
from provider_schemas.values import FieldError, coerce
from tests.i18n.catalog import load_po


@pytest.fixture(scope="module")
def catalog() -> dict[str, str]:
    return {e.msgid: e.msgstr.get(0, "") for e in load_po() if e.msgid and e.msgid_plural is None}


def test_it_words_every_code_in_english_as_the_api_does():
    for code, template in MESSAGES.items():
        assert engine_messages.ENGLISH[code] == template, code


def test_it_translates_a_message_by_its_code_whatever_its_english_says(monkeypatch, catalog):
    monkeypatch.setitem(engine_messages.ENGLISH, "invalid_number", "Not a number: %(key)s")
    with pytest.raises(FieldError) as raised:
        coerce(ProviderField("timeout", "Timeout", kind=KIND_NUMBER), "soon", storage="flat_json")

    with translation.override("zh-hans"):
        shown = localise_message(str(raised.value))

    assert str(raised.value) == "Not a number: timeout"  # what the API would answer
    assert shown == catalog["Invalid number for '%(key)s'"] % {"key": "timeout"}


def test_it_keeps_the_code_through_copies_of_the_message():
    import copy
    import pickle

    made = engine_messages.message("set_and_cleared", key="mode")

    for again in (copy.deepcopy(made), pickle.loads(pickle.dumps(made))):  # noqa: S301 - our own bytes
        assert (again, again.code, again.params) == ("'mode' cannot be both set and cleared", "set_and_cleared",
                                                     {"key": "mode"})


def test_it_translates_the_invisible_character_refusal_that_used_to_stay_english(catalog):
    with pytest.raises(FieldError) as raised:
        coerce(ProviderField("name", "Name"), "a\u200bb", storage="flat_json")

    with translation.override("zh-hans"):
        shown = localise_message(str(raised.value))

    template = "'%(key)s' must not contain invisible or direction-changing characters (%(characters)s)"
    assert str(raised.value) == template % {"key": "name", "characters": "U+200B"}
    assert shown == catalog[template] % {"key": "name", "characters": "U+200B"} != str(raised.value)
