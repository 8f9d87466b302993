"""Routes of a game: its page, actions, history, post-game analysis and export."""

from django.urls import path

from games.views import play

urlpatterns = [
    path("games/<int:game_id>/", play.game_detail, name="game_detail"),
    path("games/<int:game_id>/act/", play.game_act, name="game_act"),
    path("games/<int:game_id>/history/", play.game_history, name="game_history"),
    path("games/<int:game_id>/analysis/", play.game_analysis_request, name="game_analysis"),
    path("games/<int:game_id>/record.json", play.game_export, name="game_export"),
]
