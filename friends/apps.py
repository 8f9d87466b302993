"""App configuration for friends: invitations, rematches and challenges."""

from django.apps import AppConfig


class FriendsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "friends"

    def ready(self) -> None:
        from games import maintenance, services

        from . import invitations, user_data

        if invitations.held_seats not in services.SEATS_HELD:
            services.SEATS_HELD.append(invitations.held_seats)
        if user_data.user_data not in maintenance.USER_DATA_PARTS:
            maintenance.USER_DATA_PARTS.append(user_data.user_data)
