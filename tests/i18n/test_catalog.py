"""The Simplified Chinese catalog is complete, current, consistent with its compiled form."""

from __future__ import annotations

import gettext

import pytest
from django.core.management import call_command

from tests.i18n.catalog import MO_PATH, PO_PATH, header_fields, load_po, placeholders, source_messages


@pytest.fixture(scope="module")
def entries():
    return [entry for entry in load_po() if not entry.obsolete]


@pytest.fixture(scope="module")
def messages():
    return [entry for entry in load_po() if not entry.obsolete and entry.msgid]


def test_it_declares_simplified_chinese_utf8_and_its_plural_rule(entries):
    header = header_fields(entries)

    assert header["Language"] == "zh_Hans"
    assert header["Content-Type"] == "text/plain; charset=UTF-8"
    assert header["Plural-Forms"] == "nplurals=1; plural=0;"
    assert not next(e for e in entries if e.msgid == "").fuzzy


def test_it_translates_every_message(messages):
    untranslated = [f"line {e.line}: {e.msgid!r}" for e in messages if not e.translated]

    assert not untranslated, f"{len(untranslated)} untranslated entries:\n" + "\n".join(untranslated[:40])


def test_it_has_no_fuzzy_entry(entries):
    fuzzy = [f"line {e.line}: {e.msgid!r}" for e in entries if e.fuzzy]

    assert not fuzzy, "fuzzy entries (review them and drop the flag):\n" + "\n".join(fuzzy[:40])


def test_it_has_no_obsolete_entry():
    obsolete = [f"line {e.line}: {e.msgid!r}" for e in load_po() if e.obsolete]

    assert not obsolete, "obsolete entries (#~); regenerate with --no-obsolete:\n" + "\n".join(obsolete[:40])


def test_it_keeps_every_placeholder_in_the_translation(messages):
    broken = []
    for entry in messages:
        sources = [entry.msgid] if entry.msgid_plural is None else [entry.msgid, entry.msgid_plural]
        expected = placeholders(sources[-1])
        for form, text in entry.msgstr.items():
            if text and placeholders(text) != expected:
                broken.append(f"line {entry.line} [{form}]: {entry.msgid!r} -> {text!r}")

    assert not broken, "placeholders differ:\n" + "\n".join(broken[:40])


def test_it_holds_every_message_id_the_code_and_templates_use(entries):
    in_catalog = {(e.msgctxt, e.msgid): e for e in entries}
    missing = sorted({f"{m.where}: {m.msgid!r}" for m in source_messages() if m.key not in in_catalog})

    assert not missing, (
        f"{len(missing)} messages are not in {PO_PATH.name}; run makemessages (see docs) and translate them:\n"
        + "\n".join(missing[:40])
    )


def test_it_holds_no_message_the_sources_no_longer_use(entries):
    used = {m.key for m in source_messages()}
    stale = [f"line {e.line}: {e.msgid!r}" for e in entries if e.msgid and (e.msgctxt, e.msgid) not in used]

    assert not stale, "messages no longer in the sources:\n" + "\n".join(stale[:40])


def test_it_uses_the_same_plural_forms_as_the_sources(entries):
    plurals = {m.key: m.msgid_plural for m in source_messages()}
    wrong = [e.msgid for e in entries if e.key in plurals and e.msgid_plural != plurals[e.key]]

    assert not wrong


def test_it_ships_a_compiled_catalog_identical_to_the_po_file(entries):
    with MO_PATH.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    catalog = compiled._catalog  # the parsed .mo: {msgid | (msgid, n) | "ctx\x04msgid": text}
    expected: dict[object, str] = {}
    for entry in entries:
        if not entry.msgid or entry.fuzzy or not entry.translated:
            continue
        msgid = entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{entry.msgid}"
        if entry.msgid_plural is None:
            expected[msgid] = entry.msgstr[0]
        else:
            for form, text in entry.msgstr.items():
                expected[(msgid, form)] = text

    assert {k: v for k, v in catalog.items() if k != ""} == expected


def test_it_lists_the_current_texts_of_the_bundled_providers_and_the_scanner():
    call_command("i18n_strings", "--check")
