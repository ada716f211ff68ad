"""A real Celery worker replays a design's years, started from the design page, and lands on the section."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from planner.models import BackgroundJob
from tests.helpers import login, wait_for_job
from tests.planner.designs_data import load_catalog_and_designs
from tests.planner.replay.replay_data import CLUSTER, load_cluster


def test_a_design_replay_from_its_page_runs_on_a_worker_and_lands_on_queue_waits(
        client: Any, planner_user: Any, live_worker: Any, tmp_path: Path) -> None:
    load_cluster(tmp_path)
    narrow = load_catalog_and_designs()["narrow"]
    login(client, planner_user)
    response = client.post(f"/replay/designs/{narrow.pk}/", {"cluster": CLUSTER})
    job_row = BackgroundJob.objects.get(kind="replay_design")
    assert response["Location"] == f"/jobs/{job_row.pk}/"
    assert 'class="card job-progress"' in client.get(response["Location"]).content.decode()
    job = wait_for_job(job_row.pk, timeout_s=180)
    assert job.status == "succeeded", job.message
    assert job.result_url == f"/designs/{narrow.pk}/#queue-waits" and job.done == job.total
    assert [y["year"] for y in job.result["years"]] == list(range(2014, 2020))
    html = client.get(f"/designs/{narrow.pk}/").content.decode()
    assert 'id="queue-waits-table"' in html and f"job #{job.pk}" in html
