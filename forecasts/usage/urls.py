"""Usage area URLs (/usage/...): the usage page and identity mappings."""

from django.urls import path

from forecasts.usage import views as views_usage

urlpatterns = [
    path("", views_usage.usage, name="usage"),
    path("chart.json", views_usage.usage_chart_json, name="usage-chart-json"),
    path("export.csv", views_usage.usage_csv, name="usage-csv"),
    path("mappings/", views_usage.mappings, name="usage-mappings"),
    path("unassigned/", views_usage.unassigned, name="usage-unassigned"),
    path("unassigned/map/", views_usage.unassigned_map, name="usage-unassigned-map"),
]
