"""Routes behind emailed links (act on a turn, unsubscribe) and the email preferences page."""

from django.urls import path

from notifications.views import email_links, preferences

urlpatterns = [
    path("t/<str:token>/", email_links.email_action, name="email_action"),
    path(
        "email/unsubscribe/<str:token>/",
        email_links.unsubscribe,
        name="email_unsubscribe",
    ),
    path("settings/email/", preferences.email_preferences, name="email_preferences"),
    path("settings/email/vacations/", preferences.vacation_add, name="email_vacation_add"),
    path(
        "settings/email/vacations/<int:vacation_id>/remove/",
        preferences.vacation_remove,
        name="email_vacation_remove",
    ),
]
