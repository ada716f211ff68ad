from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerSplitView

from planner.access import views as access_views
from planner.designs import api as api_designs
from planner.web import api, views, views_methods

api_v1 = [
    path("me/", api.me, name="api-me"),
    path("schema/", api.SchemaView.as_view(), name="api-schema"),
    # the split view serves its start-up script from a URL: no inline script under the CSP
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("forecasts.accounting.api")),
    path("", include("forecasts.usage.api")),
    path("", include("forecasts.storage.api")),
    path("", include("forecasts.demand.api")),
    path("", include("forecasts.chargeback.api")),
    path("", include(api.router.urls)),
    path("", include(api_designs.router.urls)),
    path("", include("planner.designs.api_paths")),
    path("", include("planner.reports.api_urls")),
    path("", include("planner.replay.api_urls")),
]

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", access_views.SignInView.as_view(), name="login"),
    path("accounts/logout/", access_views.SignOutView.as_view(), name="logout"),  # and at the IdP (OIDC, SAML)
    path("admin/", admin.site.urls),
    path("jobs/<int:pk>/", views.job_page, name="job"),
    path("jobs/<int:pk>.json", views.job_status_json, name="job-json"),
    path("jobs/<int:pk>/retry/", views.job_retry, name="job-retry"),
    path("api/v1/", include(api_v1)),
    path("usage/", include("forecasts.workload.urls")),
    path("usage/", include("forecasts.usage.urls")),
    path("usage/", include("forecasts.accounting.urls")),
    path("hardware/", include("planner.hardware.urls")),
    path("designs/", include("planner.designs.urls")),
    path("forecasts/", include("forecasts.demand.urls")),
    path("chargeback/", include("forecasts.chargeback.urls")),
    path("reports/", include("planner.reports.urls")),
    path("access/", include("planner.access.urls")),
    path("audit/", include("planner.audit.urls")),
    path("oidc/", include("planner.access.oidc")),
    path("accounts/login/saml2/", include("planner.access.saml")),  # open to the IdP (middleware prefix)
    path("replay/", include("planner.replay.urls")),
    path("methods/", views_methods.methods_index, name="methods"),
    path("methods/<slug:slug>/", views_methods.method_doc, name="method"),
    path("<slug:slug>/", views.area, name="area"),
]

# JSON {"detail"} for the API's 404s and 500s, the site's pages elsewhere (planner/web/edge.py)
handler404 = "planner.web.edge.not_found"
handler500 = "planner.web.edge.server_error"
