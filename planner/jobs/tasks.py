"""The worker self-test: proves a worker is consuming (used by tests and /healthz docs)."""

from __future__ import annotations

from celery import shared_task

from planner.jobs.services import job_running, job_succeeded


@shared_task(name="planner.tasks.selftest", time_limit=60)
def selftest(job_id: int) -> None:
    """Proves a worker is consuming: marks the job succeeded (used by tests and /healthz docs)."""
    job_running(job_id, total=1)
    job_succeeded(job_id, result={"worker": "ok"})
