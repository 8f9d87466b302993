"""App configurations of the project package."""

from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    """django.contrib.admin with our AdminSite (a rate-limited login) as ``admin.site``."""

    default_site = "keltis_site.admin_site.AdminSite"
