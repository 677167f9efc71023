from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.views import profiles

urlpatterns: list[URLPattern] = [
    path("profiles/", profiles.profiles_page, name="profiles"),
]
