from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "API"

    def ready(self) -> None:
        """Join in games' data export through its hook: no room below imports the API."""
        from games import maintenance

        from . import user_data

        if user_data.user_data not in maintenance.USER_DATA_PARTS:
            maintenance.USER_DATA_PARTS.append(user_data.user_data)
