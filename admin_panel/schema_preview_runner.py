"""``manage.py schema preview PATH``: serve the panel on loopback, focused on one schema file.

For an author working on a plugin outside HERMES_HOME: the file's directory is allowed for the
schema preview (as ``serve --schema-dir`` does), the URL of the preview page focused on that file
is printed, then ``serve`` runs until interrupted. Hot reload follows the file as it is saved.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO
from urllib.parse import urlencode

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from admin_panel.selectors.preview import DIR, SCHEMA_FILE

LOOPBACK = "127.0.0.1"


def preview_target(path: str | Path) -> Path:
    """The schema file named by ``path`` (a ``config_schema.py``, or a directory holding one)."""
    target = Path(path).expanduser().absolute()
    if not target.exists():
        raise CommandError(f"{target}: no such file or directory.")
    if target.is_dir():
        target = target / SCHEMA_FILE
    if target.name != SCHEMA_FILE:
        raise CommandError(f"{path}: the schema preview opens files named {SCHEMA_FILE}.")
    if not target.is_file():
        raise CommandError(f"{target}: no such file.")
    return target


def preview_path(*, index: int) -> str:
    """The preview page focused on ``config_schema.py`` at the top of allowed directory ``index``."""
    return "/schema-preview/?" + urlencode({"choice": f"{DIR}:{index}:{SCHEMA_FILE}"})


def run_preview(*, path: str | Path, port: int, out: IO[str], threads: int = 8) -> None:
    """Allow the file's directory, print the preview URL, then serve on loopback (blocks)."""
    target = preview_target(path)
    # serve --schema-dir appends after the directories already configured: that is our index.
    index = len(getattr(settings, "PANEL_SCHEMA_PREVIEW_DIRS", []))
    out.write(f"Schema preview of {target}:\n  http://{LOOPBACK}:{port}{preview_path(index=index)}\n")
    out.write(f"The provider name must be the directory's name, {target.parent.name!r}.\n")
    out.flush()
    call_command("serve", host=LOOPBACK, port=port, threads=threads, schema_dir=[str(target.parent)])
