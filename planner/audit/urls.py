"""The audit trail (/audit/...): admins and finance."""

from django.urls import path

from planner.audit import views as v

urlpatterns = [
    path("", v.audit_page, name="audit"),
    path("export.csv", v.audit_csv, name="audit-csv"),
]
