"""Routes of ratings."""

urlpatterns: list = []
