"""The provider list can reuse a discovery the caller already made (discovery dominates its cost)."""

from __future__ import annotations

from pathlib import Path

from provider_schemas import discover, provider_list_payload, provider_states


def test_it_lists_the_same_rows_from_a_discovery_handed_in(agent_home: Path, plugin) -> None:
    plugin("jsonprov")
    plugin("yamlprov")
    discovery = discover(home=agent_home)

    assert provider_list_payload(home=agent_home, discovery=discovery) == provider_list_payload(home=agent_home)


def test_it_lists_exactly_the_providers_of_the_discovery_handed_in(agent_home: Path, plugin) -> None:
    discovery = discover(home=agent_home)
    plugin("jsonprov")  # installed after that discovery was made

    names = [state.name for state in provider_states(home=agent_home, discovery=discovery)]
    payload = provider_list_payload(home=agent_home, discovery=discovery)

    assert "jsonprov" not in names
    assert "jsonprov" not in {row["name"] for row in payload["providers"]}
    assert "jsonprov" in {row["name"] for row in provider_list_payload(home=agent_home)["providers"]}
