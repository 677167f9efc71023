from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.routes.lazy import ViewModule

audit = ViewModule("admin_panel.views.audit")

urlpatterns: list[URLPattern] = [
    path("audit/", audit.audit_list, name="audit"),
    path("audit/<int:pk>/", audit.audit_detail, name="audit_detail"),
    path("audit/<int:pk>/revert/", audit.audit_revert, name="audit_revert"),
]
