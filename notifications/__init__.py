"""The channels' room: the outbox of what became due in play, and its senders (email today).

Play (``games``) never imports this app: it tells ``games.due`` that something became due, and
this app listens (``apps.NotificationsConfig.ready``).
"""
