"""Usage area URLs (/usage/...): the usage page, accounting ingestion and identity mappings."""

from django.urls import path

from forecasts import views_ingest, views_usage

urlpatterns = [
    path("", views_usage.usage, name="usage"),
    path("chart.json", views_usage.usage_chart_json, name="usage-chart-json"),
    path("export.csv", views_usage.usage_csv, name="usage-csv"),
    path("ingest/", views_ingest.ingest_runs, name="ingest-runs"),
    path("ingest/new/", views_ingest.ingest_new, name="ingest-new"),
    path("ingest/<int:pk>/", views_ingest.ingest_run, name="ingest-run"),
    path("ingest/<int:pk>/resume/", views_ingest.ingest_resume, name="ingest-resume"),
    path("ingest/<int:pk>/rejections.csv", views_ingest.ingest_rejections_csv, name="ingest-rejections-csv"),
    path("mappings/", views_usage.mappings, name="usage-mappings"),
    path("unassigned/", views_usage.unassigned, name="usage-unassigned"),
    path("unassigned/map/", views_usage.unassigned_map, name="usage-unassigned-map"),
]
