"""Routes of a game: its page, actions, history and export."""

urlpatterns: list = []
