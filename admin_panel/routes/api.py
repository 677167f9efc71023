from __future__ import annotations

from django.urls import URLPattern, URLResolver, path, re_path

from admin_panel.routes.lazy import ViewModule

api = ViewModule("admin_panel.views.api")
sessions_api = ViewModule("admin_panel.views.sessions_api")

# Mounted under /api/ (docs/api.md).
urlpatterns: list[URLPattern | URLResolver] = [
    path("memory", api.memory_list, name="api_memory"),
    path("memory/provider", api.memory_provider, name="api_memory_provider"),
    path("memory/providers/<str:name>/config", api.provider_config, name="api_provider_config"),
    # A name holding a slash (or extra segments) is no provider: JSON 404, never an HTML page.
    re_path(r"^memory/providers/.+$", api.no_such_route),
    # The agent's session history, read-only (docs/api.md §Session routes, §Deviations from 0.19.0).
    path("sessions", sessions_api.sessions_list, name="api_sessions"),
    path("sessions/search", sessions_api.sessions_search, name="api_sessions_search"),
    path("sessions/stats", sessions_api.sessions_stats, name="api_sessions_stats"),
    path("sessions/<str:session_id>", sessions_api.session_detail, name="api_session"),
    path("sessions/<str:session_id>/messages", sessions_api.session_messages, name="api_session_messages"),
    path("sessions/<str:session_id>/export", sessions_api.session_export, name="api_session_export"),
    re_path(r"^sessions/.+$", sessions_api.sessions_no_such_route),
]
