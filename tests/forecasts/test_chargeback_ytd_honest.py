"""The year-to-date page says which months its total covers, and refuses a year or month it cannot read."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from tests.forecasts.chargeback_data import ingest_lines, map_accounts, minerva_plan, sacct_line
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def february_and_march(tmp_path: Path, departments: dict[str, Any]) -> None:
    """ggs used the cluster in February and March 2024; only March's statement is computed."""
    from forecasts.chargeback.services import statements_compute

    ingest_lines([sacct_line(201, user="gina", account="autism-wgs", group="ggs",
                             start="2024-02-05T08:00:00", end="2024-02-05T10:00:00"),
                  sacct_line(202, user="gina", account="autism-wgs", group="ggs")], tmp_path)
    map_accounts([("autism-wgs", "ggs", "autism-wgs")])
    minerva_plan()
    statements_compute(month=date(2024, 3, 1))


def test_a_year_with_a_month_never_computed_names_it_and_how_to_compute_it(
        client: Any, planner_user: Any, february_and_march: None) -> None:
    login(client, planner_user)
    response = client.get(reverse("chargeback-ytd", args=["ggs"]) + "?year=2024")
    assert response.status_code == 200
    text = response.content.decode()
    coverage = response.context["coverage"]
    assert coverage["included"] == [date(2024, 3, 1)]
    assert coverage["not_computed"] == [date(2024, 2, 1)]
    # the logs end on 1 March 2024: April to December are after them, not months without usage
    assert coverage["no_usage"] == [date(2024, 1, 1)] and coverage["after_logs"][-1] == date(2024, 12, 1)
    assert "1 month of 3, to the logs' end on 1 March 2024" in text
    assert "covers 1 month with a statement:\n    March." in text
    assert "Not included: February 2024" in text
    assert "python manage.py chargeback --month 2024-02 --department ggs" in text
    assert 'name="month" value="2024-02"' in text  # a planner can compute it from the page


def test_a_department_viewer_is_told_too_without_the_compute_button(
        client: Any, genomics_viewer: Any, february_and_march: None) -> None:
    login(client, genomics_viewer)
    text = client.get(reverse("chargeback-ytd", args=["ggs"]) + "?year=2024").content.decode()
    assert "Not included: February 2024" in text and "a planner computes statements" in text
    assert 'name="month" value="2024-02"' not in text


def test_a_complete_year_names_no_missing_month(client: Any, planner_user: Any, february_and_march: None) -> None:
    from forecasts.chargeback.services import statements_compute

    statements_compute(month=date(2024, 2, 1))
    login(client, planner_user)
    text = client.get(reverse("chargeback-ytd", args=["ggs"]) + "?year=2024").content.decode()
    assert "Not included" not in text and "February, March" in text


@pytest.mark.parametrize("year", ["99999", "0", "1969", "20x4", "-1", "2024.5"])
def test_a_year_out_of_range_or_not_a_number_is_a_400_that_says_so(
        client: Any, planner_user: Any, february_and_march: None, year: str) -> None:
    login(client, planner_user)
    for name in ("chargeback-ytd", "chargeback-ytd-csv"):
        response = client.get(reverse(name, args=["ggs"]), {"year": year})
        assert response.status_code == 400, (name, year)
        assert "year parameter" in response.content.decode()
    chart = client.get(reverse("chargeback-ytd-json", args=["ggs"]), {"year": year})
    assert chart.status_code == 400 and "year parameter" in chart.json()["detail"]


@pytest.mark.parametrize("month", ["2024-13", "99999-01", "March", "0000-01"])
def test_a_month_that_is_not_one_is_a_400_on_the_overview(
        client: Any, planner_user: Any, february_and_march: None, month: str) -> None:
    login(client, planner_user)
    response = client.get(reverse("chargeback"), {"month": month})
    assert response.status_code == 400
    assert "month parameter" in response.content.decode() and "YYYY-MM" in response.content.decode()
