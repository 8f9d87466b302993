"""Routes of the accounts app, under /accounts/ next to allauth's (keltis_site/urls.py)."""

from django.urls import path

from accounts import views

urlpatterns = [
    # allauth's page, answering a name taken in a race with the form (not allauth.urls')
    path("signup/", views.SignupView.as_view(), name="account_signup"),
    path("settings/", views.account_settings, name="account_settings"),
    path("language/", views.set_language, name="set_language"),
    path("block/<str:username>/", views.block_player, name="block_player"),
]
