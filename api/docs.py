"""The API's docs page: Swagger UI from drf-spectacular-sidecar's files on this site, its
start-up script a file of its own (the split view), so the strict CSP holds: no inline
script or style, nothing from another site."""

from __future__ import annotations

from drf_spectacular.views import SpectacularSwaggerSplitView


class SwaggerView(SpectacularSwaggerSplitView):
    template_name = "api/swagger_ui.html"
    title = "Keltis by mail API"
