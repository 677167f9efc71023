from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.routes.lazy import ViewModule

sessions = ViewModule("admin_panel.views.sessions")

urlpatterns: list[URLPattern] = [
    path("sessions/", sessions.sessions_page, name="sessions"),
    path("sessions/secrets/", sessions.secrets_in_history, name="sessions_secrets"),
    path("sessions/-/events/", sessions.sessions_events, name="sessions_events"),
    path("sessions/<str:session_id>/", sessions.session_detail, name="session_detail"),
    path("sessions/<str:session_id>/export/", sessions.session_export, name="session_export"),
]
