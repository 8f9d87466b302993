"""Routes of tournaments."""

urlpatterns: list = []
