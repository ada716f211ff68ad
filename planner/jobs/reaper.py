"""The reaper (run by Celery beat every JOBS_REAP_EVERY_S) and Retry: work whose worker is gone.

A RUNNING job whose heartbeat is older than JOBS_STALE_S lost its worker (SIGKILL, OOM, a
machine that went away).  The reaper marks it INTERRUPTED and sends its task again (the
message recorded on the job when it was first published, to the same queue): the task
resumes from its checkpoint (ingest runs continue after their last committed batch; scans
and reports are written all or nothing).  A job that cannot resume (no message recorded, or
it was started JOBS_MAX_ATTEMPTS times) is FAILED with a message, and its page offers Retry:
then a person decides.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from planner.jobs.models import BackgroundJob

S = BackgroundJob.Status


def job_send(job: BackgroundJob) -> None:
    """Send the job's recorded task again, after the current transaction commits."""
    from planner.celery import app

    task = dict(job.task)
    options: dict[str, Any] = {"queue": task["queue"]} if task.get("queue") else {}
    transaction.on_commit(lambda: app.send_task(task["name"], args=task.get("args") or [job.pk], **options))


def job_can_resume(job: BackgroundJob) -> bool:
    return bool(job.task.get("name"))


def jobs_reap(*, now: Any = None) -> dict[str, list[int]]:
    """Requeue or fail every running job whose worker stopped beating; returns the ids by outcome."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.JOBS_STALE_S)
    outcome: dict[str, list[int]] = {"requeued": [], "failed": []}
    with transaction.atomic():
        lost = list(BackgroundJob.objects.select_for_update(skip_locked=True)
                    .filter(status=S.RUNNING, heartbeat_at__lt=stale))
        for job in lost:
            when = timezone.localtime(job.heartbeat_at).strftime("%H:%M:%S") if job.heartbeat_at else "?"
            if job_can_resume(job) and job.attempts < settings.JOBS_MAX_ATTEMPTS:
                BackgroundJob.objects.filter(pk=job.pk).update(
                    status=S.INTERRUPTED,
                    message=f"Interrupted: its worker ({job.worker or 'unknown'}) stopped answering at {when}; "
                            f"resuming from the last checkpoint when a worker is free.")
                job_send(job)
                outcome["requeued"].append(job.pk)
            else:
                why = (f"it was started {job.attempts} times and its worker was lost each time"
                       if job_can_resume(job) else "the task to resume it was not recorded")
                BackgroundJob.objects.filter(pk=job.pk).update(
                    status=S.FAILED, finished_at=now,
                    message=f"Failed: its worker ({job.worker or 'unknown'}) stopped answering at {when} and "
                            f"{why}. Retry resumes it from the last checkpoint.")
                outcome["failed"].append(job.pk)
    return outcome


def job_retry(*, job: BackgroundJob, user: Any = None) -> BackgroundJob:
    """A person's Retry (or Resume) of a failed or interrupted job: queue it again from its checkpoint."""
    if job.status not in (S.FAILED, S.INTERRUPTED):
        raise ValueError(f"job #{job.pk} is {job.status}: only a failed or interrupted job can be retried")
    if not job_can_resume(job):
        raise ValueError(f"job #{job.pk} cannot be retried: the task that runs it was not recorded")
    who = getattr(user, "username", "") or "someone"
    with transaction.atomic():
        BackgroundJob.objects.filter(pk=job.pk).update(
            status=S.QUEUED, attempts=0, finished_at=None, heartbeat_at=None, worker="",
            message=f"Queued again by {who}; it resumes from the last checkpoint.")
        job_send(job)
    job.refresh_from_db()
    return job
