"""Routes behind emailed links (act on a turn, unsubscribe), the notification settings page
(email, the other channels, push devices, tests), the push service worker, and the player's
feeds (the secret calendar address, the chat webhook)."""

from django.urls import path

from notifications.views import channels, email_links, feeds, preferences

urlpatterns = [
    path("t/<str:token>/", email_links.email_action, name="email_action"),
    path(
        "email/unsubscribe/<str:token>/",
        email_links.unsubscribe,
        name="email_unsubscribe",
    ),
    path("settings/email/", preferences.email_preferences, name="email_preferences"),
    path("settings/notify/always/", channels.always_notify, name="notify_always"),
    path("settings/notify/<str:channel>/", channels.channel_mode, name="notify_channel_mode"),
    path("settings/notify/<str:channel>/test/", channels.channel_test, name="notify_channel_test"),
    path("settings/notify/<str:channel>/talk/", channels.talk_mode, name="notify_talk_mode"),
    path("settings/push/subscribe/", channels.push_subscribe, name="push_subscribe"),
    path(
        "settings/push/<int:subscription_id>/remove/",
        channels.push_remove,
        name="push_remove",
    ),
    # the service worker's scope is the directory it is served from: the site's root
    path("sw.js", channels.service_worker, name="service_worker"),
    path("settings/email/vacations/", preferences.vacation_add, name="email_vacation_add"),
    path(
        "settings/email/vacations/<int:vacation_id>/remove/",
        preferences.vacation_remove,
        name="email_vacation_remove",
    ),
    path("calendar/<str:token>.ics", feeds.calendar_feed, name="calendar_feed"),
    path("settings/feeds/", feeds.feeds_settings, name="feeds_settings"),
    path("settings/feeds/calendar/", feeds.calendar_new_address, name="calendar_new_address"),
    path("settings/feeds/calendar/remove/", feeds.calendar_remove, name="calendar_remove"),
    path("settings/feeds/webhook/", feeds.webhook_save, name="webhook_save"),
    path("settings/feeds/webhook/test/", feeds.webhook_test, name="webhook_test"),
    path("settings/feeds/webhook/secret/", feeds.webhook_new_secret, name="webhook_new_secret"),
    path("settings/feeds/webhook/remove/", feeds.webhook_remove, name="webhook_remove"),
]
