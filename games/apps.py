"""App configuration for games."""

from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from accounts import vacations

        from . import analysis, services, tasks, timeouts

        if tasks.after_action not in services.AFTER_COMMIT_HOOKS:
            services.AFTER_COMMIT_HOOKS.append(tasks.after_action)
        if timeouts.deadlines_refresh not in vacations.CHANGED_HOOKS:
            vacations.CHANGED_HOOKS.append(timeouts.deadlines_refresh)
        analysis.register_compute(tasks.queue_analysis)
