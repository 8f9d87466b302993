"""App configuration for friends: invitations, rematches, challenges and clubs' invitations."""

from django.apps import AppConfig


class FriendsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "friends"

    def ready(self) -> None:
        from . import hooks

        hooks.register()
