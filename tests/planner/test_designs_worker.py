"""A real Celery worker solves an optimiser run launched from the design page and lands on its result."""

from __future__ import annotations

from typing import Any

from planner.models import OptimizerRun
from tests.helpers import login, wait_for_job
from tests.planner.designs_data import load_catalog_and_designs


def test_an_optimiser_run_from_the_design_page_ends_on_its_result(client: Any, planner_user: Any,
                                                                  live_worker: Any) -> None:
    designs = load_catalog_and_designs()
    login(client, planner_user)
    response = client.post(f"/designs/{designs['optimised'].pk}/optimize/", {"time_limit_s": "20"})
    run = OptimizerRun.objects.get(design=designs["optimised"])
    assert response["Location"] == f"/designs/runs/{run.pk}/"
    assert 'class="card job-progress"' in client.get(response["Location"]).content.decode()
    job = wait_for_job(run.job_id, timeout_s=120)
    assert job.status == "succeeded", job.message
    assert job.result_url == f"/designs/runs/{run.pk}/" and job.done == job.total == 3
    run.refresh_from_db()
    assert run.status in ("optimal", "gap") and run.result["evaluation"]["feasible"]
    html = client.get(job.result_url).content.decode()
    assert "Purchases" in html and "ivy-bridge" in html  # the 2013 candidates only (minerva_optimised.yaml)


def test_a_run_whose_design_was_deleted_before_it_ran_ends_saying_so(planner_user: Any) -> None:
    """A design deleted while its run waited in the queue (its runs go with it) made the worker fail with
    'OptimizerRun matching query does not exist' (or, mid-run, 'Save with update_fields did not affect any rows')
    and a traceback in its log; the job now ends failed with the reason in words, not retried."""
    from planner.designs.services import optimizer_run_start
    from planner.designs.tasks import optimize_design_run
    from planner.jobs.models import BackgroundJob

    designs = load_catalog_and_designs()
    run = optimizer_run_start(design=designs["optimised"], user=planner_user, time_limit_s=5)
    job_id = run.job_id
    designs["optimised"].delete()
    optimize_design_run(job_id)  # the task's body, as the worker runs it
    job = BackgroundJob.objects.get(pk=job_id)
    assert job.status == "failed" and job.message.startswith("The design was deleted while this run was queued")
    assert job.result == {"retry": False}
