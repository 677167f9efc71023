from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.routes.lazy import ViewModule

preview = ViewModule("admin_panel.views.preview")

urlpatterns: list[URLPattern] = [
    path("schema-preview/", preview.preview_page, name="schema_preview"),
    path("schema-preview/poll/", preview.preview_poll, name="schema_preview_poll"),
    path("schema-preview/events/", preview.preview_events, name="schema_preview_events"),
    path("schema-preview/paste/", preview.preview_paste, name="schema_preview_paste"),
    path("schema-preview/try/", preview.preview_try, name="schema_preview_try"),
    path("schema-preview/field/", preview.preview_field, name="schema_preview_field"),
]
