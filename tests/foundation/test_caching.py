"""The one cache mechanism (docs/caching.md): a value comes back only under the fingerprint it was
stored with; entries of a home the panel wrote to are dropped; every cache empties at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from admin_panel.selectors.sessions import secret_masker
from memory_core import caching
from memory_core.caching import MISSING, KeyedCache


def test_it_answers_only_under_the_fingerprint_the_value_was_stored_with():
    cache = KeyedCache("test values", size=8)
    cache.put("config.yaml", (1, 100), "first")

    assert cache.get("config.yaml", (1, 100)) == "first"
    assert cache.get("config.yaml", (2, 100)) is MISSING
    assert cache.get("other.yaml", (1, 100)) is MISSING


def test_it_keeps_one_value_per_key_the_newest():
    cache = KeyedCache("test values", size=8)
    cache.put("state.db", "v1", "old")
    cache.put("state.db", "v2", "new")

    assert cache.get("state.db", "v1") is MISSING
    assert cache.get("state.db", "v2") == "new"
    assert len(cache) == 1


def test_it_computes_once_while_the_fingerprint_holds():
    cache = KeyedCache("test values", size=8)
    calls = []

    def compute() -> str:
        calls.append(1)
        return f"value {len(calls)}"

    assert cache.get_or_compute("k", "f1", compute) == "value 1"
    assert cache.get_or_compute("k", "f1", compute) == "value 1"
    assert cache.get_or_compute("k", "f2", compute) == "value 2"
    assert len(calls) == 2


def test_it_drops_the_least_recently_used_entry_beyond_its_size():
    cache = KeyedCache("test values", size=2)
    cache.put("a", None, 1)
    cache.put("b", None, 2)
    cache.get("a", None)  # "a" is now the most recently used
    cache.put("c", None, 3)

    assert cache.get("b", None) is MISSING
    assert (cache.get("a", None), cache.get("c", None)) == (1, 3)


def test_it_never_answers_with_an_entry_as_old_as_its_max_age():
    cache = KeyedCache("test values", size=8, max_age=0)
    cache.put("home", None, "kept")

    assert cache.get("home", None) is MISSING


def test_it_forgets_every_entry_of_the_home_written_to_and_no_other(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (tmp_path / "link").symlink_to(one)
    by_home = KeyedCache("test per home", size=8)
    by_home_and_more = KeyedCache("test per home and prefix", size=8)
    by_home.put(caching.home_key(one), None, "one")
    by_home.put(str(tmp_path / "link"), None, "one as named")
    by_home.put(caching.home_key(two), None, "two")
    by_home_and_more.put((caching.home_key(one), "/panel/"), None, "one's page")

    caching.forget_home(tmp_path / "link")

    assert by_home.get(caching.home_key(one), None) is MISSING
    assert by_home.get(str(tmp_path / "link"), None) is MISSING
    assert by_home_and_more.get((caching.home_key(one), "/panel/"), None) is MISSING
    assert by_home.get(caching.home_key(two), None) == "two"


def test_clear_all_empties_every_cache():
    first, second = KeyedCache("test first", size=8), KeyedCache("test second", size=8)
    first.put("a", None, 1)
    second.put("b", None, 2)

    caching.clear_all()

    assert len(first) == len(second) == 0


def test_it_reads_a_file_again_once_it_is_replaced(tmp_path):
    path = tmp_path / "plugin.yaml"
    path.write_text("description: one\n", encoding="utf-8")
    reads = []

    def read(p: Path) -> str:
        reads.append(p)
        return p.read_text(encoding="utf-8")

    assert caching.per_file_version("test", path, read) == "description: one\n"
    assert caching.per_file_version("test", path, read) == "description: one\n"
    replacement = tmp_path / "new.yaml"
    replacement.write_text("description: two\n", encoding="utf-8")
    os.replace(replacement, path)

    assert caching.per_file_version("test", path, read) == "description: two\n"
    assert len(reads) == 2


@pytest.mark.django_db
def test_it_masks_a_secret_added_to_env_on_the_very_next_read(home):
    (home / ".env").write_text("FIRST_API_KEY=sk-first-0123456789\n", encoding="utf-8")
    assert secret_masker(home=home).mask("sk-first-0123456789") == "[secret: FIRST_API_KEY]"

    (home / ".env").write_text(
        "FIRST_API_KEY=sk-first-0123456789\nSECOND_API_KEY=sk-second-9876543210\n", encoding="utf-8"
    )

    assert secret_masker(home=home).mask("sk-second-9876543210") == "[secret: SECOND_API_KEY]"
