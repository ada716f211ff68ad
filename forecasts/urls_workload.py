"""Workload and storage characterisation URLs (/usage/workload/..., /usage/storage/...)."""

from django.urls import path

from forecasts import views_workload

urlpatterns = [
    path("workload/", views_workload.workload, name="workload"),
    path("workload/report.json", views_workload.workload_json, name="workload-json"),
    path("workload/<slug:chart>.csv", views_workload.workload_csv, name="workload-csv"),
    path("workload/department/<slug:department>/", views_workload.workload, name="workload-department"),
    path("storage/", views_workload.storage, name="storage"),
    path("storage/by-department.csv", views_workload.storage_csv, name="storage-csv"),
]
