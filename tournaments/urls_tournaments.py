"""Routes of tournaments."""

from django.urls import path

from . import views_tournaments as views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournament_list"),
    path("tournaments/new/", views.tournament_create, name="tournament_create"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="tournament_detail"),
    path(
        "tournaments/<int:tournament_id>/signup/", views.tournament_signup,
        name="tournament_signup",
    ),
    path(
        "tournaments/<int:tournament_id>/withdraw/", views.tournament_withdraw,
        name="tournament_withdraw",
    ),
    path(
        "tournaments/<int:tournament_id>/bots/", views.tournament_bot_add,
        name="tournament_bot_add",
    ),
    path(
        "tournaments/<int:tournament_id>/bots/<int:entry_id>/remove/",
        views.tournament_bot_remove, name="tournament_bot_remove",
    ),
    # a private tournament's sign-up link (tournaments.private_tournaments) and its renewal
    path(
        "tournaments/<int:tournament_id>/join/<str:secret>/", views.tournament_private_join,
        name="tournament_private_join",
    ),
    path(
        "tournaments/<int:tournament_id>/link/", views.tournament_link_renew,
        name="tournament_link_renew",
    ),
]
