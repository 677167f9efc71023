"""Demo homes for tests, seeded once per test process and copied after that.

Seeding writes a whole ``state.db`` through SQLite and every demo file; a copy of the first seeded
tree is the same bytes at a fraction of the cost. The seeding functions leave existing files alone,
so calling them on the copy still adds what lives outside the home (the panel's database rows)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

_templates: dict[str, Path] = {}


def _copy_missing(source: Path, target: Path) -> None:
    for path in sorted(source.rglob("*")):
        destination = target / path.relative_to(source)
        if path.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
        elif not destination.exists():
            shutil.copy2(path, destination)


def seeded(home: Path, seed: Callable[[Path], None]) -> None:
    """``seed(home)``, with the files of this process's first seeding copied in beforehand."""
    key = f"{seed.__module__}.{seed.__qualname__}"
    template = _templates.get(key)
    if template is None:
        template = Path(tempfile.mkdtemp(prefix="panel-demo-home-")) / "home"
        atexit.register(shutil.rmtree, template.parent, True)
        template.mkdir()
        seed(template)
        _templates[key] = template
    _copy_missing(template, home)
    seed(home)
