"""Duplicate groups of one store.

Three kinds, tried in this order; an entry belongs to at most one group (the first kind that
claims it), so the characters the groups waste can be added up:

``exact``
    Equal after normalising: Unicode NFKC, case folded, punctuation (Unicode category P*) turned
    into spaces, whitespace collapsed. ``Prefers dark mode.`` = ``prefers  DARK mode``.
``containment``
    The normalised words of one entry appear, in order and contiguously, inside another's. The
    contained one must have at least ``MIN_CONTAINED_WORDS`` words and ``MIN_CONTAINED_CHARS``
    characters, so a bare ``Python`` is not "contained" in every entry that mentions Python.
``near``
    Word-shingle overlap: the Jaccard similarity of the two entries' sets of 1- and 2-word
    shingles is at least ``NEAR_DUPLICATE_THRESHOLD`` (0.5), both entries having at least
    ``MIN_NEAR_WORDS`` words. Chinese, Japanese and Korean text has no spaces between words, so
    each of its characters counts as a word (its 2-shingles are character bigrams).

    Measured on the examples in ``tests/maintenance``: rewordings of one rule score 0.55-0.75
    (``User prefers concise answers without emojis`` / ``User prefers concise answers, no emojis``
    0.57; ``用户喜欢简洁的回答`` / ``用户喜欢简短的回答`` 0.70); different facts with the same
    frame score 0.25-0.40 (``Deploys go to staging on Monday`` / ``... production on Friday``
    0.375; ``周一部署到测试环境`` / ``周五部署到生产环境`` 0.36).

A group's ``wasted_chars`` is how much the store's count (entries joined by the delimiter, as the
budget counts them) would drop if every entry of the group but the kept one were removed.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from memory_core.entries import char_count

NEAR_DUPLICATE_THRESHOLD = 0.5
MIN_NEAR_WORDS = 3
MIN_CONTAINED_WORDS = 3
MIN_CONTAINED_CHARS = 6

KIND_EXACT = "exact"
KIND_CONTAINMENT = "containment"
KIND_NEAR = "near"
KINDS = (KIND_EXACT, KIND_CONTAINMENT, KIND_NEAR)

# Han, kana, Hangul and their compatibility/extension blocks: one character, one word.
_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
)
_TOKEN = re.compile(rf"[{_CJK}]|[^\s{_CJK}]+")


# ASCII punctuation (category P*) as a translate table; other characters are looked up one by one.
_ASCII_PUNCTUATION = {code: " " for code in range(128) if unicodedata.category(chr(code)).startswith("P")}


def normalise(text: str) -> str:
    """The text two entries must share to be exact duplicates."""
    if text.isascii():
        spaced = text.lower().translate(_ASCII_PUNCTUATION)
    else:
        folded = unicodedata.normalize("NFKC", text).casefold()
        spaced = "".join(" " if unicodedata.category(char).startswith("P") else char for char in folded)
    return " ".join(spaced.split())


def words(text: str) -> list[str]:
    """The normalised words of ``text`` (each CJK character is a word)."""
    return _TOKEN.findall(normalise(text))


def shingles(tokens: Sequence[str]) -> frozenset[str]:
    """1- and 2-word shingles; the separator cannot occur inside a word."""
    return frozenset([*tokens, *(f"{a}\x00{b}" for a, b in itertools.pairwise(tokens))])


def shingle_similarity(first: str, second: str) -> float:
    """Jaccard similarity of the two texts' shingle sets (0.0 when either has no words)."""
    a, b = shingles(words(first)), shingles(words(second))
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True)
class DuplicateGroup:
    kind: str  # "exact", "containment" or "near"
    indices: tuple[int, ...]  # positions in the store, in file order
    texts: tuple[str, ...]
    keep: int  # the position (one of ``indices``) whose text a merge starts from
    wasted_chars: int
    similarity: float  # 1.0 for exact and containment; the lowest linking score for near

    @property
    def removable(self) -> tuple[int, ...]:
        return tuple(index for index in self.indices if index != self.keep)

    @property
    def suggested_text(self) -> str:
        return self.texts[self.indices.index(self.keep)]


