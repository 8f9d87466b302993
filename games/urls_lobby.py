"""Routes of the lobby, game creation and joining, my games and player profiles."""

urlpatterns: list = []
