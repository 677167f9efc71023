"""One way to show a moment: every <time> on the panel's pages carries its exact ISO moment, the
exact time with its zone on hover and for screen readers, and shows either a relative time (the last
week) or the date in the reader's language."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone, translation

from admin_panel.demo import seed_demo_home
from admin_panel.templatetags.dates import relative, when
from tests.a11y.test_axe import _add_backup, _record_audit
from tests.demo_homes import seeded

pytestmark = pytest.mark.django_db

PAGES = ("/", "/audit/", "/audit/1/", "/account/", "/people/", "/memory/pending/", "/memory/memory/backups/",
         "/profiles/")
TIME = re.compile(r"<time\b([^>]*)>(.*?)</time>", re.S)
ISO = re.compile(r'datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d"')
EXACT = r"[^\"<]+ \d\d:\d\d:\d\d UTC"
SHOWN = {
    "en": re.compile(r"just now|\d+ (minute|hour|day)s? ago|[A-Z][a-z]{2,4}\.? \d{1,2}, \d{4}"),
    "zh-hans": re.compile(r"刚刚|\d+ (分钟|小时|天)前|\d{4}年\d{1,2}月\d{1,2}日"),
}
OTHER_FORMATS = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\d{1,2}:\d\d [ap]\.m\.")


@pytest.fixture
def demo_home(home: Path, owner) -> Path:
    seeded(home, seed_demo_home)
    _record_audit(home)
    _add_backup(home)
    return home


@pytest.mark.parametrize("language", ("en", "zh-hans"))
def test_it_shows_every_moment_in_one_format(owner_client, demo_home, language):
    seen = 0
    problems = []
    for path in PAGES:
        html = owner_client.get(path, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        for attributes, inner in TIME.findall(html):
            seen += 1
            shown = re.search(r'<span aria-hidden="true">(.*?)</span>', inner)
            title = re.search(rf'title="({EXACT})"', attributes)
            spoken = re.search(r'<span class="visually-hidden">(.*?)</span>', inner)
            if not (ISO.search(attributes) and title and shown and spoken):
                problems.append(f"{path}: {attributes} {inner}")
            elif not SHOWN[language].fullmatch(shown.group(1)) or title.group(1) not in spoken.group(1):
                problems.append(f"{path}: {shown.group(1)!r} / {spoken.group(1)!r}")
        visible = re.sub(r"<[^>]+>", " ", html.split("<main", 1)[1])
        problems += [f"{path}: another format {found!r}" for found in OTHER_FORMATS.findall(visible)]

    assert seen >= 5
    assert not problems, "\n".join(problems)


def test_it_says_how_long_ago_for_the_last_week_and_the_date_after():
    now = datetime(2026, 12, 2, 3, 30, tzinfo=UTC)
    with translation.override("en"):
        assert relative(now - timedelta(seconds=20), now) == "just now"
        assert relative(now - timedelta(minutes=3), now) == "3 minutes ago"
        assert relative(now - timedelta(hours=1), now) == "1 hour ago"
        assert relative(now - timedelta(days=8), now) == "Nov. 24, 2026"
    with translation.override("zh-hans"):
        assert relative(now - timedelta(minutes=3), now) == "3 分钟前"
        assert relative(now - timedelta(days=8), now) == "2026年11月24日"
        moment = timezone.now().replace(microsecond=0) - timedelta(minutes=3)
        exact = f"{moment.year}年{moment.month}月{moment.day}日 {moment:%H:%M:%S} UTC"
        html = when(moment)
        assert f'title="{exact}"' in html
        assert f'<span class="visually-hidden">3 分钟前，{exact}</span>' in html
