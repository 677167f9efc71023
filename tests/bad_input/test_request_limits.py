"""Numbers and strings from a request that no route may answer with a 5xx: 20-digit and negative
integers, words where numbers go, lone surrogates, integers beyond what Python converts. The sweep
walks the URL resolver, so a route added later is covered without editing this file."""

from __future__ import annotations

import pytest
from django.core.signals import request_finished
from django.db import close_old_connections
from django.urls import URLPattern, URLResolver, get_resolver

from tests.bad_input.helpers import api_put, assert_refused, assert_unchanged, snapshot
from tests.sessions import fixture as fx

pytestmark = pytest.mark.django_db

# Every query parameter a view reads as a number, with the rest of the parameters a route reads.
NUMBER_PARAMS = ("page", "limit", "offset", "min_messages", "hit", "older_than")
# The other parameters routes read; a hostile value in them must not fail either.
OTHER_PARAMS = ("q", "fp", "view", "format", "choice", "mode", "key", "next", "entry", "all", "full", "archived",
                "order", "source", "from", "to", "hidden", "kind", "user", "provider", "exclude_sources",
                "cwd_prefix", "move", "profiles")
HOSTILE = {
    "twenty_digits": "9" * 20,
    "negative_twenty_digits": "-" + "9" * 20,
    "negative": "-1",
    "zero": "0",
    "words": "lots",
    "float": "1e999",
    "five_thousand_digits": "9" * 5000,
    "lone_surrogate": "%ED%A0%80",
}
PATH_VALUES = {"target": "memory", "name": "hindsight", "pk": "1", "session_id": fx.A, "key": "x",
               "token": "t" * 20}


def _routes(patterns=None, prefix: str = "") -> list[str]:
    """The path of every URL pattern, its parameters filled with plausible values."""
    found: list[str] = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        pattern = str(entry.pattern)
        if pattern.startswith("^"):
            pattern = pattern[1:].replace(".+$", "x/y").replace("$", "")
        for name, value in PATH_VALUES.items():
            pattern = pattern.replace(f"<str:{name}>", value).replace(f"<int:{name}>", value)
        if isinstance(entry, URLResolver):
            found += _routes(entry.url_patterns, prefix + pattern)
        elif isinstance(entry, URLPattern):
            found.append("/" + prefix + pattern)
    return found


ROUTES = sorted(set(_routes()))


def test_the_sweep_sees_the_routes_that_read_numbers():
    for route in ("/sessions/", "/api/sessions", "/api/sessions/search", "/audit/", "/memory/",
                  f"/sessions/{fx.A}/", "/memory/memory/maintenance/"):
        assert route in ROUTES


def _end_stream(response) -> None:
    """End an event stream (it never ends by itself) as Django's test client ends a whole answer:
    without the request_finished handler, which would close the test's database connection."""
    if not response.streaming:
        return  # the test client has closed it already
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


@pytest.mark.parametrize("route", ROUTES)
def test_no_route_answers_hostile_query_values_with_a_server_error(owner_client, home, route):
    fx.build(home)
    failures = []
    for value in HOSTILE.values():
        # The numbers alone, every parameter at once, and the numbers of a search (?q= takes the
        # sessions pages down another path).
        for names, fixed in ((NUMBER_PARAMS, ""), (NUMBER_PARAMS + OTHER_PARAMS, ""), (NUMBER_PARAMS, "q=docker&")):
            query = fixed + "&".join(f"{name}={value}" for name in names)
            response = owner_client.get(f"{route}?{query}")
            _end_stream(response)
            if response.status_code >= 500:
                failures.append((query[:60], response.status_code))

    assert failures == []


# --- query numbers, one by one -----------------------------------------------------------------------

TWENTY = "9" * 20


@pytest.mark.parametrize(("url", "name"), [
    ("/api/sessions?limit=" + TWENTY, "limit"),
    ("/api/sessions?offset=" + TWENTY, "offset"),
    ("/api/sessions?min_messages=-" + TWENTY, "min_messages"),
    (f"/api/sessions/{fx.A}/messages?offset=" + TWENTY, "offset"),
    (f"/api/sessions/{fx.A}/messages?limit=" + "9" * 5000, "limit"),
])
def test_it_answers_an_api_number_outside_sqlites_range_with_422_in_the_frameworks_form(owner_client, home,
                                                                                     url, name):
    fx.build(home)

    response = owner_client.get(url)

    assert response.status_code == 422
    (item,) = response.json()["detail"]
    assert item["loc"] == ["query", name]
    assert item["type"] in ("less_than_equal", "greater_than_equal")
    assert item["msg"].startswith("Input should be")


def test_it_keeps_the_meaning_of_large_api_numbers_inside_the_range(owner_client, home):
    fx.build(home)

    everything = owner_client.get(f"/api/sessions?limit={2**63 - 1}").json()
    nothing = owner_client.get(f"/api/sessions?offset={2**63 - 1}").json()

    assert len(everything["sessions"]) == everything["total"] > 0
    assert nothing["sessions"] == []


