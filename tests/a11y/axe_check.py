"""Run axe-core in a Playwright page and report its violations readably."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

FAILING_IMPACTS = ("serious", "critical")
# WCAG 2.0/2.1/2.2 A and AA, plus axe's best practices (reported, failing only when serious).
DEFAULT_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice")


@dataclass(frozen=True)
class Node:
    target: str
    html: str
    summary: str


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    help: str
    help_url: str
    nodes: tuple[Node, ...] = field(default_factory=tuple)

    def describe(self) -> str:
        lines = [f"[{self.impact}] {self.rule}: {self.help} ({len(self.nodes)} element(s)) {self.help_url}"]
        for node in self.nodes[:8]:
            lines.append(f"    at {node.target}")
            lines.append(f"       {node.html[:240]}")
            for reason in node.summary.splitlines():
                if reason.strip():
                    lines.append(f"       - {reason.strip()}")
        if len(self.nodes) > 8:
            lines.append(f"    ... and {len(self.nodes) - 8} more")
        return "\n".join(lines)


_axe_source: str | None = None


def _axe_script() -> str:
    global _axe_source
    if _axe_source is None:
        from axe_playwright_python.base import AXE_SCRIPT

        _axe_source = AXE_SCRIPT
    return _axe_source


def run_axe(
    page: Any,
    *,
    tags: Sequence[str] = DEFAULT_TAGS,
    rules: Sequence[str] = (),
    exclude: Iterable[str] = (),
    disabled: Sequence[str] = (),
) -> dict[str, Any]:
    """axe.run() on the whole document (only ``rules`` when given, else the rules of ``tags``
    except ``disabled``); returns axe's raw results (violations only)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Injected through the DevTools protocol, so the page's script-src policy is not involved.
        page.evaluate(_axe_script())
    context: dict[str, Any] = {"include": [["html"]]}
    excluded = [[selector] for selector in exclude]
    if excluded:
        context["exclude"] = excluded
    run_only = {"type": "rule", "values": list(rules)} if rules else {"type": "tag", "values": list(tags)}
    options: dict[str, Any] = {"runOnly": run_only, "resultTypes": ["violations"]}
    if disabled:
        options["rules"] = {rule: {"enabled": False} for rule in disabled}
    return page.evaluate("([context, options]) => axe.run(context, options)", [context, options])


def axe_violations(
    page: Any,
    *,
    impacts: Sequence[str] = FAILING_IMPACTS,
    tags: Sequence[str] = DEFAULT_TAGS,
    rules: Sequence[str] = (),
    exclude: Iterable[str] = (),
    disabled: Sequence[str] = (),
) -> list[Violation]:
    """axe's violations of the given impacts (serious and critical by default)."""
    results = run_axe(page, tags=tags, rules=rules, exclude=exclude, disabled=disabled)
    found = []
    for raw in results.get("violations", []):
        if raw.get("impact") not in impacts:
            continue
        nodes = tuple(
            Node(
                target=" ".join(str(t) for t in node.get("target", [])),
                html=" ".join(str(node.get("html", "")).split()),
                summary=str(node.get("failureSummary", "")),
            )
            for node in raw.get("nodes", [])
        )
        found.append(Violation(raw["id"], raw.get("impact") or "", raw.get("help", ""), raw.get("helpUrl", ""), nodes))
    return found


def format_violations(violations: Sequence[Violation], *, where: str = "") -> str:
    head = f"{len(violations)} accessibility violation(s)" + (f" on {where}" if where else "")
    return "\n".join([head, *(v.describe() for v in violations)])


def assert_accessible(page: Any, where: str = "", **options: Any) -> None:
    """Fail with a readable report when axe finds a serious or critical violation."""
    violations = axe_violations(page, **options)
    assert not violations, format_violations(violations, where=where or page.url)
