from __future__ import annotations

from django.urls import URLPattern, URLResolver, path, re_path

from admin_panel.views import api

# Mounted under /api/ (api.md Part B).
urlpatterns: list[URLPattern | URLResolver] = [
    path("memory", api.memory_list, name="api_memory"),
    path("memory/provider", api.memory_provider, name="api_memory_provider"),
    path("memory/providers/<str:name>/config", api.provider_config, name="api_provider_config"),
    # A name holding a slash (or extra segments) is no provider: JSON 404, never an HTML page.
    re_path(r"^memory/providers/.+$", api.no_such_route),
]
