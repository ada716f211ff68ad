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


def test_the_demo_forecasts_every_file_systems_storage_with_the_products_own_fit(
        departments: dict[str, Any], settings: Any, tmp_path: Any, client: Any) -> None:
    """The demo had storage scans but no storage_pb fit, so its forecast pages, the combined projection's storage
    trend and the design pages never showed storage growth. The demo step fits it with the forecast service, on
    the series the product builds from the scans (every file system, from the month each has been scanned)."""
    from django.contrib.auth.models import User

    from forecasts.demand.series import SeriesSpec, forecast_fit_create, monthly_series
    from forecasts.workload.demo import load_storage

    settings.DATA_DIR = tmp_path
    usage_history(departments, months=24)
    load_storage(lambda _: None)
    load_forecasts(lambda _: None)
    fits = ForecastFit.objects.filter(metric="storage_pb")
    assert fits.count() == 1
    fit = fits.get()
    assert fit.cluster_id is None and fit.department_id is None  # every file system, as the service requires
    series = monthly_series(SeriesSpec("storage_pb"))
    assert fit.values == pytest.approx(series.values) and fit.start == series.start
    # forecast to the end of the usage fits' last year (logs end 2021-12, 36 months on: 2024), though the scans end
    # before the logs do, so that a design for the cluster's forecast years can take its storage from this fit
    core = ForecastFit.objects.filter(metric="core_hours").first()
    assert core is not None and core.yearly[-1]["year"] == fit.yearly[-1]["year"] == 2024
    assert not fit.yearly[-1].get("partial")
    again = forecast_fit_create(SeriesSpec("storage_pb"), horizon_months=fit.options["horizon"])  # the service's own
    assert [y["median"] for y in fit.yearly] == pytest.approx([y["median"] for y in again.yearly])
    assert fit.yearly[-2]["median"] > fit.yearly[0]["median"]  # the scans grow; the forecast says so
    again.delete()
    load_forecasts(lambda _: None)  # a second `make run` adds none
    assert ForecastFit.objects.filter(metric="storage_pb").count() == 1
    client.force_login(User.objects.create_superuser("demo-visitor", password="x"))
    page = client.get(f"/forecasts/fits/{fit.pk}/")
    assert page.status_code == 200 and "storage" in page.content.decode().lower()
    combined = client.get("/forecasts/combined/").content.decode()
    assert f'<option value="{fit.pk}"' in combined
