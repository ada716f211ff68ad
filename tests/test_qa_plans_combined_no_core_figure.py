"""Combined projection: a year with a storage trend but neither a plan year nor a core-hours trend year (the
storage fit runs further than the core-hours fit) showed total core-hours 0 / 0 / 0, which reads as no compute
demand that year; it now says there is no core-hours figure, as a year without storage already did."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from forecasts.demand.plans import combined_projection
from forecasts.models import ForecastFit
from tests.forecasts.test_forecast_pages import loaded  # noqa: F401  (fixture)
from tests.helpers import login

pytestmark = pytest.mark.django_db


def _storage_fit_beyond(core_fit: ForecastFit, year: int) -> ForecastFit:
    fit = ForecastFit.objects.get(pk=core_fit.pk)
    fit.pk = None
    fit.metric = ForecastFit.Metric.STORAGE_PB
    fit.yearly = [{"year": year, "median": 0.5, "p10": 0.4, "p90": 0.6, "complete": True, "partial": False}]
    fit.save()
    return fit


def test_a_storage_only_year_has_no_core_hours_figure(client: Client, loaded: dict[str, Any],  # noqa: F811
                                                       planner_user: Any) -> None:
    core_years = [int(y["year"]) for y in loaded["fit"].yearly]
    beyond = max(core_years) + 3
    storage = _storage_fit_beyond(loaded["fit"], beyond)
    proj = combined_projection(plan_row=loaded["plan"], core_fit=loaded["fit"], storage_fit=storage)
    row = {r["year"]: r for r in proj["years"]}[beyond]
    assert row["has_storage"] and not row["has_core_hours"]
    html = login(client, planner_user).get(
        f"/forecasts/combined/?plan={loaded['plan'].pk}&core_fit={loaded['fit'].pk}&storage_fit={storage.pk}"
    ).content.decode()
    tr = html[html.index(f"<tr><td>{beyond}"):].split("</tr>")[0]
    assert "no core-hours figure" in tr, tr
    assert ">0<" not in tr.replace(" ", ""), tr
    assert "0.50" in tr  # the storage trend's figure is still shown
