"""Routes of the table talk's actions on the game page."""

from django.urls import path

from . import views

urlpatterns = [
    path("games/<int:game_id>/talk/", views.talk_post, name="talk_post"),
    path("games/<int:game_id>/talk/mute/", views.talk_mute, name="talk_mute"),
    path("talk/messages/<int:message_id>/report/", views.talk_report, name="talk_report"),
]
