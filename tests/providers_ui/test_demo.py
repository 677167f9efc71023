"""The demo home shows every provider state the pages know."""

from __future__ import annotations

import pytest

from admin_panel.demo import seed_demo_home

pytestmark = pytest.mark.django_db


def test_it_seeds_provider_states_that_the_pages_show(owner_client, home):
    seed_demo_home(home)
    seed_demo_home(home)  # seeding twice changes nothing and adds no duplicate lines

    listing = owner_client.get("/providers/").content.decode()
    hindsight = owner_client.get("/providers/hindsight/").content.decode()
    supermemory = owner_client.get("/providers/supermemory/").content.decode()
    mem0 = owner_client.get("/providers/mem0/").content.decode()

    assert "SyntaxError" in listing and "plugins/scratchpad/config_schema.py" in listing
    assert "shadowed by the bundled provider “honcho”" in listing
    assert "stored under an older name" in hindsight and "set in .env" in hindsight
    assert "demo-hindsight-key-not-real" not in hindsight
    assert "instead of on or off" in supermemory and "Set the required secret first: API key." in supermemory
    assert "from .env MEM0_HOST" in mem0
    assert (home / ".env").read_text().count("HINDSIGHT_API_KEY=") == 1


def test_it_summarises_the_active_provider_on_the_home_page(owner_client, home):
    (home / "config.yaml").write_text("memory:\n  provider: supermemory\n", encoding="utf-8")

    html = owner_client.get("/").content.decode()

    assert "Active: <strong>Supermemory</strong>" in html
    assert "Needs configuration" in html and "Built-in memory is always on." in html
