"""App configuration for talk: messages at the table."""

from django.apps import AppConfig


class TalkConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "talk"
