from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.routes.lazy import ViewModule

maintenance = ViewModule("admin_panel.views.maintenance")

urlpatterns: list[URLPattern] = [
    path("memory/<str:target>/maintenance/", maintenance.memory_maintenance, name="memory_maintenance"),
    path("memory/<str:target>/maintenance/merge/", maintenance.memory_merge, name="memory_merge"),
    path("memory/<str:target>/maintenance/undo/", maintenance.memory_maintenance_undo, name="memory_maintenance_undo"),
]
