"""Hygiene findings: every category, each with a near miss that must not trigger, in English and
Chinese; the evidence spans point at the words that made the finding."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from memory_core.maintenance import analyse_store, find_hygiene_issues
from memory_core.maintenance.findings import CATEGORIES, EXPLANATIONS, SUGGESTIONS

TRIGGERS = [
    # (category, entry, evidence)
    ("relative_date", "Yesterday we moved CI to GitHub Actions.", ["Yesterday"]),
    ("relative_date", "The release is planned for next week.", ["next week"]),
    ("relative_date", "Rotated the staging keys 3 days ago.", ["3 days ago"]),
    ("relative_date", "昨天把 CI 迁移到了 GitHub Actions。", ["昨天"]),
    ("relative_date", "上周更换了数据库密码策略", ["上周"]),
    ("relative_date", "三天前升级了服务器", ["三天前"]),
    ("task_state", "TODO: migrate the billing tables", ["TODO"]),
    ("task_state", "Currently working on the login page redesign (WIP)", ["Currently working on", "WIP"]),
    ("task_state", "- [ ] write tests\n- [x] fix lint", ["- [ ]", "- [x]"]),
    ("task_state", "支付模块重构进行中", ["进行中"]),
    ("task_state", "正在处理登录页面的问题", ["正在处理"]),
    ("raw_dump", "Config:\n```yaml\nmemory:\n  provider: x\n```", ["```", "```"]),
    ("raw_dump", '{"name": "atlas", "region": "eu-west-1", "size": 3}', None),
    ("raw_dump", 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\nKeyError: x', None),
    ("raw_dump", "\n".join(f"第{n}行：服务器日志内容" for n in range(1, 14)), None),
    ("credential", "Staging DB password: hunter2024!", ["hunter2024!"]),
    ("credential", "OpenAI key sk-proj-abcdefghijklmnopqrstuvwx1234", ["sk-proj-abcdefghijklmnopqrstuvwx1234"]),
    ("credential", "api_key = 'abcdefghijklmnopqrstuvwxyz'", ["api_key = 'abcdefghijklmnopqrstuvwxyz"]),
    ("credential", "数据库密码：abc12345", ["abc12345"]),
    ("credential", "测试环境 token = 'abcdefghijklmnopqrstuvwxyz'", ["token = 'abcdefghijklmnopqrstuvwxyz"]),
    ("credential", "服务器的访问密钥是 AKIAABCDEFGHIJKLMNOP", ["AKIAABCDEFGHIJKLMNOP"]),
]

NEAR_MISSES = [
    # (category that must not trigger, entry)
    ("relative_date", "On 2026-03-02 (yesterday at the time) CI moved to GitHub Actions."),
    ("relative_date", "Runs the weekly report every Monday; todays-digest is the channel name."),
    ("relative_date", "2026年3月2日（昨天）把 CI 迁移到了 GitHub Actions"),
    ("relative_date", "每周一开会，天天站会"),
    ("task_state", "Prefers todo lists in Markdown and uses Todoist for errands."),
    ("task_state", "Wipes the build cache before releases; progress bars annoy the user."),
    ("task_state", "喜欢在进行代码审查时直接指出问题"),
    ("task_state", "完成任务后再汇报"),
    ("raw_dump", "Uses `uv run pytest` to test; the config is {json} in name only."),
    ("raw_dump", "The at sign matters: at Foo(bar) is how the user writes meetings."),
    ("raw_dump", "部署步骤：\n1. 构建\n2. 测试"),
    ("raw_dump", "用户喜欢用 `make` 构建项目"),
    ("credential", "Store API keys in environment variables, not code."),
    ("credential", "The password is stored in 1Password; the token is kept in the keyring."),
    ("credential", "密码保存在密码管理器中，不要写在这里"),
    ("credential", "令牌是每天自动轮换的"),
]


@pytest.mark.parametrize(("category", "entry", "evidence"), TRIGGERS)
def test_it_finds_each_category_with_its_evidence(category: str, entry: str, evidence: list[str] | None) -> None:
    found = [finding for finding in find_hygiene_issues([entry]) if finding.category == category]
    assert len(found) == 1
    finding = found[0]
    assert finding.index == 0 and finding.text == entry
    if evidence is None:
        assert finding.evidence and all(part in entry for part in finding.evidence)
    else:
        assert finding.evidence == evidence


@pytest.mark.parametrize(("category", "entry"), NEAR_MISSES)
def test_it_leaves_near_misses_alone(category: str, entry: str) -> None:
    assert [finding.category for finding in find_hygiene_issues([entry]) if finding.category == category] == []


def test_every_category_is_explained_with_an_action() -> None:
    for category in CATEGORIES:
        assert EXPLANATIONS[category] and SUGGESTIONS[category]
    found = find_hygiene_issues(["TODO: yesterday's deploy"])
    assert {finding.action for finding in found} <= {"rewrite", "delete"}


def test_it_flags_long_multiline_entries_in_either_language() -> None:
    english = "\n".join(f"line {n}: the build log said something" for n in range(12))
    short = "\n".join(f"line {n}" for n in range(4))
    assert [f.category for f in find_hygiene_issues([english])] == ["raw_dump"]
    assert find_hygiene_issues([short]) == []


def test_it_marks_old_entries_only_with_provenance() -> None:
    entries = ["Prefers dark mode", "Uses uv"]
    provenance = {"Prefers dark mode": SimpleNamespace(age_days=200.0), "Uses uv": SimpleNamespace(age_days=3.0)}
    assert find_hygiene_issues(entries, max_age_days=90) == []
    stale = find_hygiene_issues(entries, provenance=provenance, max_age_days=90)
    assert [(f.category, f.index) for f in stale] == [("stale", 0)]


def test_the_analysis_adds_up_what_merging_could_free() -> None:
    entries = [
        "Prefers dark mode.",
        "prefers dark mode",
        "Repo uses uv for Python deps",
        "repo uses uv for python deps!",
    ]
    analysis = analyse_store(entries, 2200)
    assert analysis.freeable_chars == sum(group.wasted_chars for group in analysis.groups) == 17 + 3 + 29 + 3
    assert analysis.total_chars == sum(map(len, entries)) + 9
    assert not analysis.has_credentials
    assert analyse_store(["password: hunter2024"], 100).has_credentials


def test_a_stored_secrets_value_is_a_credential_whatever_it_looks_like_and_a_near_miss_is_not():
    value = "plainwordsecret"  # no digit, no symbol: the shape rules alone would not flag it
    found = find_hygiene_issues([f"Wifi is {value} at home.", "Wifi is plainwordsecre at home."], secrets=(value,))
    assert [(f.category, f.index, f.evidence) for f in found] == [("credential", 0, [value])]
    assert find_hygiene_issues([f"Wifi is {value} at home."]) == []
