"""The month page: a month without statements says whether there is usage to compute and how (never a
table of "Total 0.0" under "Core-hours equal the usage rollups"), and the Unassigned bucket is counted
apart from the departments, its charge kept in the totals."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from tests.forecasts.chargeback_data import logs_cover_march, minerva_plan, small_site
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def march_with_unassigned(tmp_path: Path, departments: dict[str, Any]) -> None:
    """ggs and scb used the cluster in March 2024, and so did an account no mapping attributes."""
    from forecasts.chargeback.services import statements_compute

    small_site(tmp_path)
    logs_cover_march(tmp_path)  # account "nobody": the Unassigned bucket
    minerva_plan()
    statements_compute(month=date(2024, 3, 1))


def test_a_month_with_usage_but_no_statements_says_how_to_compute_them(
        client: Any, planner_user: Any, march_with_unassigned: None, tmp_path: Path) -> None:
    from tests.forecasts.chargeback_data import ingest_lines, sacct_line

    ingest_lines([sacct_line(150, user="gina", account="autism-wgs", group="ggs", start="2024-02-05T08:00:00",
                             end="2024-02-05T10:00:00")], tmp_path, name="february.txt")
    login(client, planner_user)
    text = client.get(reverse("chargeback") + "?month=2024-02").content.decode()
    assert "No statements have been computed for February 2024" in text
    assert "python manage.py chargeback --month 2024-02" in text
    assert 'name="month" value="2024-02"' in text and "Compute February 2024</button>" in text
    assert "Core-hours equal the usage rollups" not in text and 'id="statements"' not in text


def test_a_viewer_is_told_a_planner_computes_them_without_the_button(
        client: Any, genomics_viewer: Any, march_with_unassigned: None, tmp_path: Path) -> None:
    from tests.forecasts.chargeback_data import ingest_lines, sacct_line

    ingest_lines([sacct_line(150, user="gina", account="autism-wgs", group="ggs", start="2024-02-05T08:00:00",
                             end="2024-02-05T10:00:00")], tmp_path, name="february.txt")
    login(client, genomics_viewer)
    text = client.get(reverse("chargeback") + "?month=2024-02").content.decode()
    assert "No statements have been computed for February 2024" in text and "a planner computes statements" in text
    assert "Compute February 2024</button>" not in text


def test_a_month_without_usage_or_after_the_logs_end_says_so(
        client: Any, planner_user: Any, march_with_unassigned: None) -> None:
    login(client, planner_user)
    before = client.get(reverse("chargeback") + "?month=2023-06").content.decode()
    assert "No usage is loaded for June 2023: nothing to bill." in before and "Compute June 2023" not in before
    after = client.get(reverse("chargeback") + "?month=2024-05").content.decode()
    assert "May 2024 is after the logs end (31 March 2024): no usage is loaded to bill yet." in after


def test_unassigned_is_counted_apart_from_the_departments_and_its_charge_stays_in_the_total(
        client: Any, planner_user: Any, march_with_unassigned: None) -> None:
    login(client, planner_user)
    response = client.get(reverse("chargeback") + "?month=2024-03")
    text = response.content.decode()
    statements = response.context["statements"]
    assert [s.department.code for s in statements] == ["ggs", "scb", "unassigned"]  # the bucket last
    assert ('<span class="kpi-value" id="kpi-statements">2</span><span class="kpi-label">department statements'
            ' + Unassigned (jobs with no department)</span>') in text
    assert "(jobs with no department: not a department)" in text
    assert response.context["totals"]["total_usd"] == sum(s.total_usd for s in statements)
    assert statements[-1].total_usd > 0  # the bucket's charge is visible, not dropped


def test_without_unassigned_usage_only_the_departments_are_counted(
        client: Any, planner_user: Any, departments: dict[str, Any], tmp_path: Path) -> None:
    from forecasts.chargeback.services import statements_compute

    small_site(tmp_path)
    minerva_plan()
    statements_compute(month=date(2024, 3, 1))
    login(client, planner_user)
    text = client.get(reverse("chargeback") + "?month=2024-03").content.decode()
    assert 'id="kpi-statements">2</span><span class="kpi-label">department statements</span>' in text
