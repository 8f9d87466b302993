"""Routes of leagues."""

urlpatterns: list = []
