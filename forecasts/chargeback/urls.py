"""Chargeback pages, mounted at /chargeback/ (tests enumerate these routes for access checks)."""

from django.urls import path

from forecasts.chargeback import views

urlpatterns = [
    path("", views.index, name="chargeback"),
    path("compute/", views.compute, name="chargeback-compute"),
    path("statements/<int:pk>/", views.statement_detail, name="chargeback-statement"),
    path("statements/<int:pk>.csv", views.statement_export_csv, name="chargeback-statement-csv"),
    path("statements/<int:pk>.xlsx", views.statement_export_xlsx, name="chargeback-statement-xlsx"),
    path("statements/<int:pk>.pdf", views.statement_export_pdf, name="chargeback-statement-pdf"),
    path("departments/<slug:code>/", views.department_ytd, name="chargeback-ytd"),
    path("departments/<slug:code>/ytd.json", views.department_ytd_json, name="chargeback-ytd-json"),
    path("departments/<slug:code>/ytd.csv", views.department_ytd_csv, name="chargeback-ytd-csv"),
]
