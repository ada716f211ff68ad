"""The replay command and API read a cluster's stored jobs and replay exactly what its log holds."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command

from planner.replay.engine import replay
from planner.replay.summary import summarise
from planner.replay.workload import Machine
from tests.helpers import login
from tests.planner.designs_data import load_catalog_and_designs
from tests.planner.replay.replay_data import CLUSTER, expected_workload, load_cluster

pytestmark = pytest.mark.django_db

REQUIRED = ("jobs_simulated", "mean_wait", "median_wait", "p95_wait", "max_wait", "mean_bounded_slowdown",
            "utilisation", "makespan", "jobs_per_second")


def run_command(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("replay", *args, stdout=out)
    return dict(json.loads(out.getvalue().strip().splitlines()[-1]))


def test_the_command_replays_exactly_the_jobs_the_log_holds(tmp_path: Path) -> None:
    log = load_cluster(tmp_path)
    got = run_command("--cluster", CLUSTER, "--processors", "96")  # the last whole year: 2023
    expected = summarise(replay(expected_workload(log), Machine.pool(96)))
    assert got["period"] == ["2023-01-01", "2024-01-01"]
    for key in REQUIRED[:-1]:
        assert got[key] == getattr(expected, key), key
    assert got["jobs_per_second"] > 0 and set(REQUIRED) <= set(got)


def test_a_shorter_period_fcfs_and_a_load_scale_are_passed_through(tmp_path: Path) -> None:
    load_cluster(tmp_path)
    easy = run_command("--cluster", CLUSTER, "--start", "2023-03", "--end", "2023-05", "--processors", "64")
    fcfs = run_command("--cluster", CLUSTER, "--start", "2023-03", "--end", "2023-05", "--processors", "64",
                       "--policy", "fcfs", "--load-scale", "2", "--json")
    assert easy["period"] == ["2023-03-01", "2023-06-01"] and easy["policy"] == "easy"
    assert fcfs["policy"] == "fcfs" and fcfs["load_scale"] == 2.0 and fcfs["jobs_simulated"] == easy["jobs_simulated"]
    assert fcfs["mean_wait"] > easy["mean_wait"]
    assert "by_queue" in fcfs and "by_department" in fcfs and "by_size" in fcfs and "by_queue" not in easy


def test_jobs_wider_than_a_small_machine_are_counted_with_their_reason(tmp_path: Path) -> None:
    load_cluster(tmp_path)
    got = run_command("--cluster", CLUSTER, "--processors", "8")
    assert got["jobs_not_simulated"] > 0
    assert got["not_simulated_reasons"] == {"wider than the machine": got["jobs_not_simulated"]}


@pytest.mark.parametrize(("args", "message"), [
    (["--cluster", "nowhere", "--processors", "8"], "cluster 'nowhere' not found"),
    (["--cluster", CLUSTER, "--start", "2019-01", "--end", "2019-12", "--processors", "8"], "has no jobs submitted"),
    (["--cluster", CLUSTER, "--start", "2023-13", "--end", "2023-12", "--processors", "8"], "expected YYYY-MM"),
    (["--cluster", CLUSTER, "--start", "2023-01", "--processors", "8"], "give both --start and --end"),
    (["--cluster", CLUSTER, "--processors", "0"], "must be > 0"),
    (["--cluster", CLUSTER, "--design", "999999", "--year", "2016"], "no such design"),
])
def test_bad_input_is_one_clear_line(tmp_path: Path, args: list[str], message: str) -> None:
    load_cluster(tmp_path)
    with pytest.raises(CommandError, match=message):
        run_command(*args)


def test_a_design_year_replays_on_that_years_nodes(tmp_path: Path) -> None:
    load_cluster(tmp_path)
    narrow = load_catalog_and_designs()["narrow"]
    y2014 = run_command("--cluster", CLUSTER, "--design", str(narrow.pk), "--year", "2014")
    y2017 = run_command("--cluster", CLUSTER, "--design", str(narrow.pk), "--year", "2017")
    assert y2014["mode"] == "nodes" and "amd-interlagos" in y2014["machine"] and "ivy-bridge" in y2014["machine"]
    assert "amd-interlagos" not in y2017["machine"] and "haswell" in y2017["machine"]  # the 2012 AMD nodes retired
    pool = run_command("--cluster", CLUSTER, "--design", str(narrow.pk), "--year", "2014", "--mode", "pool")
    assert pool["mode"] == "pool" and pool["processors"] == y2014["processors"]


def test_a_design_year_without_nodes_is_refused_with_the_year(tmp_path: Path) -> None:
    from planner.designs.services import design_create

    load_cluster(tmp_path)
    narrow = load_catalog_and_designs()["narrow"]
    data = json.loads(json.dumps(narrow.scenario))
    data["purchases"] = [p for p in data["purchases"] if not p.get("node_type")]  # only the 2012 AMD nodes
    data["name"] = "AMD only"
    design = design_create(text=yaml.safe_dump(data))
    with pytest.raises(CommandError, match=rf"design #{design.pk} \(AMD only\) has no nodes in 2018"):
        run_command("--cluster", CLUSTER, "--design", str(design.pk), "--year", "2018")
    with pytest.raises(CommandError, match="covers 2014-2019, not 2031"):
        run_command("--cluster", CLUSTER, "--design", str(design.pk), "--year", "2031")


def test_the_api_replays_for_planners(client: Any, planner_user: Any, tmp_path: Path) -> None:
    load_cluster(tmp_path)
    login(client, planner_user)
    r = client.post("/api/v1/replay/", {"cluster": CLUSTER, "processors": 96, "policy": "easy"},
                    content_type="application/json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert set(REQUIRED) <= set(body) and body["processors"] == 96 and "by_department" in body
    bad = client.post("/api/v1/replay/", {"cluster": CLUSTER}, content_type="application/json")
    assert bad.status_code == 400 and "processors" in bad.content.decode()
    empty = client.post("/api/v1/replay/", {"cluster": CLUSTER, "processors": 8, "start": "2019-01", "end": "2019-02"},
                        content_type="application/json")
    assert empty.status_code == 400 and "has no jobs submitted" in empty.json()["detail"]


def test_department_viewers_and_strangers_cannot_replay(client: Any, genomics_viewer: Any, tmp_path: Path) -> None:
    load_cluster(tmp_path)
    designs = load_catalog_and_designs()
    body = {"cluster": CLUSTER, "processors": 96}
    assert client.post("/api/v1/replay/", body, content_type="application/json").status_code in (401, 403)
    login(client, genomics_viewer)
    assert client.post("/api/v1/replay/", body, content_type="application/json").status_code == 403
    url = f"/api/v1/replay/designs/{designs['narrow'].pk}/"
    assert client.get(url).status_code == 403
    assert client.post(url, {"cluster": CLUSTER}, content_type="application/json").status_code == 403
    assert client.post(f"/replay/designs/{designs['narrow'].pk}/", {"cluster": CLUSTER}).status_code in (302, 403)
    from planner.models import BackgroundJob

    assert not BackgroundJob.objects.filter(kind="replay_design").exists()


def test_a_queue_named_first_waits_less_than_when_it_is_named_last(tmp_path: Path) -> None:
    load_cluster(tmp_path)
    base = ("--cluster", CLUSTER, "--start", "2023-03", "--end", "2023-05", "--processors", "64", "--load-scale", "8",
            "--policy", "fcfs", "--json")  # saturated, no backfilling: the order of the queue decides
    plain = run_command(*base)
    queues = sorted((s["jobs"], q) for q, s in plain["by_queue"].items() if s["jobs"] > 0)
    assert len(queues) >= 2 and plain["mean_wait"] > 3600, plain
    first, last = queues[-2][1], queues[-1][1]  # the two busiest queues
    urgent = run_command(*base, "--queue-priority", f"{first},{last}")
    demoted = run_command(*base, "--queue-priority", f"{last},{first}")
    assert urgent["queue_priority"] == [first, last]
    assert urgent["by_queue"][first]["mean_wait"] < demoted["by_queue"][first]["mean_wait"]
    assert urgent["jobs_simulated"] == demoted["jobs_simulated"] == plain["jobs_simulated"]
    with pytest.raises(CommandError, match="no queue 'nope'"):
        run_command(*base, "--queue-priority", "nope")


def test_the_replay_reads_jobs_under_djangos_debug_cursor_too(tmp_path: Path) -> None:
    """`make run` serves with DEBUG on, where Django wraps cursors (the demo replays through it)."""
    from django.db import connection

    load_cluster(tmp_path)
    connection.force_debug_cursor = True
    try:
        out = run_command("--cluster", CLUSTER, "--start", "2023-03", "--end", "2023-05", "--processors", "64")
    finally:
        connection.force_debug_cursor = False
    assert out["jobs_simulated"] > 0
