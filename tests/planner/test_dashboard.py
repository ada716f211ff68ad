"""The dashboard's headline figures: the last 12 whole months, scoped to the viewer."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from forecasts.accounting.load import ingest_run_create, ingest_run_execute
from forecasts.accounting.parsers.synth import slurm_lines
from planner.web.dashboard import headline
from tests.helpers import login

pytestmark = pytest.mark.django_db


def _logs_until_6_march_2025(tmp_path: Path, jobs: int, start: datetime) -> None:
    """Synthetic Slurm jobs from ``start`` whose log ends on 6 March 2025: March is a partial month."""
    path = tmp_path / "jobs.txt"
    path.write_text("".join(slurm_lines(jobs, start=start, end=datetime(2025, 3, 6, tzinfo=UTC))))
    ingest_run_execute(ingest_run_create(cluster_name="c", fmt="slurm", paths=[path]).pk)


def test_a_month_the_logs_end_inside_is_left_out_of_the_headline_and_said_so(
        tmp_path: Path, client: Any, planner_user: Any, departments: Any) -> None:
    _logs_until_6_march_2025(tmp_path, 3000, datetime(2024, 1, 1, tzinfo=UTC))
    top = headline(planner_user)
    assert top["partial_month"] == date(2025, 3, 1)
    assert (top["since"], top["through"]) == (date(2024, 3, 1), date(2025, 2, 1))
    html = login(client, planner_user).get("/").content.decode()
    assert "March 2025 is left out of the figures above and drawn apart in the chart: the logs end on 6 March" in html


def test_a_viewer_without_usage_in_their_department_sees_the_empty_state(
        client: Any, genomics_viewer: Any) -> None:
    html = login(client, genomics_viewer).get("/").content.decode()
    assert "No usage loaded yet" in html


def test_the_chargeback_card_quotes_the_last_whole_month_and_names_the_partial_one(
        tmp_path: Path, client: Any, planner_user: Any, departments: Any) -> None:
    from decimal import Decimal

    from forecasts.chargeback.models import Statement

    _logs_until_6_march_2025(tmp_path, 500, datetime(2025, 1, 1, tzinfo=UTC))
    dept = departments["genomics"]
    Statement.objects.create(department=dept, month=date(2025, 2, 1), fingerprint="feb", total_usd=Decimal("4000"))
    Statement.objects.create(department=dept, month=date(2025, 3, 1), fingerprint="mar", total_usd=Decimal("300"))
    html = login(client, planner_user).get("/").content.decode()
    assert "February 2025: $4,000.00 across 1 department statement (March 2025 so far: partial" in html
    assert "March 2025: $300.00" not in html


def test_the_chargeback_card_counts_the_unassigned_bucket_apart_from_the_departments(
        tmp_path: Path, client: Any, planner_user: Any, departments: Any) -> None:
    from decimal import Decimal

    from forecasts.accounting.models import Department
    from forecasts.chargeback.models import Statement

    _logs_until_6_march_2025(tmp_path, 500, datetime(2025, 1, 1, tzinfo=UTC))
    bucket, _ = Department.objects.get_or_create(code=Department.UNASSIGNED_CODE,
                                                 defaults={"name": Department.UNASSIGNED})
    Statement.objects.create(department=departments["genomics"], month=date(2025, 2, 1), fingerprint="g",
                             total_usd=Decimal("4000"))
    Statement.objects.create(department=bucket, month=date(2025, 2, 1), fingerprint="u", total_usd=Decimal("50"))
    html = login(client, planner_user).get("/").content.decode()
    assert "February 2025: $4,050.00 across 1 department statement + Unassigned<" in html


def test_the_forecast_card_says_the_figure_is_the_whole_year_s_in_the_fit_s_own_units() -> None:
    from planner.web.dashboard import forecast_status

    year = {"year": 2022, "periods_observed": 0, "periods_forecast": 12, "complete": True}
    line = forecast_status("nexus / all departments", [{**year, "median": 35.3e6, "p10": 28.2e6, "p90": 44.3e6}])
    assert line == ("nexus / all departments: 2022 (whole year): 35.3 M core-hours in total, "
                    "80% range 28.2–44.3 M")
    storage = forecast_status("all clusters / all departments",
                              [{**year, "median": 5.6, "p10": 5.2, "p90": 6.1}], metric="storage_pb")
    assert storage.endswith("2022 (whole year): 5.6 PB stored at year end, 80% range 5.2–6.1")
    assert "core-hours" not in storage and " M" not in storage


def test_the_dashboard_counts_departments_and_designs_as_their_pages_list_them(
        tmp_path: Path, client: Any, admin_user: Any, departments: Any) -> None:
    from forecasts.accounting.models import Department
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from planner.designs.models import Design
    from tests.forecasts.forecast_factories import usage_history

    Department.objects.create(code="unassigned", name=Department.UNASSIGNED)  # a bucket, not a department
    usage_history(departments, months=36)
    forecast_fit_create(SeriesSpec("core_hours"), horizon_months=24)
    first = Design.objects.create(name="wide", scenario_yaml="{}", scenario={})
    Design.objects.create(name="wide", scenario_yaml="{}", scenario={}, version=2, parent=first)
    Design.objects.create(name="narrow", scenario_yaml="{}", scenario={})
    html = login(client, admin_user).get("/").content.decode()
    assert '<span class="kpi-value">2</span><span class="kpi-label">departments,' in html
    assert 'id="unassigned-note"' in html
    assert "2 designs" in html and "3 designs" not in html  # as /designs/ lists them: the latest versions
    card = html.split("<h2>Forecasts</h2>", 1)[1].split("</a>", 1)[0]
    assert "all clusters / all departments: 2024 (whole year):" in card and "core-hours in total" in card
    assert "per month" not in card


@pytest.mark.django_db(transaction=True)  # two loads: each commits, as in production
def test_each_cluster_counts_its_own_last_twelve_whole_months(tmp_path: Path, client: Any, planner_user: Any,
                                                              departments: Any) -> None:
    """A second cluster whose logs end a year later must not push the first out of the headline, and each
    cluster's partial month is left out of its own figures (the dashboard named the latest cluster's only)."""
    _logs_until_6_march_2025(tmp_path, 2000, datetime(2023, 1, 1, tzinfo=UTC))
    late = tmp_path / "late.txt"
    late.write_text("".join(slurm_lines(300, start=datetime(2025, 6, 1, tzinfo=UTC),
                                        end=datetime(2026, 5, 10, tzinfo=UTC))))
    ingest_run_execute(ingest_run_create(cluster_name="late", fmt="slurm", paths=[late]).pk)
    top = headline(planner_user)
    assert [(w["cluster"], w["since"], w["through"]) for w in top["windows"]] == [
        ("c", date(2024, 3, 1), date(2025, 2, 1)), ("late", date(2025, 5, 1), date(2026, 4, 1))]
    assert [p[0] for p in top["partials"]] == [date(2025, 3, 1), date(2026, 5, 1)]
    from forecasts.accounting.models import UsageMonthly

    expected = sum(r.core_hours for r in UsageMonthly.objects.filter(cluster__name="c", month__gte=date(2024, 3, 1),
                                                                      month__lt=date(2025, 3, 1)))
    expected += sum(r.core_hours for r in UsageMonthly.objects.filter(cluster__name="late", month__lt=date(2026, 5, 1)))
    assert top["core_hours"] == pytest.approx(expected)
    html = login(client, planner_user).get("/").content.decode()
    assert "each cluster's last 12 whole months" in html
    assert "March 2025 (logs ending 5 March), May 2026 (logs ending 9 May) are left out" in html


@pytest.mark.django_db(transaction=True)
def test_each_cluster_s_partial_month_is_partial_in_chargeback_too(tmp_path: Path, departments: Any) -> None:
    """Chargeback read only the latest cluster's partial month: March 2025, where the first cluster's logs end
    on the 5th, was billed as a whole month once a second cluster's logs ran into 2026."""
    from decimal import Decimal

    from forecasts.accounting.selectors import logs_partial_months
    from forecasts.chargeback.models import Statement, statements_logs_end

    _logs_until_6_march_2025(tmp_path, 500, datetime(2024, 6, 1, tzinfo=UTC))
    late = tmp_path / "late.txt"
    late.write_text("".join(slurm_lines(100, start=datetime(2025, 6, 1, tzinfo=UTC),
                                        end=datetime(2026, 5, 10, tzinfo=UTC))))
    ingest_run_execute(ingest_run_create(cluster_name="late", fmt="slurm", paths=[late]).pk)
    assert list(logs_partial_months()) == [date(2025, 3, 1), date(2026, 5, 1)]
    dept = departments["genomics"]
    march, feb = (Statement.objects.create(department=dept, month=m, fingerprint=str(m), total_usd=Decimal("1"))
                  for m in (date(2025, 3, 1), date(2025, 2, 1)))
    march_, feb_ = statements_logs_end([march, feb])
    assert march_.is_provisional and march_.logs_end is not None and march_.logs_end.day == 5
    assert feb_.logs_end is None
