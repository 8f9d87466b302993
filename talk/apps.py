"""App configuration for talk: messages at the table."""

from django.apps import AppConfig


class TalkConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "talk"

    def ready(self) -> None:
        from games import selectors

        from .records import record_talk

        # a finished game's downloaded record holds its talk when every author agreed
        if record_talk not in selectors.RECORD_PARTS:
            selectors.RECORD_PARTS.append(record_talk)
