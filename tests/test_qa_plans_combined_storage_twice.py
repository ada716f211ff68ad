"""Combined projection, plan + storage trend: the PB-stored trend is of whole file systems (no per-department
storage series), so it already holds the data of the department a plan names; the total PB added the plan's
data held on top with no word, while the core-hours overlap was named.  The page now says it is counted twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from forecasts.demand.plans import plan_import_file
from forecasts.models import ForecastFit
from tests.forecasts.test_forecast_pages import loaded  # noqa: F401  (fixture)
from tests.helpers import login

pytestmark = pytest.mark.django_db

NIGM = Path(__file__).resolve().parent.parent / "fixtures" / "nigm_sequencer_plan.yaml"


def _storage_fit(core_fit: ForecastFit) -> ForecastFit:
    fit = ForecastFit.objects.get(pk=core_fit.pk)
    fit.pk = None
    fit.metric = ForecastFit.Metric.STORAGE_PB
    fit.yearly = [{"year": 2019, "median": 0.5, "p10": 0.4, "p90": 0.6, "complete": True, "partial": False}]
    fit.save()
    return fit


def test_a_department_plan_on_the_storage_trend_is_named_counted_twice(
        client: Client, loaded: dict[str, Any], planner_user: Any) -> None:  # noqa: F811
    storage = _storage_fit(loaded["fit"])
    ggs_plan, _ = plan_import_file(NIGM, department="ggs")
    assert ggs_plan.department is not None
    login(client, planner_user)
    html = client.get(f"/forecasts/combined/?plan={ggs_plan.pk}&storage_fit={storage.pk}").content.decode()
    assert 'id="combined-storage-overlap"' in html
    warning = html[html.index('id="combined-storage-overlap"'):].split("</p>")[0]
    assert f"storage trend #{storage.pk}" in warning and f"department {ggs_plan.department.code}" in warning
    # without a storage trend, or with the plan alone, nothing is counted twice
    alone = client.get(f"/forecasts/combined/?plan={ggs_plan.pk}").content.decode()
    assert 'id="combined-storage-overlap"' not in alone
    assert 'id="combined-storage-overlap"' not in client.get(
        f"/forecasts/combined/?plan={ggs_plan.pk}&storage_fit={storage.pk}&mode=plan").content.decode()
