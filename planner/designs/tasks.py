"""Celery task solving an optimiser run (planner.designs.services) with a time limit."""

from __future__ import annotations

from celery import shared_task

from planner.designs.services import OPTIMIZE_TASK, optimizer_run_execute, optimizer_run_fail


@shared_task(name=OPTIMIZE_TASK, time_limit=900, soft_time_limit=870)
def optimize_design_run(job_id: int) -> None:
    """Solve an OptimizerRun (its id is in the job's params); see planner.designs.services."""
    from celery.exceptions import SoftTimeLimitExceeded

    from planner.jobs.models import BackgroundJob

    run_id = int(BackgroundJob.objects.get(pk=job_id).params["run_id"])
    try:
        optimizer_run_execute(run_id, job_id)
    except SoftTimeLimitExceeded:
        optimizer_run_fail(run_id, job_id, "The optimiser ran out of time (870 s); lower optimize.time_limit_s "
                                           "or narrow the candidate node types and storage systems.")
    except Exception as exc:
        optimizer_run_fail(run_id, job_id, f"{type(exc).__name__}: {exc}")
        raise
