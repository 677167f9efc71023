from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.routes.lazy import ViewModule

profiles = ViewModule("admin_panel.views.profiles")

urlpatterns: list[URLPattern] = [
    path("profiles/", profiles.profiles_page, name="profiles"),
    path("profiles/copy/", profiles.profiles_copy, name="profiles_copy"),
    path("profiles/copy/review/", profiles.profiles_copy_review, name="profiles_copy_review"),
    path("profiles/copy/apply/", profiles.profiles_copy_apply, name="profiles_copy_apply"),
]
