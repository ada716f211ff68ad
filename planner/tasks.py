"""Celery tasks of the project as a whole (area tasks live in their own modules)."""

from __future__ import annotations

from celery import shared_task

from planner.jobs import job_running, job_succeeded


@shared_task(time_limit=60)
def selftest(job_id: int) -> None:
    """Proves a worker is consuming: marks the job succeeded (used by tests and /healthz docs)."""
    job_running(job_id, total=1)
    job_succeeded(job_id, result={"worker": "ok"})


@shared_task(time_limit=900, soft_time_limit=870)
def optimize_design_run(job_id: int) -> None:
    """Solve an OptimizerRun (its id is in the job's params); see planner.services_designs."""
    from celery.exceptions import SoftTimeLimitExceeded

    from planner.models import BackgroundJob
    from planner.services_designs import optimizer_run_execute, optimizer_run_fail

    run_id = int(BackgroundJob.objects.get(pk=job_id).params["run_id"])
    try:
        optimizer_run_execute(run_id, job_id)
    except SoftTimeLimitExceeded:
        optimizer_run_fail(run_id, job_id, "The optimiser ran out of time (870 s); lower optimize.time_limit_s "
                                           "or narrow the candidate node types and storage systems.")
    except Exception as exc:
        optimizer_run_fail(run_id, job_id, f"{type(exc).__name__}: {exc}")
        raise
