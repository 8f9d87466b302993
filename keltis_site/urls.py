"""Top-level URL routes."""

from django.contrib import admin
from django.urls import include, path

from games.views.home import home
from keltis_site.app_shell import offline, web_manifest
from keltis_site.health import healthz
from keltis_site.site_files import favicon, robots_txt

urlpatterns = [
    path("", home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("robots.txt", robots_txt, name="robots_txt"),
    path("favicon.ico", favicon, name="favicon"),
    # the installable app (keltis_site/app_shell.py); its service worker is notifications' /sw.js
    path("manifest.webmanifest", web_manifest, name="web_manifest"),
    path("offline/", offline, name="offline"),
    path("", include("games.urls_lobby")),
    path("", include("games.urls_play")),
    # Our account pages first, so they win over allauth's on a shared path.
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("", include("tournaments.urls")),
    path("", include("friends.urls")),
    path("", include("talk.urls")),
    path("", include("live.urls")),
    path("", include("api.urls")),
    path("admin/", admin.site.urls),
    path("", include("notifications.urls")),
]

# The site's own error pages (keltis_site/errors.py); 403 and 404 are Django's views, which
# render templates/403.html and 404.html with the request.
handler400 = "keltis_site.errors.bad_request"
handler500 = "keltis_site.errors.server_error"
