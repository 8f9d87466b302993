"""The friends app's rematches pages."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
