"""App configuration for tournaments."""

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"

    def ready(self) -> None:
        """Join in games' work through its hooks: games never imports tournaments."""
        from games import maintenance as games_maintenance
        from games import services

        from . import maintenance, tasks

        if tasks.game_finished not in services.FINISHED_HOOKS:
            services.FINISHED_HOOKS.append(tasks.game_finished)
        if maintenance.user_data not in games_maintenance.USER_DATA_PARTS:
            games_maintenance.USER_DATA_PARTS.append(maintenance.user_data)
        if maintenance.demo_league not in games_maintenance.DEMO_DATA_PARTS:
            games_maintenance.DEMO_DATA_PARTS.append(maintenance.demo_league)
