"""The demo step loads the plan, the price series and usage fits, and is quick to re-run."""

from __future__ import annotations

from typing import Any

import pytest

from forecasts.demand.demo import PRICE_SERIES, load_forecasts
from forecasts.models import ExternalSeries, ForecastFit, SequencerPlan
from tests.forecasts.forecast_factories import usage_history

pytestmark = pytest.mark.django_db


def test_without_usage_the_demo_step_loads_the_plan_and_prices_and_skips_fits(db: Any) -> None:
    lines: list[str] = []
    load_forecasts(lines.append)
    assert SequencerPlan.objects.count() == 1 and ExternalSeries.objects.filter(name=PRICE_SERIES).exists()
    assert ForecastFit.objects.filter(metric="core_hours").count() == 0
    assert any("skipped" in line for line in lines)


def test_with_usage_it_fits_clusters_and_departments_once(departments: dict[str, Any]) -> None:
    usage_history(departments, months=24)
    load_forecasts(lambda _: None)
    n = ForecastFit.objects.filter(metric="core_hours").count()
    assert n >= 4  # all, minerva, minerva x 2 departments, all-but-genomics
    assert ForecastFit.objects.filter(exclude_department__code="ggs").exists()
    load_forecasts(lambda _: None)
    assert ForecastFit.objects.filter(metric="core_hours").count() == n and SequencerPlan.objects.count() == 2
