"""A cluster whose logs stop (decommissioned, or its logs not loaded since): its forecast must say so.

Found on a QA walk (sacct logs written for it): cluster qadecom ran ~200 k core-hours a month until its logs end on
21 February 2025; the other clusters' logs run to 31 December 2025. Its fit page quoted "2025 median 2.47 M
core-hours/year" and 2026 the same, forecast from February 2025 as if it still ran, and nothing on the page, in the
API or in the command said that its logs stopped ten months before the others'."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from django.test import Client

from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def stopped(departments: dict[str, Any]) -> None:
    from forecasts.models import IngestRun

    old = usage_history(departments, months=26, cluster="retired", start=date(2023, 1, 1))  # .. Feb 2025
    IngestRun.objects.create(cluster=old["cluster"], format="slurm", status=IngestRun.Status.COMPLETED,
                             last_end=datetime(2025, 2, 28, 23, 0, tzinfo=UTC))
    new = usage_history(departments, months=36, cluster="running", start=date(2023, 1, 1))  # .. Dec 2025
    IngestRun.objects.create(cluster=new["cluster"], format="slurm", status=IngestRun.Status.COMPLETED,
                             last_end=datetime(2025, 12, 31, 23, 0, tzinfo=UTC))


def _fit(client: Client, cluster: str) -> dict[str, Any]:
    made = client.post("/api/v1/forecasts/", {"metric": "core_hours", "cluster": cluster, "horizon_months": 12},
                       content_type="application/json")
    assert made.status_code == 201, made.content
    return made.json()["summary"]  # type: ignore[no-any-return]


def test_a_cluster_whose_logs_stopped_months_before_the_others_says_so(client: Client, stopped: None,
                                                                       planner_user: Any) -> None:
    login(client, planner_user)
    summary = _fit(client, "retired")
    caveat = summary["logs_caveat"]
    assert caveat and "retired's logs end 2025-02-28, 10 months before the latest logs loaded (2025-12-31" in caveat
    page = client.get(f"/forecasts/fits/{summary['fit']}/").content.decode()
    assert 'id="logs-caveat"' in page and "was retired, this is not demand to plan for" in page
    # and where a design is started from it (a horizon with a whole future year): the step that commits money
    longer = client.post("/api/v1/forecasts/", {"metric": "core_hours", "cluster": "retired", "horizon_months": 24},
                         content_type="application/json").json()["summary"]
    start = client.get(f"/designs/from-forecast/{longer['fit']}/").content.decode()
    assert 'id="logs-caveat"' in start and "was retired, this is not demand to plan for" in start


def test_a_cluster_whose_logs_are_current_and_every_cluster_together_get_no_such_note(
        client: Client, stopped: None, planner_user: Any) -> None:
    login(client, planner_user)
    assert _fit(client, "running")["logs_caveat"] is None
    every = client.post("/api/v1/forecasts/", {"metric": "core_hours", "horizon_months": 12},
                        content_type="application/json").json()["summary"]
    assert every["logs_caveat"] is None


def _stored_fit(cluster: Any) -> Any:
    from forecasts.demand.models import ForecastFit

    return ForecastFit.objects.create(metric="core_hours", cluster=cluster, units="core-hours/month",
                                      start=date(2023, 1, 1), through=date(2025, 1, 1), values=[1.0] * 25,
                                      family="linear", selection="override", reason="test", result={}, yearly=[])


def test_the_api_list_of_fits_reads_the_logs_ends_once_not_twice_a_fit(client: Client, stopped: None,
                                                                         planner_user: Any) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from forecasts.models import Cluster

    retired, running = Cluster.objects.get(name="retired"), Cluster.objects.get(name="running")
    login(client, planner_user)
    _stored_fit(retired)
    with CaptureQueriesContext(connection) as one:
        assert client.get("/api/v1/forecasts/").status_code == 200
    for _ in range(20):
        _stored_fit(retired), _stored_fit(running), _stored_fit(None)
    with CaptureQueriesContext(connection) as many:
        listed = client.get("/api/v1/forecasts/").json()
    # Before: two queries a fit (its cluster's logs' end, every cluster's), 2 + 2 x 61 here.
    assert len(many) == len(one) <= 8, [q["sql"] for q in many.captured_queries]
    rows = [r["summary"] for r in listed["results"]] if isinstance(listed, dict) else [r["summary"] for r in listed]
    caveats = {r["cluster"]: r["logs_caveat"] for r in rows}
    assert len(rows) > 20 and set(caveats) == {"retired", "running", None}
    assert caveats["retired"] and caveats["retired"].startswith("retired's logs end 2025-02-28, 10 months before")
    assert caveats["running"] is None and caveats[None] is None
