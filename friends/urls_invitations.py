"""The friends app's invitations pages: the email's link, a member's answers, and the table
creator's actions on an open table's page."""

from django.urls import path

from .views import invitations

urlpatterns = [
    # before the link's pattern, whose secret would match these words too
    path(
        "invitations/<int:invitation_id>/accept/",
        invitations.member_accept,
        name="invitation_accept",
    ),
    path(
        "invitations/<int:invitation_id>/decline/",
        invitations.member_decline,
        name="invitation_decline",
    ),
    path(
        "invitations/<int:invitation_id>/withdraw/",
        invitations.withdraw,
        name="invitation_withdraw",
    ),
    path(
        "invitations/<int:invitation_id>/<str:secret>/",
        invitations.invitation_answer,
        name="invitation_answer",
    ),
    path("games/<int:game_id>/invite/", invitations.table_invite, name="table_invite"),
    path("games/<int:game_id>/seat-bot/", invitations.table_seat_bot, name="table_seat_bot"),
]
