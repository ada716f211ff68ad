"""The usage page: monthly core-hours by department, filters, exports, and who may see what."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from tests.forecasts.usage_data import (
    CHEMISTRY_CORE_HOURS,
    GENOMICS_CORE_HOURS,
    UNASSIGNED_CORE_HOURS,
    figure_totals,
    load_usage,
)
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def usage(tmp_path: Path, departments: dict[str, Any]) -> Any:
    return load_usage(tmp_path, departments)


def _csv(response: Any) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_with_nothing_loaded_the_page_says_how_to_load_logs(client: Any, planner_user: Any) -> None:
    login(client, planner_user)
    text = client.get(reverse("usage")).content.decode()
    assert "No accounting logs loaded yet" in text
    assert "ingest_accounting" in text and reverse("ingest-new") in text


def test_a_planner_sees_every_department_stacked_by_month(client: Any, planner_user: Any, usage: Any) -> None:
    login(client, planner_user)
    response = client.get(reverse("usage"))
    assert response.status_code == 200
    figure = response.context["figure"]
    assert figure_totals(figure) == {
        "Structural and Chemical Biology": CHEMISTRY_CORE_HOURS,
        "Genetics and Genomic Sciences": GENOMICS_CORE_HOURS,
        "Unassigned": UNASSIGNED_CORE_HOURS,
    }
    # the logs end on 20 February: January is stacked, February (usage so far) drawn apart as faded bars
    areas = [t for t in figure["data"] if t["type"] == "scatter"]
    bars = [t for t in figure["data"] if t["type"] == "bar"]
    assert areas and all(t["stackgroup"] == "usage" and t["x"] == ["Jan 2024"] for t in areas)
    assert bars and all(t["x"] == ["Feb 2024"] and "partial month" in t["hovertemplate"] for t in bars)
    assert "partial: Feb 2024 so far (logs end 20 Feb)" in figure["layout"]["annotations"][0]["text"]
    assert figure["layout"]["annotations"][0]["xanchor"] == "right"  # ends at the month: the axis is not stretched
    assert 'id="partial-month"' in response.content.decode()
    kpis = response.context["kpis"]
    assert kpis["jobs"] == 4 and kpis["core_hours"] == 240 and kpis["users"] == 3 and kpis["departments"] == 2
    assert 'data-figure="usage-figure"' in response.content.decode()


def test_filters_narrow_the_chart_the_json_and_the_csv_alike(client: Any, planner_user: Any, usage: Any) -> None:
    login(client, planner_user)
    query = {"queue": "express", "start": "2024-02", "end": "2024-02"}
    page = client.get(reverse("usage"), query)
    assert figure_totals(page.context["figure"]) == {"Genetics and Genomic Sciences": 8.0, "Unassigned": 20.0}
    figure = json.loads(client.get(reverse("usage-chart-json"), query).content)
    assert figure_totals(figure) == figure_totals(page.context["figure"])
    rows = _csv(client.get(reverse("usage-csv"), query))
    assert [(r["month"], r["department_code"], float(r["core_hours"])) for r in rows] == [
        ("2024-02", "ggs", 8.0), ("2024-02", "unassigned", 20.0)]
    assert figure_totals(client.get(reverse("usage"), {"cluster": "elsewhere"}).context["figure"]) == {}


@pytest.mark.parametrize("viewer, own, other", [
    ("genomics_viewer", "Genetics and Genomic Sciences", "Structural and Chemical Biology"),
    ("chemistry_viewer", "Structural and Chemical Biology", "Genetics and Genomic Sciences"),
])
def test_department_viewers_see_only_their_own_usage_on_page_json_and_csv(
        request: pytest.FixtureRequest, client: Any, usage: Any, viewer: str, own: str, other: str) -> None:
    login(client, request.getfixturevalue(viewer))
    page = client.get(reverse("usage"))
    assert list(figure_totals(page.context["figure"])) == [own]
    text = page.content.decode()
    assert other not in text and "Unassigned" not in text
    assert page.context["kpis"]["users"] == 1
    figure = json.loads(client.get(reverse("usage-chart-json")).content)
    assert {t["name"] for t in figure["data"]} == {own}
    # asking for the other department by name gives nothing, not their data
    other_code = "scb" if own.startswith("Genetics") else "ggs"
    assert json.loads(client.get(reverse("usage-chart-json"), {"department": other_code}).content)["data"] == []
    assert _csv(client.get(reverse("usage-csv"), {"department": other_code})) == []
    assert {r["department"] for r in _csv(client.get(reverse("usage-csv")))} == {own}


def test_the_grant_reports_usage_counts_departments_as_the_usage_page_does(usage: Any) -> None:
    from datetime import date

    from planner.reports.gather import _usage

    facts = _usage(None, date(2024, 1, 1), date(2024, 2, 1), None)
    assert facts["departments"] == 2  # genomics and chemistry; the Unassigned bucket is no department
