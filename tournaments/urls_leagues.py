"""Routes of leagues."""

from django.urls import path

from . import views_leagues

urlpatterns = [
    path("leagues/", views_leagues.league_list, name="league_list"),
    path("leagues/new/", views_leagues.league_create, name="league_create"),
    path("leagues/<int:league_id>/", views_leagues.league_detail, name="league_detail"),
    path("leagues/<int:league_id>/join/", views_leagues.league_join, name="league_join"),
    path("leagues/<int:league_id>/leave/", views_leagues.league_leave, name="league_leave"),
    path(
        "leagues/<int:league_id>/settings/", views_leagues.league_settings, name="league_settings"
    ),
    path(
        "leagues/<int:league_id>/organisers/add/",
        views_leagues.league_organiser_add,
        name="league_organiser_add",
    ),
    path(
        "leagues/<int:league_id>/organisers/remove/",
        views_leagues.league_organiser_remove,
        name="league_organiser_remove",
    ),
    path(
        "leagues/<int:league_id>/members/remove/",
        views_leagues.league_member_remove,
        name="league_member_remove",
    ),
    path("leagues/<int:league_id>/close/", views_leagues.league_close, name="league_close"),
    path("leagues/<int:league_id>/edit/", views_leagues.league_edit, name="league_edit"),
]
