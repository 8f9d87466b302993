"""Top-level URL routes."""

from django.contrib import admin
from django.urls import include, path

from games.views.home import home

urlpatterns = [
    path("", home, name="home"),
    path("", include("games.urls_lobby")),
    path("", include("games.urls_play")),
    path("admin/", admin.site.urls),
]
