"""The friends app's rematches pages: a finished game's rematch buttons (POST only)."""

from django.urls import path

from friends.views import rematches

urlpatterns = [
    path("games/<int:game_id>/rematch/", rematches.offer, name="rematch_offer"),
    path("games/<int:game_id>/rematch/accept/", rematches.accept, name="rematch_accept"),
    path("games/<int:game_id>/rematch/decline/", rematches.decline, name="rematch_decline"),
]
