"""Design pages (/designs/...)."""

from django.urls import path

from planner.designs import views as v
from planner.designs import views_paths as vp

app_name = "designs"
urlpatterns = [
    path("", v.design_list, name="list"),
    path("new/", v.design_edit, name="new"),
    path("compare/", v.compare, name="compare"),
    path("<int:pk>/", v.design_detail, name="detail"),
    path("<int:pk>/edit/", v.design_edit, name="edit"),
    path("<int:pk>/evaluate/", v.design_reevaluate, name="evaluate"),
    path("<int:pk>/optimize/", v.design_optimize, name="optimize"),
    path("<int:pk>/years.csv", v.design_year_csv, name="years-csv"),
    path("<int:pk>/chance.csv", vp.design_chance_csv, name="chance-csv"),
    path("<int:pk>/service-level/", vp.design_service_level, name="service-level"),
    path("<int:pk>/newest-forecasts/", vp.design_use_newest, name="use-newest-forecasts"),
    path("from-forecast/<int:fit>/", vp.design_from_forecast_view, name="from-forecast"),
    path("runs/<int:pk>/", v.run_detail, name="run"),
    path("runs/<int:pk>/confidence.csv", vp.run_confidence_csv, name="run-confidence-csv"),
    path("runs/<int:pk>/save/", v.run_save_design, name="run-save"),
]
