from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.routes.lazy import ViewModule

views = ViewModule("admin_panel.views.provider_contents")

urlpatterns: list[URLPattern] = [
    path("", views.contents_index, name="provider_contents_index"),
    path("<str:name>/", views.contents_page, name="provider_contents"),
    path("<str:name>/events/", views.contents_events, name="provider_contents_events"),
    path("<str:name>/left-behind/", views.contents_left_behind, name="provider_contents_left_behind"),
    path("<str:name>/undo/", views.contents_undo, name="provider_contents_undo"),
    path("<str:name>/<str:item_id>/", views.contents_item, name="provider_contents_item"),
    path("<str:name>/<str:item_id>/delete/", views.contents_delete, name="provider_contents_delete"),
]