def test_it_shows_a_page_for_a_20_digit_page_number_on_the_sessions_pages(viewer_client, home):
    history = fx.build(home)

    listing = viewer_client.get("/sessions/?page=" + TWENTY)
    search = viewer_client.get("/sessions/?q=docker&page=" + TWENTY)
    transcript = viewer_client.get(f"/sessions/{fx.A}/?page={TWENTY}&hit={TWENTY}")
    hit = viewer_client.get(f"/sessions/{fx.A}/?hit=-{TWENTY}")

    assert listing.status_code == search.status_code == transcript.status_code == hit.status_code == 200
    assert "How do docker networks talk to each other?" in transcript.content.decode()
    assert history.ids["a1"]


# --- JSON bodies ---------------------------------------------------------------------------------------

CONFIG = "/api/memory/providers/hindsight/config"
SURROGATE = "The request body is not valid JSON: it holds a lone surrogate escape"
DIGITS = "The request body is not valid JSON: a number has more than 100 digits."


@pytest.mark.parametrize(("url", "body", "words"), [
    (CONFIG, b'{"values": {"bank_id": "bank\\ud800"}}', SURROGATE),
    (CONFIG, b'{"values": {"api_key": "\\udfffkey"}}', SURROGATE),
    (CONFIG, b'{"values": {"recall_tags": ["\\ud800"]}}', SURROGATE),
    (CONFIG, b'{"values": {"\\ud800": "x"}}', SURROGATE),
    (CONFIG, b'{"values": {}, "clear": ["\\ud800"]}', SURROGATE),
    ("/api/memory/provider", b'{"provider": "\\ud800"}', SURROGATE),
    (CONFIG, b'{"values": {"timeout": ' + b"7" * 4000 + b"}}", DIGITS),
    (CONFIG, b'{"values": {"timeout": -' + b"7" * 5000 + b"}}", DIGITS),
    (CONFIG, b'{"values": {"bank_id": ' + b"7" * 4000 + b"}}", DIGITS),
    ("/api/memory/provider", b'{"provider": "hindsight", "n": ' + b"7" * 4000 + b"}", DIGITS),
    (CONFIG, b'{"values": {"timeout": NaN}}', "The request body is not valid JSON: NaN is not a JSON number."),
    (CONFIG, b'{"values": {"timeout": -Infinity}}', "-Infinity is not a JSON number"),
    (CONFIG, b'{"values": {"bank_id": "b"},}', "The request body is not valid JSON: expecting property name"),
])
def test_it_refuses_a_json_body_no_file_can_hold_with_422_in_words(owner_client, home, url, body, words):
    before = snapshot(home)

    response = api_put(owner_client, url, body)

    assert_refused(response, words, statuses=(422,))
    assert set(response.json()) == {"detail"}
    assert_unchanged(home, before)


def test_it_accepts_a_surrogate_pair_escape_as_the_character_it_spells(owner_client, home):
    response = api_put(owner_client, CONFIG, b'{"values": {"bank_id": "bank-\\ud83d\\ude00"}}')

    assert response.status_code == 200, response.content
    assert "bank-\U0001f600" in (home / "hindsight" / "config.json").read_text(encoding="utf-8")


# --- form bodies -----------------------------------------------------------------------------------------


def test_a_lone_surrogate_in_a_form_body_is_replaced_and_never_written(owner_client, home):
    # Django decodes form bodies with replacement: the bytes of a surrogate become U+FFFD.
    (home / "memories").mkdir()

    add = owner_client.post("/memory/memory/add/", b"content=fact+%ED%A0%80+end",
                            content_type="application/x-www-form-urlencoded")
    save = owner_client.post("/providers/hindsight/save/", b"v%3Abank_id=b%ED%A0%80&o%3Abank_id=hermes",
                             content_type="application/x-www-form-urlencoded")
    limit = owner_client.post("/settings/", b"v%3Amemory_char_limit=%ED%A0%80&o%3Amemory_char_limit=2200",
                              content_type="application/x-www-form-urlencoded")

    assert add.status_code < 500 and save.status_code < 500
    assert limit.status_code == 400
    for path in home.rglob("*"):
        if path.is_file():
            path.read_bytes().decode("utf-8")  # every file is still UTF-8: no surrogate was encoded
    assert "fact \ufffd\ufffd\ufffd end" in (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("provider", "key", "text"), [
    ("hindsight", "recall_tags", '["tag\\ud800"]'),
    ("honcho", "sessions", '{"\\udfff": "s-1"}'),
])
def test_it_refuses_a_lone_surrogate_inside_a_json_field_from_the_api_and_the_form(owner_client, home, provider,
                                                                                   key, text):
    # The body itself is clean: the escape sits inside the field's own JSON text.
    before = snapshot(home)

    api = api_put(owner_client, f"/api/memory/providers/{provider}/config", {"values": {key: text}})
    form = owner_client.post(f"/providers/{provider}/save/", {f"v:{key}": text, f"o:{key}": ""})

    assert_refused(api, f"Invalid JSON for '{key}'", statuses=(400,))
    assert_refused(form, key, statuses=(400,))
    assert_unchanged(home, before)
