"""Top-level URL routes."""

from django.contrib import admin
from django.urls import include, path

from games.views.home import home
from keltis_site.health import healthz

urlpatterns = [
    path("", home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("", include("games.urls_lobby")),
    path("", include("games.urls_play")),
    # Our account pages first, so they win over allauth's on a shared path.
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("", include("tournaments.urls")),
    path("admin/", admin.site.urls),
    path("", include("games.urls_email")),
]
