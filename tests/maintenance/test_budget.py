"""Budget history: samples the panel recorded (also from the change feed) and the writes recorded in
state.db, the chart's points and the forecast at the recent rate."""

from __future__ import annotations

import multiprocessing
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from admin_panel.change_feed import ChangeFeed
from admin_panel.models import BudgetSample
from admin_panel.selectors.maintenance import FORECAST_WINDOW, MAX_CHART_POINTS, budget_history
from admin_panel.services.maintenance import record_budget_on_store_changes
from memory_core import add_entry, caching
from memory_core.state import read_store_state
from tests.maintenance.history_builder import HistoryBuilder, success
from tests.memory_view.workers import add_after

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _samples(home, points: list[tuple[float, int]], limit: int = 2200) -> None:
    for days_ago, chars in points:
        BudgetSample.objects.create(
            home=str(home), target="memory", chars=chars, limit=limit, recorded_at=NOW - timedelta(days=days_ago)
        )


def test_it_forecasts_when_the_store_is_full_at_the_recent_rate(home):
    # 100 characters a day over the last ten days; an older, flat stretch is outside the window.
    _samples(home, [(40, 500), (30, 500), (10, 1000), (5, 1500), (0, 2000)])
    history = budget_history(home=home, target="memory", now=NOW)
    assert history.rate_per_day == pytest.approx(100.0)
    assert history.full_at == NOW + timedelta(days=2)
    assert not history.already_full
    assert timedelta(days=10) <= FORECAST_WINDOW


def test_it_says_nothing_about_a_store_that_does_not_grow_or_has_one_sample(home):
    _samples(home, [(3, 1500), (0, 1200)])
    shrinking = budget_history(home=home, target="memory", now=NOW)
    assert shrinking.rate_per_day == pytest.approx(-100.0) and shrinking.full_at is None
    assert budget_history(home=home, target="user", now=NOW).points == ()


def test_it_reports_a_full_store_and_scales_the_chart_to_the_limit(home):
    _samples(home, [(1, 1000), (0, 2200)])
    history = budget_history(home=home, target="memory", now=NOW)
    assert history.already_full and history.full_at is None
    assert history.points[-1].y == history.limit_y  # the last point sits on the limit line
    assert history.points[0].x == str(float(history.pad)) and history.points[-1].x == f"{history.plot_right:.1f}"


def test_the_chart_shows_at_most_its_number_of_points_and_always_the_last(home):
    _samples(home, [(day / 4, 1000 + day) for day in range(200)])
    history = budget_history(home=home, target="memory", now=NOW)
    assert len(history.points) <= MAX_CHART_POINTS
    assert history.points[-1].chars == 1000  # the newest sample (0 days ago)


def test_the_writes_recorded_in_state_db_join_the_panels_samples(home):
    caching.clear_all()
    db = HistoryBuilder(home)
    db.session("20261120_120000_aaaaaa", source="cli")
    day = 86400
    for days_ago, chars in ((12, 600), (8, 1000)):
        db.call(f"w{days_ago}", "20261120_120000_aaaaaa", {"action": "add", "content": f"Fact {days_ago}."},
                success("memory", chars=chars), at=NOW.timestamp() - days_ago * day)
    db.call("failed", "20261120_120000_aaaaaa", {"action": "add", "content": "Too long."},
            {"success": False, "error": "Memory at 2,100/2,200 chars.", "usage": "95% — 2,100/2,200 chars"},
            at=NOW.timestamp() - 6 * day)
    db.call("user", "20261120_120000_aaaaaa", {"action": "add", "target": "user", "content": "Name: Dana."},
            success("user", chars=11, limit=1375), at=NOW.timestamp() - 5 * day)
    db.close()
    _samples(home, [(10, 800), (0, 1600)])

    history = budget_history(home=home, target="memory", now=NOW)
    assert [(point.at, point.chars) for point in history.points] == [
        (NOW - timedelta(days=12), 600), (NOW - timedelta(days=10), 800),
        (NOW - timedelta(days=8), 1000), (NOW, 1600)]
    assert history.rate_per_day == pytest.approx(1000 / 12)  # the failed write is not a point
    caching.clear_all()


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + 180  # a safety net against a hang only
    while not condition():
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.02)


