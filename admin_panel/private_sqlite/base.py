"""``ENGINE = "admin_panel.private_sqlite"``: every process that opens the panel's database (serve,
a management command, a test, a WSGI server) first makes the data folder and the database private,
so no path creates a file another user can read (admin_panel/private_data.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.backends.sqlite3 import base

from admin_panel.private_data import DataFolderRefused, is_file_database, make_panel_data_private


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        name = conn_params.get("database")
        if is_file_database(name):
            database = Path(os.fspath(name))
            try:
                make_panel_data_private(database=database, secret_key=database.parent / "secret_key")
            except DataFolderRefused as exc:
                raise ImproperlyConfigured(str(exc)) from None
        return super().get_new_connection(conn_params)
