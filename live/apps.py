"""App configuration for live pages: registers the publisher on the game services."""

from django.apps import AppConfig


class LiveConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "live"

    def ready(self) -> None:
        from games import services
        from talk import services as talk_services

        from .publish import game_changed, talk_changed

        if game_changed not in services.CHANGED_HOOKS:
            services.CHANGED_HOOKS.append(game_changed)
        # table talk: a message posted or hidden refreshes the game's pages and streams
        for hooks in (talk_services.POSTED_HOOKS, talk_services.HIDDEN_HOOKS):
            if talk_changed not in hooks:
                hooks.append(talk_changed)
