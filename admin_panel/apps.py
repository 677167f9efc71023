from __future__ import annotations

from pathlib import Path
from typing import Any

from django.apps import AppConfig
from django.core import checks


class AdminPanelConfig(AppConfig):
    name = "admin_panel"
    verbose_name = "memory-panel"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        checks.register(private_data_check, checks.Tags.security)


def private_data_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Before ``serve`` or a command runs: the panel's data folder is made private (and the repair
    logged), or the command stops with the reason when it cannot be (admin_panel/private_data.py)."""
    from django.conf import settings

    from admin_panel.private_data import DataFolderRefused, is_file_database, make_panel_data_private

    name = settings.DATABASES.get("default", {}).get("NAME")
    if not is_file_database(name):
        return []
    database = Path(name)
    try:
        make_panel_data_private(database=database, secret_key=database.parent / "secret_key", create=False)
    except DataFolderRefused as exc:
        return [checks.Error(str(exc), id="memory_panel.E001")]
    return []
