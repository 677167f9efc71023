"""The profiles overview: every profile of the agent side by side, and copying settings between them."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from admin_panel.home import current_home
from admin_panel.permissions import can_change, viewer_required
from admin_panel.selectors.profiles import profiles_overview


@require_GET
@viewer_required
def profiles_page(request: HttpRequest) -> HttpResponse:
    overview = profiles_overview(home=current_home())
    return render(request, "profiles/overview.html", {"overview": overview, "can_change": can_change(request.user)})
