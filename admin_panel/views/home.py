from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from admin_panel.home import hermes_home


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"hermes_home": hermes_home()})
