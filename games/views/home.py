"""Pages for games."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    """The landing page: says what the service is."""
    return render(request, "home.html")
