"""Pages under /forecasts/ (planners and admins only)."""

from django.urls import path

from forecasts.demand import views as v
from forecasts.demand import views_panels as vp
from forecasts.demand import views_plans as p

urlpatterns = [
    path("", v.overview, name="forecasts"),
    path("refit-all/", v.refit_all, name="forecast-refit-all"),
    path("fits/<int:pk>/", v.fit_detail, name="forecast-fit"),
    path("fits/<int:pk>/yearly.csv", v.fit_yearly_csv, name="forecast-fit-yearly-csv"),
    path("fits/<int:pk>/forecast.csv", v.fit_forecast_csv, name="forecast-fit-csv"),
    path("combined/", v.combined, name="forecast-combined"),
    path("panel/", vp.panel, name="forecast-panel"),
    path("panel/usage-panel.csv", vp.panel_sample, name="forecast-panel-sample"),
    path("series/", v.series_list, name="forecast-series-list"),
    path("series/<int:pk>/", v.series_detail, name="forecast-series"),
    path("plans/", p.plan_list, name="forecast-plans"),
    path("plans/compare/", p.plan_compare, name="forecast-plan-compare"),
    path("plans/<int:pk>/", p.plan_detail, name="forecast-plan"),
    path("plans/<int:pk>/edit/", p.plan_edit, name="forecast-plan-edit"),
    path("plans/<int:pk>/derive.json", p.plan_derive, name="forecast-plan-derive"),
    path("plans/<int:pk>/export.<str:fmt>", p.plan_export, name="forecast-plan-export"),
]