@pytest.mark.django_db(transaction=True)
def test_it_records_a_sample_when_the_change_feed_sees_another_process_write_a_store(home):
    add_entry(home=home, target="memory", content="The panel runs on port 8000.")
    seeded = read_store_state(home=home, target="memory").total_chars
    feed = ChangeFeed()
    try:
        record_budget_on_store_changes(home=home, feed=feed)
        samples = BudgetSample.objects.filter(home=str(home), target="memory")
        # The feed looks once when its watch is up: the store as it was then is the first sample,
        # and only after it is there does the other process write (else which comes first is luck).
        _wait_for(lambda: samples.filter(chars=seeded).exists(), "the sample taken when the watch began")
        process = multiprocessing.get_context("spawn").Process(
            target=add_after, args=(str(home), "memory", "The build uses uv.", 0.0))
        process.start()
        process.join(timeout=180)
        assert process.exitcode == 0

        expected = read_store_state(home=home, target="memory").total_chars
        _wait_for(lambda: samples.filter(chars=expected).exists(), "a sample of the new size")
        assert expected > seeded
        assert samples.get(chars=expected).limit == read_store_state(home=home, target="memory").limit

        # The next write is another observation; the user store, unchanged, gets no second sample.
        add_entry(home=home, target="memory", content="Deploys go through the staging branch first.")
        grown = read_store_state(home=home, target="memory").total_chars
        _wait_for(lambda: samples.filter(chars=grown).exists(), "a sample of the grown store")
        assert list(samples.order_by("recorded_at", "pk").values_list("chars", flat=True)) == [seeded, expected, grown]
        assert BudgetSample.objects.filter(home=str(home), target="user").count() <= 1
    finally:
        feed.close()


@pytest.mark.django_db(transaction=True)
def test_it_lets_a_page_read_the_samples_while_the_sampler_thread_is_writing_one(home):
    """The sampler writes on its own thread while requests read the same table: a reader must see
    the last committed samples, never an error (WAL, as in production)."""
    _samples(home, [(1.0, 1000)])
    writing, done = threading.Event(), threading.Event()

    def sampler() -> None:
        from django.db import connection, transaction

        try:
            with transaction.atomic():
                BudgetSample.objects.create(home=str(home), target="memory", chars=1200, limit=2200, recorded_at=NOW)
                writing.set()
                done.wait(180)  # a safety net against a hang only
        finally:
            connection.close()

    thread = threading.Thread(target=sampler)
    thread.start()
    try:
        assert writing.wait(180)
        assert list(BudgetSample.objects.filter(home=str(home)).values_list("chars", flat=True)) == [1000]
    finally:
        done.set()
        thread.join(180)
    assert BudgetSample.objects.filter(home=str(home)).count() == 2


@pytest.mark.django_db(transaction=True)
def test_it_records_a_store_size_once_when_two_threads_record_it_at_the_same_moment(home):
    """The change feed's sampler and a page's request both record the size they saw. The second
    recorder must see the first one's sample, even when it looks while the first is inserting
    (the flaky budget-feed test's MultipleObjectsReturned: two rows of one size)."""
    from django.db import connection

    from admin_panel.services.maintenance import record_budget_samples

    add_entry(home=home, target="memory", content="The panel runs on port 8000.")
    state = read_store_state(home=home, target="memory")
    first_inserting, second_stepped, go = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def hold_before_inserting(execute, sql, params, many, context):
        if sql.startswith("INSERT") and "budgetsample" in sql:
            first_inserting.set()
            go.wait(180)  # a safety net against a hang only
        return execute(sql, params, many, context)

    def report_a_wait_or_an_insert(execute, sql, params, many, context):
        if sql.startswith("BEGIN"):
            second_stepped.set()  # it waits here for the first recorder's transaction
            return execute(sql, params, many, context)
        result = execute(sql, params, many, context)
        if sql.startswith("INSERT"):
            second_stepped.set()  # it inserted without waiting for the first recorder
        return result

    def recorder(wrapper) -> None:
        try:
            with connection.execute_wrapper(wrapper):
                record_budget_samples(home=home, states=[state])
        except BaseException as exc:  # reported by the test's thread below
            errors.append(exc)
        finally:
            connection.close()

    first = threading.Thread(target=recorder, args=(hold_before_inserting,))
    first.start()
    second = threading.Thread(target=recorder, args=(report_a_wait_or_an_insert,))
    try:
        assert first_inserting.wait(180)
        second.start()
        assert second_stepped.wait(180)
    finally:
        go.set()
        first.join(180)
        if second.is_alive() or second.ident is not None:
            second.join(180)
    assert errors == []
    assert list(BudgetSample.objects.filter(home=str(home), target="memory").values_list("chars", flat=True)) == [
        state.total_chars]
