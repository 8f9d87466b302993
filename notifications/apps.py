"""App configuration for notifications: where it starts listening to play."""

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"

    def ready(self) -> None:
        """Queue the outbox's rows when play says something became due (inside the move's
        transaction) or a player wrote at a table (inside the message's), and deliver them
        once that transaction has committed."""
        from games import due, maintenance, services
        from talk import services as talk_services

        from . import outbox, table_talk, tasks, user_data

        due.turn_began.connect(outbox.turn_began)
        due.reminder_due.connect(outbox.reminder_due)
        due.timed_out.connect(outbox.timed_out)
        due.game_finished.connect(outbox.game_finished)
        if tasks.after_action not in services.AFTER_COMMIT_HOOKS:
            services.AFTER_COMMIT_HOOKS.append(tasks.after_action)
        if user_data.user_data not in maintenance.USER_DATA_PARTS:
            maintenance.USER_DATA_PARTS.append(user_data.user_data)
        if table_talk.message_posted not in talk_services.POSTED_HOOKS:
            talk_services.POSTED_HOOKS.append(table_talk.message_posted)
