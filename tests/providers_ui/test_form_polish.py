"""Every bundled provider page says each thing once, and a select's "Default:" line names the same
label the choice list shows."""

from __future__ import annotations

import html as html_lib
import re

import pytest

import provider_schemas

pytestmark = pytest.mark.django_db


def _text(fragment: str) -> str:
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _notices(page: str) -> list[str]:
    main = page.split("<main", 1)[-1]
    found = re.findall(r'<(p|div|section) class="notice[^"]*"[^>]*>(.*?)</\1>', main, re.S)
    return [_text(text) for _, text in found]


@pytest.mark.parametrize("name", provider_schemas.BUNDLED_PROVIDERS)
def test_no_provider_page_repeats_a_notice(owner_client, home, name):
    notices = _notices(owner_client.get(f"/providers/{name}/").content.decode())

    assert len(notices) == len(set(notices)), notices


def test_the_honcho_page_says_once_that_its_file_is_shared(owner_client, home):
    notices = _notices(owner_client.get("/providers/honcho/").content.decode())

    about_sharing = [n for n in notices if "shared" in n and "other apps" in n]
    assert len(about_sharing) == 1, notices
    assert "~/.honcho/config.json" in about_sharing[0]


def test_the_api_still_reports_the_shared_file_warning(owner_client, home):
    payload = owner_client.get("/api/memory/providers/honcho/config").json()

    assert "shared_file" in {w["code"] for w in payload["warnings"]}


@pytest.mark.parametrize("name", provider_schemas.BUNDLED_PROVIDERS)
def test_a_selects_default_line_shows_the_label_of_the_choice(owner_client, home, name):
    page = owner_client.get(f"/providers/{name}/").content.decode()
    schema = provider_schemas.get_provider_config_schema(name, home=home)

    checked = 0
    for field in (f for f in schema.fields if f.kind == "select" and f.default):
        label = next(o.label for o in field.options if o.value == field.default)
        row = re.search(rf'data-key="{re.escape(field.key)}".*?<p class="field__meta">(.*?)</p>', page, re.S)
        if row is None or f'name="v:{field.key}"' not in row.group(0):
            continue  # hidden by `when` on this page
        meta = _text(row.group(1))
        assert meta.startswith(f"Default: {label} "), (field.key, meta)
        checked += 1
    assert checked or not any(f.kind == "select" and f.default and not f.when for f in schema.fields)


@pytest.mark.parametrize("name", provider_schemas.BUNDLED_PROVIDERS)
def test_a_switchs_default_line_says_on_or_off(owner_client, home, name):
    page = owner_client.get(f"/providers/{name}/").content.decode()
    schema = provider_schemas.get_provider_config_schema(name, home=home)

    for field in (f for f in schema.fields if f.kind == "bool" and f.default):
        row = re.search(rf'data-key="{re.escape(field.key)}".*?<p class="field__meta">(.*?)</p>', page, re.S)
        if row is None or f'name="v:{field.key}"' not in row.group(0):
            continue
        shown = "on" if field.default == "true" else "off"
        assert _text(row.group(1)).startswith(f"Default: {shown} "), field.key
