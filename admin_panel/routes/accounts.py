from __future__ import annotations

from django.urls import URLPattern, path

from admin_panel.routes.lazy import ViewModule

account = ViewModule("admin_panel.views.account")
account_links = ViewModule("admin_panel.views.account_links")
people = ViewModule("admin_panel.views.people")

urlpatterns: list[URLPattern] = [
    path("accounts/invitation/", account_links.accept_invitation, name="invitation_accept"),
    path("accounts/invitation/<str:token>/", account_links.follow_invitation, name="invitation_link"),
    path("accounts/reset/", account_links.reset_password, name="reset_password"),
    path("accounts/reset/<str:token>/", account_links.follow_reset_link, name="reset_link"),
    path("account/", account.account_page, name="account"),
    path("account/password/", account.account_password, name="account_password"),
    path("account/sessions/", account.account_sign_out_others, name="account_sign_out_others"),
    path("account/tokens/", account.account_token_create, name="account_token_create"),
    path("account/tokens/<int:pk>/revoke/", account.account_token_revoke, name="account_token_revoke"),
    path("people/", people.people_list, name="people"),
    path("people/invite/", people.people_invite, name="people_invite"),
    path("people/<int:pk>/role/", people.people_set_role, name="people_set_role"),
    path("people/<int:pk>/deactivate/", people.people_deactivate, name="people_deactivate"),
    path("people/<int:pk>/activate/", people.people_activate, name="people_activate"),
    path("people/<int:pk>/reset-link/", people.people_reset_link, name="people_reset_link"),
    path("people/invitations/<int:pk>/revoke/", people.people_revoke_invitation, name="people_revoke_invitation"),
]
