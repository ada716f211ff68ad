"""Workload rollups and report on real PostgreSQL: hand-computed fixture, rebuild, phillips, viewer limits."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from forecasts.models import WorkloadShapeMonthly
from forecasts.workload.selectors import workload_report
from forecasts.workload.services import rebuild_cluster
from tests.forecasts.usage_data import load_usage
from tests.helpers import login
from tests.shared import SHARED_DATA, requires_shared

pytestmark = pytest.mark.django_db


@pytest.fixture
def usage(tmp_path: Path, departments: dict[str, Any]) -> Any:
    return load_usage(tmp_path, departments)


def test_table1_and_shape_match_hand_computed_values(usage: Any) -> None:
    # jobs: 10 cores x 2 h, 8 x 1 h, 64 x 3 h, 4 x 5 h (all one node, none single-core)
    r = workload_report(cluster="minerva")
    t = r["table1"]
    assert t["jobs"] == 4
    assert t["core_hours"] == pytest.approx(20 + 8 + 192 + 20)
    assert t["core_hours_per_job"]["mean"] == pytest.approx(60.0)
    assert t["core_hours_per_job"]["max"] == pytest.approx(192.0)
    assert t["core_hours_per_job"]["min"] == pytest.approx(8.0)
    assert t["run_time_hours"]["mean"] == pytest.approx(11 / 4)
    assert t["run_time_hours"]["max"] == pytest.approx(5.0)
    assert 1.0 <= t["run_time_hours"]["median"] <= 5.0  # interpolated inside the 2-4 h bucket
    assert t["users"] == 3 and t["departments"] == 2  # ggs and scb; Unassigned is a bucket, not a department
    s = r["shape"]
    assert s["single_node"]["jobs_share"] == 1.0
    assert s["single_core"]["jobs"] == 0
    assert s["under_10_minutes"]["jobs"] == 0
    assert s["under_24_hours"]["jobs_share"] == 1.0
    sizes = {row["label"]: row["jobs"] for row in r["job_size"]}
    assert sizes["3-4"] == 1 and sizes["5-8"] == 1 and sizes["9-16"] == 1 and sizes["33-64"] == 1
    # requested 2 days each, ran under a day
    assert r["over_request"]["ran_under_day_requested_over_day"]["jobs"] == 4


def test_rollups_follow_a_mapping_change_and_rebuild_gives_the_same_rows(usage: Any) -> None:
    genomics = workload_report(cluster="minerva", department="ggs")["table1"]
    assert genomics["jobs"] == 2 and genomics["core_hours"] == pytest.approx(28.0)
    before = sorted(WorkloadShapeMonthly.objects.values_list("month", "department_id", "dim", "bucket", "flag",
                                                             "jobs", "core_hours"))
    rebuild_cluster(usage.cluster)
    after = sorted(WorkloadShapeMonthly.objects.values_list("month", "department_id", "dim", "bucket", "flag",
                                                            "jobs", "core_hours"))
    assert before == after


def test_the_report_never_reads_the_jobs_table(usage: Any, django_assert_max_num_queries: Any) -> None:
    workload_report(cluster="minerva")  # settle attribution first
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        workload_report(cluster="minerva")
    assert not [q for q in ctx.captured_queries if "forecasts_job " in q["sql"] or "forecasts_job\n" in q["sql"]]


def test_workload_report_command_prints_json(usage: Any, capsys: Any) -> None:
    call_command("workload_report", "--cluster", "minerva", "--json")
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["schema"] == "workload-report/1" and out["table1"]["jobs"] == 4


@requires_shared
def test_phillips_reproduces_xdmod(capsys: Any) -> None:
    call_command("ingest_accounting", "--format", "slurm", "--cluster", "phillips",
                 str(SHARED_DATA / "slurm" / "xdmod_referencedata_phillips.log"))
    capsys.readouterr()
    call_command("workload_report", "--cluster", "phillips", "--json")
    t = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["table1"]
    assert t["jobs"] == 4046
    assert t["core_hours"] == pytest.approx(11767.9883, abs=1e-3)
    assert t["wall_hours"] == pytest.approx(438.8203, abs=1e-3)
    assert t["wait_hours"] == pytest.approx(18829.9292, abs=1e-3)
    assert t["node_hours"] == pytest.approx(1344.8686, abs=1e-3)
    assert t["users"] == 4


def _csv(resp: Any) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(resp.content.decode())))


def test_department_viewers_see_only_their_departments(client: Any, usage: Any, genomics_viewer: Any,
                                                       chemistry_viewer: Any) -> None:
    login(client, genomics_viewer)
    page = client.get(reverse("workload"))
    assert page.status_code == 200
    assert page.context["t"]["jobs"] == 2 and page.context["t"]["core_hours"] == pytest.approx(28.0)
    data = client.get(reverse("workload-json")).json()
    assert data["table1"]["core_hours"] == pytest.approx(28.0)
    assert {g["department"] for g in data["growth"]} == {"ggs"}
    growth = _csv(client.get(reverse("workload-csv", args=["growth"])))
    assert {r["department"] for r in growth} == {"ggs"}
    assert client.get(reverse("workload-department", args=["scb"])).status_code == 404
    client.logout()
    login(client, chemistry_viewer)
    data = client.get(reverse("workload-json")).json()
    assert data["table1"]["jobs"] == 1 and data["table1"]["core_hours"] == pytest.approx(192.0)
    sizes = _csv(client.get(reverse("workload-csv", args=["size"])))
    assert sum(int(r["jobs"]) for r in sizes) == 1


def test_planner_sees_everything_and_the_drill_down(client: Any, usage: Any, planner_user: Any) -> None:
    login(client, planner_user)
    assert client.get(reverse("workload")).context["t"]["jobs"] == 4
    drill = client.get(reverse("workload-department", args=["ggs"]))
    assert drill.status_code == 200 and drill.context["t"]["jobs"] == 2
    text = drill.content.decode()
    assert "Table 1" in text and 'data-figure="fig-size"' in text


def test_the_month_the_logs_end_inside_has_capacity_to_the_logs_end_and_is_drawn_apart(usage: Any) -> None:
    from datetime import date

    from forecasts.models import ClusterCapacity
    from forecasts.workload.charts import figures

    ClusterCapacity.objects.create(cluster=usage.cluster, effective_from=date(2024, 1, 1), cores=100, nodes=1)
    r = workload_report(cluster="minerva")
    # the last job ends on 20 February 13:00: February is partial, its capacity 19 days and 13 hours of 100 cores
    assert r["partial_month"]["month"] == "2024-02" and r["partial_month"]["logs_end"].startswith("2024-02-20T13:00")
    jan, feb = r["utilisation"]["monthly"]
    assert (jan["partial"], jan["capacity_core_hours"]) == (False, 31 * 24 * 100)
    assert feb["partial"] and feb["capacity_core_hours"] == pytest.approx((19 * 24 + 13) * 100)
    assert feb["utilisation"] == pytest.approx(28 / ((19 * 24 + 13) * 100), abs=1e-4)  # reported to 4 places
    assert r["utilisation"]["capacity_core_hours"] == pytest.approx(31 * 24 * 100 + (19 * 24 + 13) * 100)
    figs = figures(r)
    line, point = figs["utilisation"]["data"]
    assert line["x"] == ["2024-01"] and point["x"] == ["2024-02"] and "partial month" in point["name"]
    stacked = [t for t in figs["growth"]["data"] if t["type"] == "scatter"]
    bars = [t for t in figs["growth"]["data"] if t["type"] == "bar"]
    assert all("2024-02" not in t["x"] for t in stacked) and {b["x"][0] for b in bars} == {"2024-02"}
    assert sum(b["y"][0] for b in bars) == pytest.approx(28.0)


def test_a_cluster_counts_its_capacity_only_over_the_months_its_logs_cover(usage: Any) -> None:
    """All clusters together: a cluster retired years ago (its logs 2020-01 to 2020-06, 1,000 cores recorded from
    2020, no end) was counted as idle capacity in minerva's 2024 months, so utilisation read a tenth of itself."""
    from datetime import UTC, date, datetime

    from forecasts.models import Cluster, ClusterCapacity, IngestRun

    ClusterCapacity.objects.create(cluster=usage.cluster, effective_from=date(2024, 1, 1), cores=100, nodes=1)
    old = Cluster.objects.create(name="retired")
    ClusterCapacity.objects.create(cluster=old, effective_from=date(2020, 1, 1), cores=1000, nodes=10)
    IngestRun.objects.create(cluster=old, format="slurm", status=IngestRun.Status.COMPLETED,
                             first_start=datetime(2020, 1, 1, tzinfo=UTC),
                             last_end=datetime(2020, 6, 30, 23, tzinfo=UTC))
    jan = workload_report()["utilisation"]["monthly"][0]
    assert jan["month"] == "2024-01" and jan["capacity_core_hours"] == 31 * 24 * 100
