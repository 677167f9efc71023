"""Reads of the maintenance page: one store's duplicate groups and hygiene findings (from
``memory_core.maintenance``), the budget history the panel recorded, and a forecast.

Provenance (which session wrote an entry) comes from ``selectors.provenance``: each entry shows
its source, and the "older than" findings use its age when the user chose one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.utils import timezone

from admin_panel.models import BudgetSample
from admin_panel.selectors.memory import entry_key, make_ref
from admin_panel.selectors.provenance import SourceView, entry_sources, memory_history, source_view, source_views
from admin_panel.selectors.providers import secret_store_for
from admin_panel.selectors.sessions import secret_masker
from memory_core.entries import char_count
from memory_core.external import BROWSABLE, source_for
from memory_core.external.base import ContentsError, Item
from memory_core.maintenance import (
    CATEGORIES,
    DuplicateGroup,
    Finding,
    StoreAnalysis,
    analyse_store,
    find_duplicate_groups,
)
from memory_core.maintenance.provenance import EntrySource
from memory_core.maintenance.provider import ProviderAnalysis, analyse_provider
from memory_core.state import StoreState, read_store_state
from memory_core.store import exchanged
from memory_core.threats import MEMORY_SCOPE, ThreatFinding, scan_detailed
from provider_schemas.reading.state import active_provider

# The forecast extrapolates the samples of this many last days.
FORECAST_WINDOW = timedelta(days=14)
CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 640, 220, 56
# The chart and its table show at most this many samples, evenly spread (the last always shown);
# the forecast uses them all.
MAX_CHART_POINTS = 48


@dataclass(frozen=True)
class EntryItem:
    index: int
    text: str
    ref: str
    key: str
    chars: int
    findings: tuple[Finding, ...]
    source: SourceView | None = None


@dataclass(frozen=True)
class GroupItem:
    group: DuplicateGroup
    entries: tuple[EntryItem, ...]

    @property
    def refs(self) -> list[str]:
        return [entry.ref for entry in self.entries]


@dataclass(frozen=True)
class ChartPoint:
    at: datetime
    chars: int
    limit: int
    x: str  # SVG coordinates, formatted once here rather than by template filters
    y: str


@dataclass(frozen=True)
class AxisTick:
    """A labelled mark on one of the chart's axes: a moment on the time axis, a character count
    on the other (the label is formatted by the template, in the reader's language)."""

    at: datetime | None
    chars: int | None
    x: str
    y: str


@dataclass(frozen=True)
class BudgetHistory:
    points: tuple[ChartPoint, ...]
    limit_y: str
    # Characters per day over the recent window (None: too few samples to say).
    rate_per_day: float | None
    full_at: datetime | None  # when the store reaches its limit at that rate
    already_full: bool
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    pad: int = CHART_PAD
    time_ticks: tuple[AxisTick, ...] = ()
    chars_ticks: tuple[AxisTick, ...] = ()

    @property
    def first(self) -> ChartPoint | None:
        return self.points[0] if self.points else None

    @property
    def last(self) -> ChartPoint | None:
        return self.points[-1] if self.points else None

    @property
    def polyline(self) -> str:
        return " ".join(f"{point.x},{point.y}" for point in self.points)

    @property
    def plot_right(self) -> int:
        return self.width - self.pad

    @property
    def plot_bottom(self) -> int:
        return self.height - self.pad


@dataclass(frozen=True)
class ProviderFindings:
    """The maintenance findings over the active provider's own items (each links to its page)."""

    provider: str
    analysis: ProviderAnalysis | None
    error: str = ""  # ContentsError code: the store could not be read (the page still shows)

    @property
    def findings(self) -> list[tuple[Item, Finding]]:
        if self.analysis is None:
            return []
        return [(self.analysis.item_of(finding), finding) for finding in self.analysis.findings]

    @property
    def cards(self) -> list[tuple[Item, list[Finding]]]:
        """One card per item, newest first, with every finding it has (as the file's own findings)."""
        if self.analysis is None:
            return []
        by_index: dict[int, list[Finding]] = {}
        for finding in self.analysis.findings:
            by_index.setdefault(finding.index, []).append(finding)
        return [(self.analysis.items[index], found) for index, found in sorted(by_index.items())]

    @property
    def has_credentials(self) -> bool:
        return self.analysis is not None and self.analysis.has_credentials

    @property
    def groups(self) -> list[tuple[DuplicateGroup, list[Item]]]:
        if self.analysis is None:
            return []
        return [(group, [self.analysis.items[i] for i in group.indices]) for group in self.analysis.groups]


def provider_findings(*, home: Path, secrets: Sequence[str]) -> ProviderFindings | None:
    """None when no provider is active or its store cannot be read from here (or does not exist)."""
    name = active_provider(home=home)
    source = source_for(name, home=home, secret_store=secret_store_for(home=home)) if name in BROWSABLE else None
    if source is None or not source.exists():
        return None
    try:
        return ProviderFindings(provider=name, analysis=analyse_provider(source, secrets=secrets))
    except ContentsError as exc:
        return ProviderFindings(provider=name, analysis=None, error=exc.code)


@dataclass(frozen=True)
class MaintenanceView:
    state: StoreState
    analysis: StoreAnalysis
    entries: tuple[EntryItem, ...]
    groups: tuple[GroupItem, ...]
    history: BudgetHistory
    provider: ProviderFindings | None = None

    @property
    def target(self) -> str:
        return self.state.target

    @property
    def findings(self) -> list[tuple[EntryItem, Finding]]:
        return [(self.entries[finding.index], finding) for finding in self.analysis.findings]

    @property
    def finding_groups(self) -> list[FindingGroup]:
        """The entries with findings, each once, grouped under its most serious finding's category
        (``CATEGORIES`` order): an entry with two findings is one card listing both."""
        by_category: dict[str, list[EntryItem]] = {}
        for entry in self.entries:
            if entry.findings:
                by_category.setdefault(entry.findings[0].category, []).append(entry)
        groups, number = [], 0
        for category in CATEGORIES:
            cards = []
            for entry in by_category.get(category, ()):
                number += 1
                cards.append(FindingCard(number=number, entry=entry))
            if cards:
                groups.append(FindingGroup(category=category, label=cards[0].entry.findings[0].label,
                                           cards=tuple(cards)))
        return groups

    @property
    def entries_with_findings(self) -> int:
        return sum(1 for entry in self.entries if entry.findings)


@dataclass(frozen=True)
class FindingCard:
    number: int  # the card's place on the page (its id)
    entry: EntryItem

    @property
    def action(self) -> str:
        """Delete when every finding suggests it, else rewrite (deleting is the bigger step)."""
        return "delete" if all(finding.action == "delete" for finding in self.entry.findings) else "rewrite"


@dataclass(frozen=True)
class FindingGroup:
    category: str
    label: str
    cards: tuple[FindingCard, ...]


def _items(
    state: StoreState, analysis: StoreAnalysis, sources: Mapping[str, SourceView]
) -> tuple[EntryItem, ...]:
    return tuple(
        EntryItem(
            index=view.index,
            text=view.text,
            ref=make_ref(state.target, view.text),
            key=entry_key(view.text),
            chars=view.chars,
            findings=tuple(analysis.findings_for(view.index)),
            source=sources.get(view.text),
        )
        for view in state.entries
    )


@dataclass(frozen=True)
class _Sample:
    recorded_at: datetime
    chars: int
    limit: int


def budget_samples(*, home: Path, target: str) -> list[_Sample]:
    """The store's size over time: the usage line of every successful ``memory`` call in
    ``state.db`` and the panel's own observations, merged in time order."""
    panel = [
        _Sample(sample.recorded_at, sample.chars, sample.limit)
        for sample in BudgetSample.objects.filter(home=str(home), target=target).order_by("recorded_at", "pk")[:5000]
    ]
    found, _state = memory_history(home=home)
    recorded = [
        _Sample(datetime.fromtimestamp(point.at, tz=UTC), point.chars, point.limit)
        for point in (found.usage if found is not None else ()) if point.target == target
    ]
    # Stable: at equal instants the history's point comes before the panel's.
    return sorted(recorded[-5000:] + panel, key=lambda sample: sample.recorded_at)


def budget_history(*, home: Path, target: str, now: datetime | None = None) -> BudgetHistory:
    samples = budget_samples(home=home, target=target)
    now = now or timezone.now()
    if not samples:
        return BudgetHistory(points=(), limit_y=str(CHART_PAD), rate_per_day=None, full_at=None, already_full=False)
    start, end = samples[0].recorded_at, max(now, samples[-1].recorded_at)
    span = max((end - start).total_seconds(), 1.0)
    limit = samples[-1].limit
    top = max(max(sample.chars for sample in samples), limit, 1)
    plot_w, plot_h = CHART_WIDTH - 2 * CHART_PAD, CHART_HEIGHT - 2 * CHART_PAD

    def y_of(chars: int) -> str:
        return f"{CHART_PAD + plot_h * (1 - chars / top):.1f}"

    step = max(1, -(-len(samples) // MAX_CHART_POINTS))
    shown = samples[::-1][::step][::-1]  # every step-th, counted from the last
    points = tuple(
        ChartPoint(
            at=sample.recorded_at,
            chars=sample.chars,
            limit=sample.limit,
            x=f"{CHART_PAD + plot_w * (sample.recorded_at - start).total_seconds() / span:.1f}",
            y=y_of(sample.chars),
        )
        for sample in shown
    )
    # Three dates (start, middle, end) and three counts (0, half the top, the top) label the axes.
    time_ticks = tuple(
        AxisTick(at=start + (end - start) * share, chars=None,
                 x=f"{CHART_PAD + plot_w * share:.1f}", y=str(CHART_HEIGHT - CHART_PAD))
        for share in (0, 0.5, 1)
    )
    chars_ticks = tuple(
        AxisTick(at=None, chars=round(top * share), x=str(CHART_PAD), y=y_of(round(top * share)))
        for share in (0, 0.5, 1)
    )
    recent = [sample for sample in samples if sample.recorded_at >= now - FORECAST_WINDOW]
    rate = full_at = None
    last = samples[-1]
    if len(recent) >= 2:
        days = (recent[-1].recorded_at - recent[0].recorded_at).total_seconds() / 86400
        if days > 0:
            rate = (recent[-1].chars - recent[0].chars) / days
            if rate > 0 and last.chars < last.limit:
                full_at = last.recorded_at + timedelta(days=(last.limit - last.chars) / rate)
    return BudgetHistory(
        points=points,
        limit_y=y_of(limit),
        rate_per_day=rate,
        full_at=full_at,
        already_full=last.chars >= last.limit > 0,
        time_ticks=time_ticks,
        chars_ticks=chars_ticks,
    )


def maintenance_view(
    *,
    home: Path,
    target: str,
    provenance: Mapping[str, EntrySource] | None = None,
    max_age_days: float | None = None,
    state: StoreState | None = None,
) -> MaintenanceView:
    """``state``: the store as just read, if the caller has it (else it is read here)."""
    state = read_store_state(home=home, target=target) if state is None else state
    texts = [view.text for view in state.entries]
    if provenance is None:
        provenance = entry_sources(home=home, stores={target: texts}).get(target, {})
        views = source_views(home=home, stores={target: texts}).get(target, {})
    else:
        views = {text: source_view(source) for text, source in provenance.items()}
    # Without a chosen age the analysis is the memoised one the memory page's banner shares.
    secrets = tuple(sorted(secret_masker(home=home).forms))  # every stored form of every stored secret
    analysis = analyse_store(texts, state.limit, provenance=provenance if max_age_days else None,
                             max_age_days=max_age_days, secrets=secrets)
    entries = _items(state, analysis, views)
    groups = tuple(
        GroupItem(group=group, entries=tuple(entries[i] for i in group.indices)) for group in analysis.groups
    )
    return MaintenanceView(
        state=state, analysis=analysis, entries=entries, groups=groups,
        history=budget_history(home=home, target=target), provider=provider_findings(home=home, secrets=secrets),
    )


# --- merging ----------------------------------------------------------------------------------------


def suggested_text(texts: Sequence[str]) -> str:
    """The merge form's starting text: a duplicate group's kept entry when the picked entries are
    exactly one group, else every picked text, one per line (nothing is lost by default)."""
    groups = find_duplicate_groups(texts)
    if len(texts) > 1 and len(groups) == 1 and len(groups[0].indices) == len(texts):
        return groups[0].suggested_text
    return "\n".join(texts)


@dataclass(frozen=True)
class MergePreview:
    before_chars: int
    after_chars: int
    limit: int
    result: list[str]
    merged: str
    findings: list[ThreatFinding]

    @property
    def saved_chars(self) -> int:
        return self.before_chars - self.after_chars

    @property
    def fits(self) -> bool:
        return self.after_chars <= self.limit

    @property
    def blocked(self) -> bool:
        return bool(self.findings)


def merge_preview(*, state: StoreState, originals: Sequence[str], merged: str) -> MergePreview:
    """What the store would hold after the change: the same list function the write uses."""
    entries = [view.text for view in state.entries]
    merged = merged.strip()
    result = exchanged(entries, originals, [merged] if merged else [], None)
    return MergePreview(
        before_chars=char_count(entries),
        after_chars=char_count(result),
        limit=state.limit,
        result=result,
        merged=merged,
        findings=scan_detailed(merged, MEMORY_SCOPE) if merged else [],
    )
