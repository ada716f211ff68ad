"""The worker self-test: proves a worker is consuming (used by tests and /healthz docs)."""

from __future__ import annotations

from celery import shared_task

from planner.jobs.reaper import jobs_reap
from planner.jobs.services import job_running, job_succeeded

# Celery beat runs it every JOBS_REAP_EVERY_S (CELERY_BEAT_SCHEDULE in planner/settings.py).
REAP_TASK = "planner.jobs.reap_lost_jobs"


@shared_task(name="planner.tasks.selftest", time_limit=60)
def selftest(job_id: int) -> None:
    """Proves a worker is consuming: marks the job succeeded (used by tests and /healthz docs)."""
    job_running(job_id, total=1)
    job_succeeded(job_id, result={"worker": "ok"})


@shared_task(name=REAP_TASK, time_limit=120, tracks_job=False)
def reap_lost_jobs() -> dict[str, list[int]]:
    """Requeue (or fail, with a message) every running job whose worker stopped beating."""
    return jobs_reap()
