"""Routes of ratings."""

from django.urls import path

from . import views_ratings

urlpatterns = [
    path("ratings/", views_ratings.leaderboard_index, name="leaderboard_index"),
    path("ratings/<slug:kind>/", views_ratings.leaderboard, name="leaderboard"),
]
