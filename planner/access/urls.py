"""Access pages (/access/...): your profile and tokens; effective access and group mappings (admins)."""

from django.urls import path

from planner.access import views as v

urlpatterns = [
    path("", v.access_overview, name="access-overview"),
    path("mappings/", v.mappings, name="access-mappings"),
    path("profile/", v.profile, name="access-profile"),
    path("profile/tokens/<int:pk>/revoke/", v.token_revoke_view, name="access-token-revoke"),
]
