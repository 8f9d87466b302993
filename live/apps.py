"""App configuration for live pages: registers the publisher on the game services."""

from django.apps import AppConfig


class LiveConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "live"

    def ready(self) -> None:
        from games import services

        from .publish import game_changed

        if game_changed not in services.CHANGED_HOOKS:
            services.CHANGED_HOOKS.append(game_changed)
