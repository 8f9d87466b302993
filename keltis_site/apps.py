"""App configurations of the project package."""

from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    """django.contrib.admin with our AdminSite (a rate-limited login) as ``admin.site``."""

    default_site = "keltis_site.admin_site.AdminSite"


class SiteConfig(AppConfig):
    """The project package as an app: it has no models, only its system checks."""

    name = "keltis_site"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers them)
