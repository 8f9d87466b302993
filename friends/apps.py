"""App configuration for friends: invitations, rematches and challenges."""

from django.apps import AppConfig


class FriendsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "friends"

    def ready(self) -> None:
        from games import services

        from . import invitations

        if invitations.held_seats not in services.SEATS_HELD:
            services.SEATS_HELD.append(invitations.held_seats)
