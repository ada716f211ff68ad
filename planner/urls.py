from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from planner import api, api_designs, views

api_v1 = [
    path("me/", api.me, name="api-me"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("forecasts.api_ingest")),
    path("", include("forecasts.api_storage")),
    path("", include("forecasts.api_forecast")),
    path("", include("forecasts.api_chargeback")),
    path("", include(api.router.urls)),
    path("", include(api_designs.router.urls)),
    path("", include("planner.reports.api_urls")),
]

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("jobs/<int:pk>/", views.job_page, name="job"),
    path("jobs/<int:pk>.json", views.job_status_json, name="job-json"),
    path("api/v1/", include(api_v1)),
    path("usage/", include("forecasts.urls_workload")),
    path("usage/", include("forecasts.urls_usage")),
    path("hardware/", include("planner.urls_hardware")),
    path("designs/", include("planner.urls_designs")),
    path("forecasts/", include("forecasts.urls_forecast")),
    path("chargeback/", include("forecasts.urls_chargeback")),
    path("reports/", include("planner.reports.urls")),
    path("<slug:slug>/", views.area, name="area"),
]
