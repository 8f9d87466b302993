"""App configuration for tournaments."""

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"

    def ready(self) -> None:
        from games import services

        from . import tasks

        if tasks.game_finished not in services.FINISHED_HOOKS:
            services.FINISHED_HOOKS.append(tasks.game_finished)
