"""The friends app's clubs pages: a club's invitations, for its organisers."""

from django.urls import path

from .views import clubs

urlpatterns = [
    path("leagues/<int:league_id>/invite/", clubs.club_invite, name="club_invite"),
    path(
        "leagues/<int:league_id>/invitations/<int:invitation_id>/withdraw/",
        clubs.club_invitation_withdraw,
        name="club_invitation_withdraw",
    ),
]
