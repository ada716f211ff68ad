"""Hardware pages (/hardware/...)."""

from django.urls import path

from planner.hardware import views as v

app_name = "hardware"
urlpatterns = [
    path("", v.catalog, name="catalog"),
    path("benchmarks/", v.benchmarks, name="benchmarks"),
    path("export/<str:kind>.csv", v.export_csv, name="export"),
    path("import/", v.import_csv, name="import"),
    path("node-types/new/", v.node_type_edit, name="node-type-new"),
    path("node-types/<slug:name>/edit/", v.node_type_edit, name="node-type-edit"),
]
