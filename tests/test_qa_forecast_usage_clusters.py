"""The Usage page over all clusters keeps every cluster's partial month apart, not only the latest one's.

Found on a QA walk: nexus's logs end on 6 January 2020; a second cluster's tiny log was loaded, ending on 3 May 2024.
With "All clusters" the page drew May 2024 apart (the latest logs' end) but January 2020, six days of nexus's jobs,
as a whole month in the stacked area: a cliff from 2.1 M to 80 k core-hours a month that reads as a collapse in
use. Nor did the area have the months between the two clusters' logs (no jobs loaded): Plotly joined December
2019 to March 2024 with a slope of invented values."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import pytest
from django.test import Client

from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

pytestmark = pytest.mark.django_db


def _figure(html: str) -> dict[str, Any]:
    start = html.index('id="usage-figure"')
    return json.loads(html[html.index(">", start) + 1: html.index("</script>", start)])  # type: ignore[no-any-return]


@pytest.fixture
def two_clusters(departments: dict[str, Any]) -> None:
    from forecasts.accounting.models import IngestRun

    old = usage_history(departments, months=13, cluster="nexus", start=date(2019, 1, 1))  # .. Jan 2020
    IngestRun.objects.create(cluster=old["cluster"], format="slurm", status=IngestRun.Status.COMPLETED,
                             last_end=datetime(2020, 1, 6, 12, tzinfo=UTC))
    new = usage_history(departments, months=3, cluster="tiny", start=date(2020, 4, 1))  # Apr .. Jun 2020
    IngestRun.objects.create(cluster=new["cluster"], format="slurm", status=IngestRun.Status.COMPLETED,
                             last_end=datetime(2020, 6, 3, 10, tzinfo=UTC))


def test_every_clusters_partial_month_is_drawn_apart_with_all_clusters(
        client: Client, two_clusters: None, planner_user: Any) -> None:
    html = login(client, planner_user).get("/usage/").content.decode()
    figure = _figure(html)
    areas = [t for t in figure["data"] if t.get("stackgroup")]
    bars = [t for t in figure["data"] if t.get("type") == "bar"]
    area_months = set(areas[0]["x"])
    assert "2020-01" not in area_months and "2020-06" not in area_months
    assert {x for t in bars for x in t["x"]} == {"2020-01", "2020-06"}
    notes = " ".join(a["text"] for a in figure["layout"]["annotations"])
    assert "Jan 2020" in notes and "Jun 2020" in notes
    assert "January 2020" in html and "June 2020" in html  # the caption names both
    # bars in two months far apart made Plotly pad the date axis by half their distance, past the data
    assert figure["layout"]["xaxis"]["range"][0] <= "2019-01-01" and figure["layout"]["xaxis"]["range"][1] < "2020-08"


def test_months_without_jobs_between_two_clusters_logs_are_zero_not_a_slope(
        client: Client, two_clusters: None, planner_user: Any) -> None:
    figure = _figure(login(client, planner_user).get("/usage/").content.decode())
    for trace in (t for t in figure["data"] if t.get("stackgroup")):
        months = dict(zip(trace["x"], trace["y"], strict=True))
        assert months.get("2020-02") == 0 and months.get("2020-03") == 0, trace["name"]


def test_one_clusters_view_keeps_its_own_partial_month_only(
        client: Client, two_clusters: None, planner_user: Any) -> None:
    figure = _figure(login(client, planner_user).get("/usage/?cluster=nexus").content.decode())
    bars = [t for t in figure["data"] if t.get("type") == "bar"]
    assert {x for t in bars for x in t["x"]} in ({"2020-01"}, {"Jan 2020"})  # 12 whole months: a category axis
