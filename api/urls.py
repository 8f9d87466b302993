"""Routes of the API: /api/v1/ (versioned), the schema at /api/schema/ and its docs page."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView

from . import docs, pages, stream, stream_schema, views

v1 = "api/v1/"
urlpatterns = [
    path(f"{v1}me/", views.MeView.as_view(), name="api_me"),
    path(f"{v1}games/", views.GamesView.as_view(), name="api_games"),
    path(f"{v1}games/open/", views.OpenGamesView.as_view(), name="api_open_games"),
    path(f"{v1}games/<int:game_id>/", views.GameView.as_view(), name="api_game"),
    path(f"{v1}games/<int:game_id>/actions/", views.ActionView.as_view(), name="api_action"),
    path(f"{v1}games/<int:game_id>/join/", views.GameJoinView.as_view(), name="api_game_join"),
    path(f"{v1}games/<int:game_id>/leave/", views.GameLeaveView.as_view(), name="api_game_leave"),
    path(f"{v1}games/<int:game_id>/record/", views.RecordView.as_view(), name="api_record"),
    path(f"{v1}games/<int:game_id>/messages/", views.MessagesView.as_view(), name="api_messages"),
    path(
        f"{v1}games/<int:game_id>/invitations/",
        views.GameInviteView.as_view(),
        name="api_game_invite",
    ),
    path(f"{v1}games/<int:game_id>/rematch/", views.RematchView.as_view(), name="api_rematch"),
    path(
        f"{v1}games/<int:game_id>/rematch/decline/",
        views.RematchDeclineView.as_view(),
        name="api_rematch_decline",
    ),
    path(f"{v1}invitations/", views.InvitationsView.as_view(), name="api_invitations"),
    path(
        f"{v1}invitations/<int:invitation_id>/accept/",
        views.InvitationAcceptView.as_view(),
        name="api_invitation_accept",
    ),
    path(
        f"{v1}invitations/<int:invitation_id>/decline/",
        views.InvitationDeclineView.as_view(),
        name="api_invitation_decline",
    ),
    path(
        f"{v1}invitations/<int:invitation_id>/withdraw/",
        views.InvitationWithdrawView.as_view(),
        name="api_invitation_withdraw",
    ),
    path(f"{v1}leaderboards/<str:kind>/", views.LeaderboardView.as_view(), name="api_leaderboard"),
    path(
        f"{v1}players/<str:username>/ratings/",
        views.PlayerRatingsView.as_view(),
        name="api_player_ratings",
    ),
    path(f"{v1}leagues/", views.LeaguesView.as_view(), name="api_leagues"),
    path(f"{v1}leagues/<int:league_id>/", views.LeagueView.as_view(), name="api_league"),
    path(
        f"{v1}leagues/<int:league_id>/join/", views.LeagueJoinView.as_view(), name="api_league_join"
    ),
    path(
        f"{v1}leagues/<int:league_id>/leave/",
        views.LeagueLeaveView.as_view(),
        name="api_league_leave",
    ),
    path(f"{v1}tournaments/", views.TournamentsView.as_view(), name="api_tournaments"),
    path(
        f"{v1}tournaments/<int:tournament_id>/",
        views.TournamentView.as_view(),
        name="api_tournament",
    ),
    path(
        f"{v1}tournaments/<int:tournament_id>/join/",
        views.TournamentJoinView.as_view(),
        name="api_tournament_join",
    ),
    path(
        f"{v1}tournaments/<int:tournament_id>/leave/",
        views.TournamentLeaveView.as_view(),
        name="api_tournament_leave",
    ),
    path(f"{v1}stream/", stream.events, name="api_stream"),
    # the same address, never reached (the route above wins): the stream in the OpenAPI schema
    path(f"{v1}stream/", stream_schema.StreamSchemaView.as_view(), name="api_stream_schema"),
    path("accounts/api/", pages.api_settings, name="api_settings"),
    path(
        "accounts/api/tokens/<int:token_id>/revoke/",
        pages.api_token_revoke,
        name="api_token_revoke",
    ),
    path("accounts/api/bot/", pages.api_make_bot, name="api_make_bot"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("api/docs/", docs.SwaggerView.as_view(url_name="api_schema"), name="api_docs"),
    # anything else under api/ is a JSON 404 too, never the site's HTML page
    re_path(r"^api/", views.NotFoundView.as_view()),
]
