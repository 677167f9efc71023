"""The maintenance page fits a screen: the summary first, each group of duplicates and each kind of
finding folded, one card per entry, a chart with labelled axes and a figure on every point."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from admin_panel.models import BudgetSample
from tests.memory_view.helpers import write_store

pytestmark = pytest.mark.django_db

# The third entry is both a relative date and a task in progress.
ENTRIES = [
    "Prefers dark mode.",
    "prefers dark mode",
    "Yesterday we started the CI migration, still in progress.",
    "TODO: migrate db",
    "Repo uses uv for Python deps.",
]
PAGE = "/memory/memory/maintenance/"


def _page(client) -> str:
    response = client.get(PAGE)
    assert response.status_code == 200
    return response.content.decode()


def _samples(home, chars: list[int]) -> None:
    now = timezone.now()
    for days_ago, count in zip(range(len(chars), 0, -1), chars, strict=True):
        BudgetSample.objects.create(home=str(home), target="memory", chars=count, limit=2200,
                                    recorded_at=now - timedelta(days=days_ago))


def test_it_shows_an_entry_with_two_findings_in_one_card(owner_client, home):
    write_store(home, "memory", ENTRIES)
    html = _page(owner_client)
    cards = re.findall(r'<li class="card maintenance-finding".*?</li>', html, re.S)
    with_entry = [card for card in cards if "we started the CI migration" in card]
    assert len(with_entry) == 1
    # Both reasons are in that one card, and its evidence marks the words of both.
    assert 'data-finding="relative_date"' in with_entry[0] and 'data-finding="task_state"' in with_entry[0]
    assert "<mark>Yesterday</mark>" in with_entry[0] and "<mark>in progress</mark>" in with_entry[0]
    assert len(cards) == 2  # the two-finding entry and the TODO


def test_it_opens_on_a_summary_with_the_findings_grouped_and_folded(owner_client, home):
    write_store(home, "memory", ENTRIES)
    html = _page(owner_client)
    summary = html.index('id="maintenance-usage"')
    assert summary < html.index('id="maintenance-duplicates"') < html.index('id="maintenance-findings"')
    summary_text = html[summary:html.index("</section>", summary)]
    assert "1 group of duplicates" in summary_text and "2 entries to look at" in summary_text
    # One folded group per kind of finding (the entry's most serious one), none open.
    folds = re.findall(r'<details class="maintenance-category fold" id="findings-([a-z_]+)"', html)
    assert folds == ["relative_date", "task_state"]
    assert re.search(r'<details[^>]*\bopen\b', html) is None
    assert re.findall(r'<details class="maintenance-group fold" id="group-\d+"', html)


def test_the_chart_has_dated_axes_a_figure_on_each_point_and_a_text_alternative(owner_client, home):
    write_store(home, "memory", ENTRIES)
    _samples(home, [40, 60, 80, 100])
    html = _page(owner_client)
    chart = html[html.index('<svg class="budget-chart"'):html.index("</svg>")]
    dates = re.findall(r'class="budget-chart__tick budget-chart__date"[^>]*>([^<]+)<', chart)
    assert len(dates) == 3 and all(re.search(r"\d{4}", label) for label in dates)
    assert re.findall(r'class="budget-chart__tick"[^>]*>([^<]+)<', chart) == ["0", "1,100", "2,200"]
    titles = re.findall(r"<circle[^>]*><title>([^<]+)</title></circle>", chart)
    assert len(titles) == chart.count("<circle") and titles
    assert re.search(r"UTC: 40 of 2,200 characters$", titles[0])
    assert 'aria-labelledby="budget-chart-title budget-chart-desc"' in chart
    assert "went from 40 to" in chart and "of a limit of 2,200" in chart
    # The table with every figure is folded under the chart.
    after = html[html.index("</svg>"):]
    assert after.index('<details class="budget-figures">') < after.index('<table class="budget-table">')


def test_the_forecast_is_one_sentence_in_the_summary(owner_client, home):
    write_store(home, "memory", ENTRIES)
    _samples(home, [100, 200, 300, 400])
    html = _page(owner_client)
    summary = html[html.index('id="maintenance-usage"'):html.index('id="maintenance-history"')]
    forecast = re.search(r'<span id="budget-forecast">(.*?)</span>\s*</p>', summary, re.S)
    assert forecast is not None
    text = re.sub(r'<span class="visually-hidden">.*?</span>', "", forecast.group(1))
    text = re.sub(r"<[^>]+>", "", text)
    assert re.fullmatch(r"At about \d+ characters a day it will be full around [A-Z][a-z]+\.? \d+, \d{4}\.", text)
    assert "<time datetime=" in forecast.group(1)
