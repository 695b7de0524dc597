"""The root URL map: pages, the apps' APIs under /api/, the schema and its docs, /healthz."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerSplitView

from accounts.views import LoginView
from config import views
from operations import health
from operations.schema_view import SchemaView

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("snapshots/", include("clusters.urls")),
    path("api/", include("clusters.api.urls")),
    path("api/", include("scheduling.api.urls")),
    path("api/", include("planning.api.urls")),
    path("api/", include("advice.api.urls")),
    path("api/", include("connected.api.urls")),
    path("clusters/", include("connected.urls")),
    path("", include("scheduling.urls")),
    path("", include("planning.urls")),
    path("", include("advice.urls")),
    path("", include("connected.history.urls")),
    path("api/schema/", SchemaView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file: no inline script, so
    # the docs work under the same Content-Security-Policy as every page.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
]
# Sign-in with OpenID Connect: /oidc/authenticate/ and /oidc/callback/, only when configured.
if settings.OIDC_ENABLED:
    urlpatterns.append(path("oidc/", include("mozilla_django_oidc.urls")))

handler500 = "config.views.server_error"
