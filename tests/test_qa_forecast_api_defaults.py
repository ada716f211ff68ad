"""The forecasts API makes the same fit as the page and the command when a setting is left out.

Found on a QA walk: POST /api/v1/forecasts/ without backtest_origins backtested from 16 origins (the engine's count
before the scale ensemble), while the series picker, the command and the nightly refit use the engine's 12
(docs/forecasting.md), so the same series forecast through the API and on the page gave different members' scores,
combinations and intervals."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from forecasts.demand.series import DEFAULT_ORIGINS
from forecasts.models import ForecastFit
from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

pytestmark = pytest.mark.django_db


def test_an_api_fit_without_backtest_origins_uses_the_pages_count(
        client: Client, departments: dict[str, Any], planner_user: Any) -> None:
    usage_history(departments, months=30)
    login(client, planner_user)
    resp = client.post("/api/v1/forecasts/", {"metric": "core_hours", "cluster": "minerva", "horizon_months": 12},
                       content_type="application/json")
    assert resp.status_code == 201, resp.content
    client.post("/forecasts/", {"cluster": "minerva", "metric": "core_hours", "horizon": "12"})
    api_fit, page_fit = ForecastFit.objects.order_by("pk")
    assert api_fit.options["backtest_origins"] == page_fit.options["backtest_origins"] == DEFAULT_ORIGINS
    # the same fit: equal to the last bits but one (two runs of the same fit can differ in the 16th digit, the
    # summation order of the compiled code; 16 origins against 12 moved them in the 3rd)
    assert len(api_fit.result["steps"]) == len(page_fit.result["steps"])
    for a, b in zip(api_fit.result["steps"], page_fit.result["steps"], strict=True):
        assert {k: v for k, v in a.items() if isinstance(v, str)} == {k: v for k, v in b.items() if isinstance(v, str)}
        assert {k: v for k, v in a.items() if not isinstance(v, str)} == pytest.approx(
            {k: v for k, v in b.items() if not isinstance(v, str)}, rel=1e-9)
