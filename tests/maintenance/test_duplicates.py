"""Duplicate groups: every kind, each with a near miss that must not group, in English and Chinese."""

from __future__ import annotations

import pytest

from memory_core.entries import DELIMITER, char_count
from memory_core.maintenance import NEAR_DUPLICATE_THRESHOLD, find_duplicate_groups, normalise, shingle_similarity

GROUPED = [
    # (kind, first, second)
    ("exact", "Prefers dark mode.", "prefers  DARK mode"),
    ("exact", "Deploys need approval!", "deploys need\napproval"),
    ("exact", "用户喜欢简洁的回答。", "用户喜欢简洁的回答"),
    ("exact", "用户 喜欢，简洁的回答", "用户喜欢简洁的回答！"),
    ("containment", "Repo uses uv for Python deps", "Repo uses uv for python deps; the lockfile is committed"),
    ("containment", "喜欢简洁的回答", "用户喜欢简洁的回答，不要表情符号"),
    ("near", "User prefers concise answers without emojis", "User prefers concise answers, no emojis"),
    (
        "near",
        "The staging server is called atlas and runs Ubuntu",
        "The staging server is called atlas; it runs Ubuntu",
    ),
    ("near", "用户喜欢简洁的回答", "用户喜欢简短的回答"),
    ("near", "每周五下午部署到生产环境", "每周五下午才部署到生产环境"),
]

NOT_GROUPED = [
    # Not exact: digits and the characters between them are kept.
    ("version 3.12", "version 312"),
    ("部署到生产环境", "部署到测试环境"),
    # Same frame, different facts: below the near-duplicate threshold.
    ("Deploys go to staging on Monday", "Deploys go to production on Friday"),
    ("周一部署到测试环境", "周五部署到生产环境"),
    # A contained piece that is too short to count (one or two words).
    ("Python", "Python 3.12 project with uv"),
    ("uses uv", "The repo uses uv for Python deps"),
    ("用户", "用户喜欢简洁的回答"),
    # Contained as characters but not as words.
    ("art of code reviews", "Smart of code reviews is the wiki page title"),
    # Symbols are not punctuation: these are not exact duplicates (and too short to be near ones).
    ("Uses C++", "Uses C"),
]


@pytest.mark.parametrize(("kind", "first", "second"), GROUPED)
def test_it_groups_each_kind_of_duplicate(kind: str, first: str, second: str) -> None:
    entries = ["An unrelated fact about the build cache", first, "另一个无关的事实", second]
    groups = find_duplicate_groups(entries)
    assert [(group.kind, group.indices) for group in groups] == [(kind, (1, 3))]


@pytest.mark.parametrize(("first", "second"), NOT_GROUPED)
def test_it_does_not_group_near_misses(first: str, second: str) -> None:
    assert find_duplicate_groups([first, second]) == []


def test_it_documents_the_threshold_between_the_examples() -> None:
    rewordings = [
        ("User prefers concise answers without emojis", "User prefers concise answers, no emojis"),
        ("用户喜欢简洁的回答", "用户喜欢简短的回答"),
    ]
    different = [
        ("Deploys go to staging on Monday", "Deploys go to production on Friday"),
        ("周一部署到测试环境", "周五部署到生产环境"),
    ]
    assert all(shingle_similarity(a, b) >= NEAR_DUPLICATE_THRESHOLD for a, b in rewordings)
    assert all(shingle_similarity(a, b) < NEAR_DUPLICATE_THRESHOLD for a, b in different)


def test_it_normalises_case_whitespace_and_punctuation_only() -> None:
    assert normalise("  Hello,   WORLD!\n") == "hello world"
    assert normalise("你好，世界。") == "你好 世界"
    assert normalise("version 3.12") != normalise("version 312")


def test_it_counts_wasted_characters_the_way_the_store_counts_them() -> None:
    entries = ["keep me", "Prefers dark mode.", "prefers dark mode", "PREFERS DARK MODE!"]
    (group,) = find_duplicate_groups(entries)
    assert group.keep == 1
    kept = [entries[0], entries[1]]
    assert group.wasted_chars == char_count(entries) - char_count(kept)
    assert group.wasted_chars == len("prefers dark mode") + len("PREFERS DARK MODE!") + 2 * len(DELIMITER)


def test_it_keeps_the_container_and_the_longest_near_duplicate() -> None:
    contained, container = "Repo uses uv for Python deps", "The repo uses uv for Python deps and ruff for lint"
    (group,) = find_duplicate_groups([contained, container])
    assert group.kind == "containment"
    assert group.suggested_text == container
    near_short, near_long = "User prefers concise answers, no emojis", "User prefers concise answers without emojis"
    (group,) = find_duplicate_groups([near_short, near_long])
    assert group.suggested_text == near_long
    assert group.removable == (0,)


def test_it_puts_an_entry_in_one_group_only() -> None:
    entries = [
        "Prefers dark mode in every editor",
        "prefers dark mode in every editor.",
        "Prefers dark mode in every editor and terminal",
    ]
    groups = find_duplicate_groups(entries)
    members = [index for group in groups for index in group.indices]
    assert len(members) == len(set(members))
    assert groups[0].kind == "exact"


def test_it_chains_near_duplicates_into_one_group() -> None:
    entries = [
        "Staging deploys always need approval from the on-call lead",
        "Staging deploys need approval from the on-call lead first",
        "Staging deploys need written approval from the lead first",
    ]
    # The first and the last are not similar enough on their own; the middle one links them.
    assert shingle_similarity(entries[0], entries[2]) < NEAR_DUPLICATE_THRESHOLD
    (group,) = find_duplicate_groups(entries)
    assert group.kind == "near" and group.indices == (0, 1, 2)
    assert NEAR_DUPLICATE_THRESHOLD <= group.similarity < 1.0
