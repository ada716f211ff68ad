"""Celery tasks solving optimiser runs (planner.designs.services, .services_paths) with time limits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import shared_task

from planner.designs.services import OPTIMIZE_TASK, optimizer_run_execute, optimizer_run_fail
from planner.designs.services_paths import SERVICE_LEVEL_TASK, service_level_run_execute


def _solve(job_id: int, execute: Callable[[int, int], Any], out_of_time: str) -> None:
    """Run the OptimizerRun named in the job's params; a failure is stored on the run, never lost."""
    from celery.exceptions import SoftTimeLimitExceeded

    from planner.jobs.models import BackgroundJob

    run_id = int(BackgroundJob.objects.get(pk=job_id).params["run_id"])
    try:
        execute(run_id, job_id)
    except SoftTimeLimitExceeded:
        optimizer_run_fail(run_id, job_id, out_of_time)
    except Exception as exc:
        from planner.designs.models import OptimizerRun
        from planner.jobs.services import job_failed

        if not OptimizerRun.objects.filter(pk=run_id).exists():  # its design (and so the run) deleted meanwhile
            job_failed(job_id, message="The design was deleted while this run was queued or running: there is "
                                       "nothing to save the plan to.", retry=False)
            return
        optimizer_run_fail(run_id, job_id, f"{type(exc).__name__}: {exc}")
        raise


@shared_task(name=OPTIMIZE_TASK, time_limit=900, soft_time_limit=870)
def optimize_design_run(job_id: int) -> None:
    """Solve an OptimizerRun (its id is in the job's params); see planner.designs.services."""
    _solve(job_id, optimizer_run_execute, "The optimiser ran out of time (870 s); lower optimize.time_limit_s "
                                          "or narrow the candidate node types and storage systems.")


@shared_task(name=SERVICE_LEVEL_TASK, time_limit=3600, soft_time_limit=3540)
def service_level_run(job_id: int) -> None:
    """Plans for a service level and the cost-of-confidence curve (planner.designs.services_paths)."""
    _solve(job_id, service_level_run_execute, "The service-level plans ran out of time (3,540 s); use fewer "
                                              "paths (uncertainty.paths) or a larger optimize.mip_rel_gap.")
