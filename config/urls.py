from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    # /healthz is answered by config.health.HealthCheckMiddleware, ahead of host checks.
    path("admin/", admin.site.urls),
    path("", include("accounts.urls")),
    path("", include("games.urls")),
    path("", include("notices.urls")),
    path("", include("ledger.urls")),
    path("", include("clubhouse.urls")),
    path("", include("clubdata.urls")),
]
