"""The friends app's mail pages: "never email me again" (every invitation to an address)."""

from django.urls import path

from .views import mail

urlpatterns = [
    path("never-email/<str:token>/", mail.never_email, name="never_email"),
]
