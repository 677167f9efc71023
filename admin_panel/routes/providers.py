from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.routes.lazy import ViewModule

providers = ViewModule("admin_panel.views.providers")
settings_page = ViewModule("admin_panel.views.settings_page")

urlpatterns: list[URLPattern] = [
    path("providers/", providers.provider_list, name="providers"),
    path("providers/-/deactivate/", providers.provider_deactivate, name="provider_deactivate"),
    path("providers/<str:name>/", providers.provider_detail, name="provider_detail"),
    path("providers/<str:name>/field/", providers.provider_field, name="provider_field"),
    path("providers/<str:name>/events/", providers.provider_events, name="provider_events"),
    path("providers/<str:name>/review/", providers.provider_review, name="provider_review"),
    path("providers/<str:name>/save/", providers.provider_save, name="provider_save"),
    path("providers/<str:name>/activate/", providers.provider_activate, name="provider_activate"),
    path("settings/", settings_page.memory_settings, name="memory_settings"),
    path("settings/events/", settings_page.memory_settings_events, name="memory_settings_events"),
]
