"""The friends app's pages, one module per concern."""

from django.urls import include, path

urlpatterns = [
    path("", include("friends.urls_invitations")),
    path("", include("friends.urls_mail")),
    path("", include("friends.urls_rematches")),
    path("", include("friends.urls_clubs")),
]
