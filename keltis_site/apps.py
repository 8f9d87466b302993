"""App configurations of the project package."""

from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    """django.contrib.admin with our AdminSite (a rate-limited login) as ``admin.site``."""

    default_site = "keltis_site.admin_site.AdminSite"


class SiteConfig(AppConfig):
    """The project package as an app: it has no models, only its system checks and what each
    database connection is set up with."""

    name = "keltis_site"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from . import checks  # noqa: F401  (registers them)
        from .pg_timestamps import use_c_loader

        connection_created.connect(use_c_loader, dispatch_uid="keltis_site.pg_timestamps")
