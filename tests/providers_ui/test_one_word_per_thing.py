"""One unit and one word per thing, read from the pages of the demo home: the built-in stores'
use in characters as the agent counts them (the figure the memory page shows), never in bytes; one
status word per provider state on every page that shows it; the snapshot's larger figure explained
where it appears."""

from __future__ import annotations

import re

import pytest

from memory_core.state import read_all_states

pytestmark = pytest.mark.django_db


STATE_WORDS = {"Ready", "Needs configuration", "Schema error", "Not installed"}


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_built_in_stores_are_counted_in_characters_on_providers_as_on_memory(demo, home):
    providers = _text(demo.get("/providers/").content.decode())
    memory = _text(demo.get("/memory/").content.decode())
    for state in read_all_states(home=home).values():
        figure = f"{state.total_chars:,} / {state.limit:,} characters"
        assert f"{state.file_name}: {figure}" in providers
        assert figure in memory
    assert not re.search(r"\d bytes", providers)


def test_each_provider_state_has_one_word_on_every_page(demo):
    # The words each page gives the providers' states, by the state's badge colour.
    pages = {path: demo.get(path).content.decode() for path in ("/providers/", "/profiles/", "/providers/hindsight/")}
    words = {
        path: {word.strip() for cls, word in re.findall(r'<span class="badge (badge--\w+)">([^<]+)</span>', html)
               if word.strip() in STATE_WORDS | {"Configured", "Not found"}}
        for path, html in pages.items()
    }
    assert all("Configured" not in found and "Not found" not in found for found in words.values()), words
    assert all("Ready" in found for found in words.values()), words  # hindsight is ready in the demo
    assert "Needs configuration" in words["/providers/"]  # honcho lacks its key


def test_the_snapshot_says_why_its_header_counts_more_than_the_store(demo, home):
    state = read_all_states(home=home)["memory"]
    assert state.blocked_count == 1  # the demo's blocked entry
    html = demo.get("/memory/").content.decode()
    note = re.search(r'<p class="help" id="snapshot-memory-counted">(.*?)</p>', html, re.S)
    assert note is not None
    assert f"not the {state.total_chars:,} the store holds" in note.group(1)
    assert "placeholder" in note.group(1)
    assert 'id="snapshot-user-counted"' not in html  # nothing blocked there: one figure
