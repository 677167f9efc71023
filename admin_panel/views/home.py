from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from admin_panel.agent_home import current_home
from admin_panel.permissions import can_view
from admin_panel.selectors.memory import memory_summary
from admin_panel.selectors.providers import provider_summary


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    home_path = current_home()
    context = {
        "hermes_home": home_path,
        # Only for those allowed to see the stores.
        "memory_summary": memory_summary(home=home_path) if can_view(request.user) else None,
        "provider_summary": provider_summary(home=home_path) if can_view(request.user) else None,
    }
    return render(request, "home.html", context)
