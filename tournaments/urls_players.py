"""Routes of player profiles (games and ratings together, so here and not in games)."""

from django.urls import path

from . import views_players

urlpatterns = [
    path("players/<str:username>/", views_players.profile, name="player_profile"),
]
