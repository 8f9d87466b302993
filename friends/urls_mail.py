"""The friends app's mail pages."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
