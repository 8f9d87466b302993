"""Routes of live pages: the event stream (served by the ASGI process)."""

from django.urls import path

from . import views

urlpatterns = [path("live/events/", views.events, name="live_events")]
