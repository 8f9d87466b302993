"""The friends app's clubs pages."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
