"""Routes of a game: its page, actions, history, post-game analysis, export, and a private
table's link."""

from django.urls import path

from games.views import play, private_tables

urlpatterns = [
    path("games/<int:game_id>/", play.game_detail, name="game_detail"),
    path("games/<int:game_id>/act/", play.game_act, name="game_act"),
    path("games/<int:game_id>/history/", play.game_history, name="game_history"),
    path("games/<int:game_id>/analysis/", play.game_analysis_request, name="game_analysis"),
    path("games/<int:game_id>/record.json", play.game_export, name="game_export"),
    # a private table's link (games.private_tables)
    path(
        "games/<int:game_id>/join/<str:secret>/", private_tables.join, name="private_table_join"
    ),
    path("games/<int:game_id>/link/", private_tables.renew, name="private_table_renew"),
]
