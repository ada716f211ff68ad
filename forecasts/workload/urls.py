"""Workload and storage characterisation URLs (/usage/workload/..., /usage/storage/...)."""

from django.urls import path

from forecasts.storage import views as views_storage
from forecasts.workload import views as views_workload

urlpatterns = [
    path("workload/", views_workload.workload, name="workload"),
    path("workload/report.json", views_workload.workload_json, name="workload-json"),
    path("workload/<slug:chart>.csv", views_workload.workload_csv, name="workload-csv"),
    path("workload/department/<slug:department>/", views_workload.workload, name="workload-department"),
    path("storage/", views_workload.storage, name="storage"),
    path("storage/by-department.csv", views_workload.storage_csv, name="storage-csv"),
    path("storage/upload/", views_storage.storage_upload, name="storage-upload"),
    path("storage/snapshots/<int:pk>/rejections.csv", views_storage.storage_rejections_csv,
         name="storage-rejections-csv"),
]
