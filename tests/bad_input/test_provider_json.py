"""A provider's JSON settings file that cannot be used: invalid, the wrong top-level type, not
UTF-8, nested absurdly deep, huge, or a directory. Saves are refused (409) naming the file,
nothing is written, the pages say what is wrong, other providers keep working."""

from __future__ import annotations

import json

import pytest

from tests.bad_input.helpers import api_put, assert_refused, assert_unchanged, others_still_work, snapshot

pytestmark = pytest.mark.django_db

# provider → (its file, a valid value to save)
PROVIDERS = {
    "hindsight": ("hindsight/config.json", {"bank_id": "b1"}),
    "mem0": ("mem0.json", {"agent_id": "a1"}),
    "honcho": ("honcho.json", {"workspace": "w1"}),
}
CONTENTS = {
    "invalid": b'{"mode": "cloud",,}',
    "truncated": b'{"mode": "clo',
    "array": b'["mode", "cloud"]',
    "string": b'"mode"',
    "number": b"42",
    "null": b"null",
    "not_utf8": b'{"mode": "\xff"}',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "empty": b"",
    "integer_too_long": b'{"timeout": ' + b"7" * 5000 + b"}",
}


@pytest.fixture(params=sorted(CONTENTS))
def content(request):
    return request.param


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request):
    return request.param


def _place(home, provider: str, data: bytes) -> str:
    file, _values = PROVIDERS[provider]
    path = home / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return file


def test_it_refuses_an_api_save_naming_the_file(owner_client, home, provider, content):
    file = _place(home, provider, CONTENTS[content])
    before = snapshot(home)

    response = api_put(owner_client, f"/api/memory/providers/{provider}/config",
                       {"values": PROVIDERS[provider][1]})

    assert_refused(response, f"Cannot save: {file} is not valid JSON", "Fix or remove the file first",
                          statuses=(409,))
    assert response.json()["file"] == file
    assert_unchanged(home, before)
    others_still_work(owner_client, home, skip=provider)


# The parser's answer per content is covered through the API above; the pages need one of each shape.
PAGE_CONTENTS = ("invalid", "array", "integer_too_long")


@pytest.mark.parametrize("content", PAGE_CONTENTS)
def test_it_refuses_a_panel_review_and_save_naming_the_file(owner_client, home, provider, content):
    file = _place(home, provider, CONTENTS[content])
    before = snapshot(home)
    key, value = next(iter(PROVIDERS[provider][1].items()))

    review = owner_client.post(f"/providers/{provider}/review/", {f"v:{key}": value, f"o:{key}": ""})
    save = owner_client.post(f"/providers/{provider}/save/", {f"v:{key}": value, f"o:{key}": ""})

    assert_refused(review, file, statuses=(409,))
    assert_refused(save, file, statuses=(409,))
    assert_unchanged(home, before)


@pytest.mark.parametrize("content", PAGE_CONTENTS)
def test_it_shows_the_problem_on_the_pages_instead_of_failing(owner_client, home, provider, content):
    file = _place(home, provider, CONTENTS[content])

    page = owner_client.get(f"/providers/{provider}/")
    api = owner_client.get(f"/api/memory/providers/{provider}/config")

    assert page.status_code == 200 and api.status_code == 200
    assert file in page.content.decode()
    assert api.json()["storage"]["error"]
    assert owner_client.get("/providers/").status_code == 200


def test_it_refuses_a_directory_where_the_file_should_be(owner_client, home):
    (home / "mem0.json").mkdir()
    before = snapshot(home)

    response = api_put(owner_client, "/api/memory/providers/mem0/config", {"values": {"agent_id": "a1"}})

    assert_refused(response, "mem0.json", statuses=(409,))
    assert_unchanged(home, before)
    assert owner_client.get("/providers/mem0/").status_code == 200


def test_it_refuses_a_huge_settings_file_by_its_size(owner_client, home):
    data = json.dumps({"agent_id": "a", "filler": ["x" * 64] * 60_000}).encode()
    _place(home, "mem0", data)
    before = snapshot(home)

    response = api_put(owner_client, "/api/memory/providers/mem0/config", {"values": {"agent_id": "a2"}})
    page = owner_client.get("/providers/mem0/")

    assert_refused(response, "mem0.json", statuses=(409, 413))
    assert page.status_code == 200
    assert_unchanged(home, before)
