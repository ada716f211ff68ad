"""Monthly series built from the rollups match totals computed by hand."""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

import pytest

from forecasts.demand.series import NO_STORAGE, SeriesError, monthly_series, spec_from_names
from tests.forecasts.forecast_factories import usage_history

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(departments: dict[str, Any]) -> dict[str, Any]:
    return usage_history(departments, months=24)


def test_core_hours_of_the_whole_cluster_add_every_department(history: dict[str, Any]) -> None:
    s = monthly_series(spec_from_names(metric="core_hours", cluster="minerva"))
    assert s.start == date(2020, 1, 1) and len(s.values) == 24 and s.units == "core-hours/month"
    for i in (0, 7, 23):
        g = 100_000 * math.exp(0.03 * i) * (1 + 0.02 * math.sin(i))
        ch = 50_000 + 1_000 * i + 500 * math.cos(i)
        assert s.values[i] == pytest.approx(g + ch)


def test_a_department_series_holds_only_that_department(history: dict[str, Any]) -> None:
    s = monthly_series(spec_from_names(metric="core_hours", department="scb"))
    assert s.values[3] == pytest.approx(50_000 + 3_000 + 500 * math.cos(3))
    rest = monthly_series(spec_from_names(metric="core_hours", exclude_department="ggs"))
    assert rest.values == pytest.approx(s.values)


def test_jobs_are_summed_and_active_users_counted_once_per_name(history: dict[str, Any]) -> None:
    jobs = monthly_series(spec_from_names(metric="jobs", cluster="minerva"))
    assert jobs.values[5] == (100 + 5) + 10 + 50 + (20 + 5)
    users = monthly_series(spec_from_names(metric="active_users"))
    assert set(users.values) == {3.0}  # gina (two accounts), gus, chris
    ggs_users = monthly_series(spec_from_names(metric="active_users", department="ggs"))
    assert set(ggs_users.values) == {2.0}


def test_months_without_jobs_are_zeros_not_gaps(history: dict[str, Any]) -> None:
    from forecasts.models import UsageMonthly

    UsageMonthly.objects.filter(month=date(2020, 6, 1)).delete()
    s = monthly_series(spec_from_names(metric="core_hours"))
    assert len(s.values) == 24 and s.values[5] == 0.0


def test_history_can_be_cut_at_a_month(history: dict[str, Any]) -> None:
    s = monthly_series(spec_from_names(metric="core_hours"), through=date(2021, 3, 1))
    assert len(s.values) == 15 and s.through == date(2021, 3, 1)


def test_storage_without_scans_says_what_to_load(history: dict[str, Any]) -> None:
    with pytest.raises(SeriesError, match="no storage scans loaded"):
        monthly_series(spec_from_names(metric="storage_pb"))
    assert "ingest_storage_scan" in NO_STORAGE


def test_unknown_names_are_explained(history: dict[str, Any]) -> None:
    with pytest.raises(SeriesError, match="unknown cluster 'nope'.*minerva"):
        spec_from_names(metric="core_hours", cluster="nope")
    with pytest.raises(SeriesError, match="metric must be one of"):
        spec_from_names(metric="gpu")


def test_storage_pb_sums_file_systems_carrying_the_last_scan_forward(history: dict[str, Any]) -> None:
    from forecasts.storage.models import FileSystem, StorageSnapshot

    a = FileSystem.objects.create(name="gpfs-a")
    b = FileSystem.objects.create(name="gpfs-b")
    for fs, day, tb in ((a, "2021-01-05", 100), (a, "2021-01-25", 120), (b, "2021-02-10", 50), (a, "2021-04-02", 200),
                        (b, "2021-04-20", 60)):
        StorageSnapshot.objects.create(filesystem=fs, taken_on=day, format="tsv", status="completed",
                                       bytes_total=tb * 10**12, scan_name=f"{fs.name}-{day}")
    s = monthly_series(spec_from_names(metric="storage_pb"))
    # from February, when both file systems had been scanned: January's sum lacked gpfs-b
    assert s.start == date(2021, 2, 1) and s.units == "PB stored"
    assert s.values == pytest.approx([0.170, 0.170, 0.260])
    assert s.storage_left_out == {"from": "2021-01-01", "start": "2021-02-01",
                                  "filesystems": [{"name": "gpfs-b", "first_scan_month": "2021-02-01"}]}


@pytest.mark.parametrize(("metric", "units", "yearly"), [
    ("core_hours", "core-hours/month", "core-hours/year"),  # a year's months summed
    ("jobs", "jobs/month", "jobs/year"),
    ("storage_pb", "PB stored", "PB stored"),  # a stock: the year's last month
    ("active_users", "active users/month", "active users"),  # a mean of the months
    ("external", "USD/TB", "USD/TB"),
])
def test_a_fits_yearly_figures_carry_the_units_of_a_year(metric: str, units: str, yearly: str) -> None:
    from forecasts.demand.models import ForecastFit
    from planner.reports.gather import _forecast

    fit = ForecastFit(metric=metric, units=units)
    assert fit.yearly_units == yearly
    fit.pk, fit.family, fit.selection, fit.reason, fit.values, fit.yearly = 1, "combined", "combination", "", [], []
    fit.start = fit.through = fit.created_at = datetime(2020, 1, 1)
    report = _forecast([], fit, None)
    assert report is not None and report["year_units"] == yearly.replace("/year", " per year")


def test_a_storage_fit_is_named_for_every_file_system_whichever_cluster_was_asked(history: dict[str, Any]) -> None:
    """Scans belong to file systems, not clusters: a storage forecast asked for a cluster holds every file
    system, so it is not labelled 'tiny / PB stored' (it read as that cluster's storage)."""
    from forecasts.accounting.models import Cluster
    from forecasts.demand.models import ForecastFit

    fit = ForecastFit(metric="storage_pb", cluster=Cluster.objects.create(name="tiny"))
    assert fit.series_name == fit.series_label == "all file systems / PB stored"
    assert ForecastFit(metric="core_hours").series_name == "all clusters / all departments / core-hours per month"
