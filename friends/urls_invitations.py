"""The friends app's invitations pages."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
