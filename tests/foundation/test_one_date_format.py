"""One way to show a date: across the crawled pages (the accessibility crawl's page list, on the
demo home), every moment is a ``<time>`` element with a machine-readable ``datetime``, the exact
time and zone in its ``title``, and one visible format per language (relative for the last week,
the date after that); no other date-like text (an ISO stamp, "Nov. 12, 2026, 3:29 a.m.") is
shown outside one. Read from the HTML the server sends, which is what the browser shows."""

from __future__ import annotations

import re
from datetime import datetime
from html.parser import HTMLParser

import pytest
from django.utils import timezone

from admin_panel.demo import seed_demo_home
from admin_panel.models import SecretWrite
from admin_panel.selectors.providers import home_key
from admin_panel.services.accounts import invite
from tests.a11y.test_axe import VISITS, _add_backup, _record_audit
from tests.demo_homes import seeded

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "zh-hans")
# The visible date of each language (Django's DATE_FORMAT), and the relative forms of the last week.
DAY = {
    "en": r"(?:Jan\.|Feb\.|March|April|May|June|July|Aug\.|Sept\.|Oct\.|Nov\.|Dec\.) \d{1,2}, \d{4}",
    "zh-hans": r"\d{4}年\d{1,2}月\d{1,2}日",
}
RELATIVE = {
    "en": r"just now|\d+ (?:minute|hour|day)s? ago",
    "zh-hans": r"刚刚|\d+ ?(?:分钟|小时|天)前",
}
# Date-like text that no page may show outside a <time> element.
STRAY = [
    (re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?"), "an ISO date"),
    (re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b"), "a clock time"),
    (re.compile(r"\b[ap]\.m\.", re.I), "a.m./p.m."),
]
# Text a person or the agent wrote (memory entries, transcripts, code, form values) may hold any
# date: it is shown as written. These elements and their descendants are not checked.
CONTENT_CLASSES = {"entry-text", "turn__body", "message-body", "diff", "transcript", "snapshot-text"}
CONTENT_TAGS = {"pre", "code", "textarea", "script", "style", "title", "kbd", "samp", "option", "desc"}


class _Reader(HTMLParser):
    """The <time> elements of a page (attributes, visible text, screen-reader copy) and the
    date-like text outside them and outside content."""

    VOID = {"br", "img", "input", "meta", "link", "hr", "source", "wbr", "col", "area", "base"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.times: list[dict[str, str]] = []
        self.stray: list[str] = []
        self._stack: list[tuple[str, bool, bool]] = []  # (tag, not checked, visually hidden)
        self._time: dict[str, str] | None = None

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        classes = set(attributes.get("class", "").split())
        outer = self._stack[-1] if self._stack else ("", False, False)
        skip = outer[1] or tag in CONTENT_TAGS or bool(classes & CONTENT_CLASSES) or tag == "time"
        if tag == "time":
            self._time = {**attributes, "text": "", "hidden": ""}
        if tag not in self.VOID:
            self._stack.append((tag, skip, outer[2] or "visually-hidden" in classes))

    def handle_endtag(self, tag):
        if tag == "time" and self._time is not None:
            self.times.append(self._time)
            self._time = None
        while self._stack:
            if self._stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self._time is not None:
            self._time["hidden" if self._stack and self._stack[-1][2] else "text"] += data
        elif not (self._stack and self._stack[-1][1]):
            for pattern, what in STRAY:
                for found in pattern.finditer(data):
                    self.stray.append(f"{what} {found.group(0)!r} in {data.strip()[:80]!r}")


@pytest.fixture
def demo_client(home, owner, client):
    seeded(home, seed_demo_home)
    _record_audit(home)
    _add_backup(home)
    # A secret the panel wrote: its provider page says when.
    SecretWrite.objects.create(home=home_key(home), variable="HINDSIGHT_API_KEY", set_at=timezone.now())
    client.force_login(owner)
    return client


def _goto_path(visit) -> str | None:
    """The address of a crawl visit that only opens one (``_goto(path)``)."""
    if visit.go.__qualname__ != "_goto.<locals>.go":
        return None
    return visit.go.__closure__[0].cell_contents


# The signed-in pages the layout crawl visits by address (tests/browser/test_layout.py).
CRAWLED_PATHS = tuple(
    path for visit in VISITS
    if visit.signed_in and visit.staff and visit.setup in (None, _record_audit, _add_backup)
    and (path := _goto_path(visit)) is not None
)


def _paths(client) -> list[str]:
    paths = list(CRAWLED_PATHS)
    # The pages reached by a click in the crawl: a transcript and an audit entry.
    listing = client.get("/sessions/?q=docker").content.decode()
    paths.append(re.search(r'class="search-hit"[^>]*>.*?href="(/sessions/[^"]+)"', listing, re.S).group(1)
                 .replace("&amp;", "&"))
    audit = client.get("/audit/").content.decode()
    paths.append(re.search(r'href="(/audit/\d+/)"', audit).group(1))
    backups = client.get("/memory/memory/backups/").content.decode()
    paths.append(re.search(r'href="(/memory/memory/backups/[^"/]+/)"', backups).group(1))
    invitation = invite(role="viewer", actor=None, channel="command")[0]
    paths.append(f"/people/invitations/{invitation.pk}/revoke/")
    return paths


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_date_on_every_page_is_a_time_element_in_one_format(demo_client, language):
    problems: list[str] = []
    seen = 0
    checked: set[str] = set()
    day, relative = DAY[language], RELATIVE[language]
    exact = re.compile(rf"{day} \d{{2}}:\d{{2}}:\d{{2}} [A-Z]{{2,5}}")
    for path in _paths(demo_client):
        # The withdrawal's confirmation is the answer to its button's post (without "confirmed").
        send = demo_client.post if path.endswith("/revoke/") else demo_client.get
        response = send(path, HTTP_ACCEPT_LANGUAGE=language)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        checked.add(path)
        reader = _Reader()
        reader.feed(response.content.decode())
        problems += [f"{path}: {stray}" for stray in reader.stray]
        for element in reader.times:
            seen += 1
            shown = " ".join(element["text"].split())
            where = f"{path}: <time> {shown!r}"
            try:
                moment = datetime.fromisoformat(element.get("datetime", ""))
            except ValueError:
                problems.append(f"{where} has no machine-readable datetime ({element.get('datetime')!r})")
                continue
            if moment.tzinfo is None:
                problems.append(f"{where}: its datetime {element['datetime']!r} has no zone")
            if not exact.fullmatch(element.get("title", "")):
                problems.append(f"{where}: its title {element.get('title')!r} is not the exact time and zone")
            if not re.fullmatch(rf"{day}|{relative}", shown):
                problems.append(f"{where} is not in the page's one date format")
            if element["hidden"] and element.get("title", "") not in element["hidden"]:
                problems.append(f"{where}: screen readers do not hear the exact time")
    reached = [path for path in checked if path.startswith(("/people/invitations/", "/memory/memory/backups/",
                                                            "/audit/", "/sessions/2"))]
    assert "/providers/hindsight/" in checked and len(reached) >= 5, sorted(checked)
    assert seen >= 20, f"only {seen} <time> elements on the crawled pages"
    assert not problems, "\n".join(problems)
