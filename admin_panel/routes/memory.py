from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.routes.lazy import ViewModule

memory = ViewModule("admin_panel.views.memory")

urlpatterns: list[URLPattern] = [
    path("memory/", memory.memory_page, name="memory"),
    path("memory/poll/", memory.memory_poll, name="memory_poll"),
    path("memory/events/", memory.memory_events, name="memory_events"),
    path("memory/snapshot/", memory.memory_snapshot, name="memory_snapshot"),
    path("memory/blocked/", memory.memory_blocked, name="memory_blocked"),
    path("memory/delete/", memory.memory_delete_confirm, name="memory_delete_confirm"),
    path("memory/undo/", memory.memory_undo, name="memory_undo"),
    path("memory/undo/dismiss/", memory.memory_undo_dismiss, name="memory_undo_dismiss"),
    path("memory/pending/", memory.memory_pending, name="memory_pending"),
    path("memory/pending/events/", memory.memory_pending_events, name="memory_pending_events"),
    path("memory/pending/action/", memory.memory_pending_action, name="memory_pending_action"),
    path("memory/<str:target>/add/", memory.memory_entry_add, name="memory_entry_add"),
    path("memory/<str:target>/entries/<str:key>/edit/", memory.memory_entry_edit, name="memory_entry_edit"),
    path("memory/<str:target>/backups/", memory.memory_backups, name="memory_backups"),
    path("memory/<str:target>/backups/<str:name>/", memory.memory_backup_detail, name="memory_backup_detail"),
    path("memory/<str:target>/backups/<str:name>/restore/", memory.memory_restore, name="memory_restore"),
]
