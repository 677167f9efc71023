"""The profile a page works on is in its address: the header's switcher, every link, form and
htmx request of a profile's page, and the refusals for names that are no profile."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.security.site import OWN_ACCOUNT_ROUTES, page_routes, seed_site

from .helpers import make_profile, memory_config

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_profiles(home: Path) -> dict[str, Path]:
    return {
        "default": make_profile(home, "default", config=memory_config(memory_char_limit=2200), memory="Root fact."),
        "coder": make_profile(home, "coder", config=memory_config(memory_char_limit=3000), memory="Coder fact."),
        "ops": make_profile(home, "ops", config=memory_config(user_profile_enabled=False), memory="Ops fact."),
    }


URL_ATTRIBUTES = re.compile(r"^(href|action|src|hx-get|hx-post|hx-put|hx-delete|hx-patch|data-[a-z-]*url)$")
# Pages whose job is to link to every profile (the overview, copying between them).
ACROSS_PROFILES = {"profiles", "profiles_copy", "profiles_copy_review", "profiles_copy_apply"}


class _Addresses(HTMLParser):
    """Every address a page links, posts or sends htmx requests to, outside the header's switcher."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []
        self.in_switcher = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "form" and "profile-switcher" in (values.get("class") or ""):
            self.in_switcher = True
            return
        if self.in_switcher:
            return
        for key, value in attrs:
            if value is not None and URL_ATTRIBUTES.match(key):
                self.found.append((key, value))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.in_switcher = False


def addresses(html: str) -> list[tuple[str, str]]:
    parser = _Addresses()
    parser.feed(html)
    return parser.found


def _switcher(html: str) -> str:
    start = html.index('<form class="profile-switcher"')
    return html[start:html.index("</form>", start)]


def test_it_offers_no_switcher_with_one_profile(owner_client, home: Path) -> None:
    html = owner_client.get("/memory/").content.decode()
    assert "profile-switcher" not in html
    assert 'href="/profiles/"' not in html


def test_it_offers_every_profile_in_the_header_with_the_chosen_one_selected(viewer_client, three_profiles) -> None:
    html = viewer_client.get("/profile/coder/memory/").content.decode()
    switcher = _switcher(html)
    assert re.findall(r'<option value="([^"]+)"', switcher) == ["default", "coder", "ops"]
    assert '<option value="coder" selected>' in switcher
    assert 'action="/memory/"' in switcher  # the same area, for the profile chosen in the form
    assert '<a href="/profile/coder/profiles/"' in switcher
    assert "Coder fact." in html and "Root fact." not in html


def test_it_switches_with_a_plain_form_to_the_same_area_of_the_chosen_profile(viewer_client, three_profiles) -> None:
    to_ops = viewer_client.get("/settings/", {"profile": "ops"})
    back = viewer_client.get("/settings/", {"profile": "default"})
    assert (to_ops.status_code, to_ops["Location"]) == (302, "/profile/ops/settings/")
    assert (back.status_code, back["Location"]) == (302, "/settings/")
    page = viewer_client.get(to_ops["Location"])
    assert page.status_code == 200
    assert str(three_profiles["ops"]) in page.content.decode()  # the footer names the profile's home


def test_it_sends_a_name_in_another_spelling_to_its_one_address(viewer_client, three_profiles) -> None:
    assert viewer_client.get("/profile/Ops/memory/?view=page")["Location"] == "/profile/ops/memory/?view=page"
    assert viewer_client.get("/profile/default/memory/")["Location"] == "/memory/"


def test_it_names_no_profile_before_sign_in(client, three_profiles) -> None:
    for address in ("/profile/ops/memory/", "/profile/nope/memory/", "/profile/Bad!/memory/"):
        response = client.get(address)
        assert response.status_code == 302, address
        assert response["Location"].startswith("/accounts/login/?next=/profile/"), address


def test_it_keeps_the_profile_in_every_link_form_and_htmx_request_of_every_page(owner_client, owner,
                                                                               three_profiles) -> None:
    site = seed_site(three_profiles["ops"], user=owner)
    checked = 0
    for name, route in page_routes():
        if name in OWN_ACCOUNT_ROUTES or name in ACROSS_PROFILES or name == "logout":
            continue
        response = owner_client.get("/profile/ops" + site.url(name, route))
        if response.status_code != 200 or "text/html" not in response["Content-Type"]:
            continue
        for attribute, value in addresses(response.content.decode()):
            if not value.startswith("/") or value.startswith("/static/"):
                continue
            assert value.startswith("/profile/ops/"), (name, attribute, value)
            checked += 1
    assert checked > 100


def test_it_streams_the_chosen_profiles_files(owner_client, three_profiles) -> None:
    before = owner_client.get("/profile/ops/memory/events/").content.decode()
    default_before = owner_client.get("/memory/events/").content.decode()
    (three_profiles["ops"] / "memories" / "MEMORY.md").write_text("Ops fact.\n§\nAnother.", encoding="utf-8")
    after = owner_client.get("/profile/ops/memory/events/").content.decode()
    assert before != after
    assert owner_client.get("/memory/events/").content.decode() == default_before
