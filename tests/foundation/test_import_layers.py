"""No import circle in the three packages, and provider_schemas' layers import only downward
(docs/provider_schemas.md §Modules and layers).

The import graph is grimp's: every ``import`` statement of every file, those inside functions
included (a lazy import that closes a circle is still a circle); only imports under
``if TYPE_CHECKING:`` are left out, because they never run.
"""

from __future__ import annotations

import textwrap

import grimp
import pytest

PACKAGES = ("memory_core", "provider_schemas", "admin_panel")

# provider_schemas from the top: a module may import from its own layer's module only where the
# layer says so (``independent=False``) and from any layer below, never from one above.
PROVIDER_SCHEMAS_LAYERS = (
    grimp.Layer("cli", "payload", independent=False),  # entry points: the command line, docs/api.md's JSON
    grimp.Layer("saving"),
    grimp.Layer("reading", "profiles"),
    grimp.Layer("model"),
    grimp.Layer("loading", "storage", "secret_stores"),  # three sources, independent of each other
    grimp.Layer("values"),
    grimp.Layer("constraints"),
    grimp.Layer("config_schema", "errors", "homes"),
    grimp.Layer("messages"),
)
# The bundled declarations are data the loader executes by path; they import config_schema only.
OUTSIDE_THE_LAYERS = {"provider_schemas.bundled"}


def import_graph(*packages: str) -> grimp.ImportGraph:
    return grimp.build_graph(*packages, exclude_type_checking_imports=True, cache_dir=None)


def circles(graph: grimp.ImportGraph) -> list[str]:
    """Every direct import that the imported module's own imports lead back from, with the way back."""
    found = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                details = graph.get_import_details(importer=importer, imported=imported)
                lines = sorted({detail["line_number"] for detail in details})
                found.append(f"{importer} (line {', '.join(map(str, lines))}) imports " + " → ".join(back))
    return found


def layer_breaches(graph: grimp.ImportGraph, container: str = "provider_schemas") -> list[str]:
    breaches = graph.find_illegal_dependencies_for_layers(layers=PROVIDER_SCHEMAS_LAYERS, containers={container})
    return sorted(
        f"{breach.importer} imports {breach.imported}: "
        + "; ".join(sorted(" → ".join([*sorted(r.heads)[:1], *r.middle, *sorted(r.tails)[:1]]) for r in breach.routes))
        for breach in breaches
    )


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return import_graph(*PACKAGES)


def test_it_finds_no_import_circle_in_the_packages(graph):
    assert circles(graph) == []


def test_it_finds_provider_schemas_importing_only_downward(graph):
    assert layer_breaches(graph) == []


def test_it_places_every_provider_schemas_module_in_a_layer(graph):
    placed = {f"provider_schemas.{tail}" for layer in PROVIDER_SCHEMAS_LAYERS for tail in layer.module_tails}

    assert graph.find_children("provider_schemas") - OUTSIDE_THE_LAYERS == placed


def test_it_counts_an_import_inside_a_function_and_skips_a_type_checking_one(tmp_path, monkeypatch):
    package = tmp_path / "circled"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "low.py").write_text(textwrap.dedent("""
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from circled.typed import Hint


        def later():
            from circled import high

            return high
    """), encoding="utf-8")
    (package / "high.py").write_text("from circled import low\n", encoding="utf-8")
    (package / "typed.py").write_text("from circled import low\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    found = circles(import_graph("circled"))

    assert found == [
        "circled.high (line 1) imports circled.low → circled.high",
        "circled.low (line 9) imports circled.high → circled.low",
    ]


def test_it_reports_an_upward_import_between_layers(tmp_path, monkeypatch):
    package = tmp_path / "layered"  # provider_schemas' layout in small: the model imports a save lazily
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    for layer in PROVIDER_SCHEMAS_LAYERS:
        for tail in layer.module_tails:
            (package / f"{tail}.py").write_text("", encoding="utf-8")
    (package / "saving.py").write_text("from layered import model\n", encoding="utf-8")
    (package / "model.py").write_text("def load():\n    from layered import saving\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    breaches = layer_breaches(import_graph("layered"), container="layered")

    assert breaches == ["layered.model imports layered.saving: layered.model → layered.saving"]
