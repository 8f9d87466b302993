"""Routes of the lobby, game creation and joining, my games and the rules (player profiles:
``tournaments.urls_players``)."""

from django.urls import path

from games.views import lobby, rules

urlpatterns = [
    path("games/", lobby.lobby, name="lobby"),
    path("games/new/", lobby.create, name="game_create"),
    path("games/mine/", lobby.my_games, name="my_games"),
    path("games/<int:game_id>/join/", lobby.join, name="game_join"),
    path("games/<int:game_id>/leave/", lobby.leave, name="game_leave"),
    path("rules/", rules.rules_index, name="rules_index"),
    path("rules/<slug:kind>/", rules.rules, name="rules"),
]
