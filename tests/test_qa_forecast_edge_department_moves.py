"""A department that moves to another cluster: its series on the old cluster ends with zeros, not with its old level.

Found on a QA walk (sacct logs written for it): department cardio ran ~150 k core-hours a month on cluster qamovea
until May 2025 and on qamoveb from June; qamovea's logs go on to 31 December 2025 (department ggs still runs there).
The forecast of qamovea / cardio took the history to end in May 2025 (its last row), so the fit page and the API
quoted 2025 as a whole year of 1.78 M core-hours (June-December forecast at the old level) and 2026 the same again,
while the logs say cardio used nothing there since June. A month with no rows inside the logs is 0, as between
rows; the history of a usage series ends where its logs end."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from django.test import Client

from forecasts.demand.growth import add_months
from forecasts.demand.series import monthly_series, spec_from_names
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def moved(departments: dict[str, Any]) -> None:
    """ggs stays on 'old' for 24 months (2024-2025); scb leaves it after 17 months (May 2025) for 'new'."""
    from forecasts.models import Cluster, Identity, IngestRun, UsageMonthly

    old, new = Cluster.objects.create(name="old"), Cluster.objects.create(name="new")
    gina = Identity.objects.get_or_create(user="gina", group="ggs", account="")[0]
    chris = Identity.objects.get_or_create(user="chris", group="scb", account="")[0]
    rows = []
    for i in range(24):
        month = add_months(date(2024, 1, 1), i)
        rows.append(UsageMonthly(cluster=old, month=month, identity=gina, department=departments["genomics"],
                                 jobs=10, core_hours=250_000 + 1_000 * (i % 3)))
        rows.append(UsageMonthly(cluster=old if i < 17 else new, month=month, identity=chris,
                                 department=departments["chemistry"], jobs=10, core_hours=150_000 + 2_000 * (i % 4)))
    UsageMonthly.objects.bulk_create(rows)
    for cluster in (old, new):
        IngestRun.objects.create(cluster=cluster, format="slurm", status=IngestRun.Status.COMPLETED,
                                 first_start=datetime(2024, 1, 1, tzinfo=UTC),
                                 last_end=datetime(2025, 12, 31, 23, 30, tzinfo=UTC))


def test_the_departments_series_on_the_cluster_it_left_runs_to_the_logs_end_with_zeros(moved: None) -> None:
    s = monthly_series(spec_from_names(metric="core_hours", cluster="old", department="scb"))
    assert s.through == date(2025, 12, 1) and len(s.values) == 24
    assert s.values[17:] == [0.0] * 7 and min(s.values[:17]) >= 150_000


def test_its_forecast_page_and_api_do_not_carry_the_old_level_on(client: Client, moved: None,
                                                                  planner_user: Any) -> None:
    login(client, planner_user)
    made = client.post("/api/v1/forecasts/", {"metric": "core_hours", "cluster": "old", "department": "scb",
                                              "horizon_months": 12}, content_type="application/json")
    assert made.status_code == 201, made.content
    summary = made.json()["summary"]
    assert summary["history_through"] == "2025-12-01" and summary["periods_used"] == 24
    year_2025 = next(y for y in summary["yearly"] if y["year"] == 2025)
    assert year_2025["periods_forecast"] == 0  # June-December are observed (0), not forecast at the old level
    assert year_2025["median"] == pytest.approx(sum(150_000 + 2_000 * (i % 4) for i in range(12, 17)))
    page = client.get(f"/forecasts/fits/{summary['fit']}/").content.decode()
    assert "2024-01 – 2025-12" in page