def _wasted(entries: Sequence[str], removable: set[int]) -> int:
    return char_count(entries) - char_count([e for i, e in enumerate(entries) if i not in removable])


def _group(kind: str, entries: Sequence[str], members: list[int], keep: int, similarity: float) -> DuplicateGroup:
    indices = tuple(sorted(members))
    return DuplicateGroup(
        kind=kind,
        indices=indices,
        texts=tuple(entries[i] for i in indices),
        keep=keep,
        wasted_chars=_wasted(entries, set(indices) - {keep}),
        similarity=similarity,
    )


def _longest(entries: Sequence[str], members: Sequence[int]) -> int:
    # Longest text wins; on a tie the earlier entry.
    return min(members, key=lambda i: (-len(entries[i]), i))


def find_duplicate_groups(entries: Sequence[str]) -> list[DuplicateGroup]:
    """Every duplicate group of ``entries``, exact ones first, then containment, then near."""
    tokens = [words(entry) for entry in entries]
    keys = [" ".join(t) for t in tokens]
    groups: list[DuplicateGroup] = []
    claimed: set[int] = set()

    by_key: dict[str, list[int]] = defaultdict(list)
    for index, key in enumerate(keys):
        if key:
            by_key[key].append(index)
    for members in by_key.values():
        if len(members) > 1:
            # The first is kept: its wording is the one the agent has seen longest.
            groups.append(_group(KIND_EXACT, entries, members, members[0], 1.0))
            claimed.update(members)

    # Containment: each container, longest first, takes every unclaimed entry inside it. Only
    # entries holding every word of the contained one are candidates (found through a word index).
    free = [i for i in range(len(entries)) if i not in claimed and keys[i]]
    by_word: dict[str, set[int]] = defaultdict(set)
    for i in free:
        for word in tokens[i]:
            by_word[word].add(i)
    inside_of: dict[int, list[int]] = defaultdict(list)
    for i in free:
        if len(tokens[i]) < MIN_CONTAINED_WORDS or len(keys[i]) < MIN_CONTAINED_CHARS:
            continue
        candidates = set.intersection(*(by_word[word] for word in set(tokens[i])))
        needle = f" {keys[i]} "
        for container in candidates:
            if len(keys[container]) > len(keys[i]) and needle in f" {keys[container]} ":
                inside_of[container].append(i)
    for container in sorted(inside_of, key=lambda i: (-len(keys[i]), i)):
        if container in claimed:
            continue
        inside = [i for i in sorted(inside_of[container]) if i not in claimed]
        if inside:
            groups.append(_group(KIND_CONTAINMENT, entries, [container, *inside], container, 1.0))
            claimed.update([container, *inside])

    # Near duplicates: connected components of the "similar enough" relation.
    free = [i for i in range(len(entries)) if i not in claimed and len(tokens[i]) >= MIN_NEAR_WORDS]
    sets = {i: shingles(tokens[i]) for i in free}
    index_of: dict[str, list[int]] = defaultdict(list)
    for i in free:
        for shingle in sets[i]:
            index_of[shingle].append(i)
    parent = {i: i for i in free}
    link_score: dict[int, float] = {}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in free:
        # Shared shingles with every later entry, counted through the index: no set operations
        # per pair, and pairs that share nothing are never looked at.
        shared: dict[int, int] = defaultdict(int)
        for shingle in sets[i]:
            for j in index_of[shingle]:
                if j > i:
                    shared[j] += 1
        size = len(sets[i])
        for j, common in shared.items():
            score = common / (size + len(sets[j]) - common)
            if score >= NEAR_DUPLICATE_THRESHOLD:
                a, b = root(i), root(j)
                if a != b:
                    low = min(score, link_score.get(a, 1.0), link_score.get(b, 1.0))
                    parent[b] = a
                    link_score[a] = low
                else:
                    link_score[a] = min(score, link_score.get(a, 1.0))
    components: dict[int, list[int]] = defaultdict(list)
    for i in free:
        components[root(i)].append(i)
    for top, members in components.items():
        if len(members) > 1:
            groups.append(_group(KIND_NEAR, entries, members, _longest(entries, members), link_score[top]))
    groups.sort(key=lambda group: (KINDS.index(group.kind), group.indices[0]))
    return groups
