"""Routes of player profiles, ratings, leagues and tournaments."""

from django.urls import include, path

urlpatterns = [
    path("", include("tournaments.urls_players")),
    path("", include("tournaments.urls_ratings")),
    path("", include("tournaments.urls_leagues")),
    path("", include("tournaments.urls_tournaments")),
]
