from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from django.views.i18n import set_language

from admin_panel.routes.lazy import ViewModule
from admin_panel.views import login

first_run = ViewModule("admin_panel.views.first_run")
home = ViewModule("admin_panel.views.home")

urlpatterns = [
    # First: API clients are the hot path, and no other route starts with api/ (a third of the
    # resolver's time per API request went to trying every page route before it).
    path("api/", include("admin_panel.routes.api")),
    path("", home.home, name="home"),
    # Browsers ask for /favicon.ico whatever a page links: they get the panel's icon (the one
    # base.html links), not a 404 in their console and in the request log.
    path("favicon.ico", login_not_required(RedirectView.as_view(url=static("admin_panel/favicon.svg"))),
         name="favicon"),
    path("accounts/login/", login.ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path("accounts/first-run/", first_run.choose_first_account, name="first_run_account"),
    path("accounts/first-run/<str:token>/", first_run.follow_sign_in_link, name="first_run_link"),
    # One route module per area, each owned by its feature.
    path("contents/", include("admin_panel.routes.contents")),
    path("", include("admin_panel.routes.providers")),
    path("", include("admin_panel.routes.memory")),
    path("", include("admin_panel.routes.maintenance")),
    path("", include("admin_panel.routes.preview")),
    path("", include("admin_panel.routes.audit")),
    path("", include("admin_panel.routes.sessions")),
    path("", include("admin_panel.routes.accounts")),
    path("", include("admin_panel.routes.profiles")),
]
