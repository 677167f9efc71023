from __future__ import annotations

from django.apps import AppConfig


class AdminPanelConfig(AppConfig):
    name = "admin_panel"
    verbose_name = "memory-panel"
    default_auto_field = "django.db.models.BigAutoField"
