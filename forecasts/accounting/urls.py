"""Accounting ingestion URLs (/usage/ingest/...): uploads, runs, resume and rejections."""

from django.urls import path

from forecasts.accounting import views

urlpatterns = [
    path("ingest/", views.ingest_runs, name="ingest-runs"),
    path("ingest/new/", views.ingest_new, name="ingest-new"),
    path("ingest/<int:pk>/", views.ingest_run, name="ingest-run"),
    path("ingest/<int:pk>/resume/", views.ingest_resume, name="ingest-resume"),
    path("ingest/<int:pk>/rejections.csv", views.ingest_rejections_csv, name="ingest-rejections-csv"),
]
