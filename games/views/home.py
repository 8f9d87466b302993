"""Pages for games."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games import listings


def home(request: HttpRequest) -> HttpResponse:
    """The landing page: says what the service is; a signed-in player sees their turns."""
    context = {}
    if request.user.is_authenticated:
        context["turn_count"] = listings.user_turn_count(user=request.user)
    return render(request, "home.html", context)
