"""Services for background work: start a job, report progress, finish, and read its status.

A task is enqueued only once the transaction that created its BackgroundJob commits
(transaction.on_commit), so a worker never looks for a row that is not there yet.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone

from planner.jobs.models import BackgroundJob


def job_start(*, kind: str, label: str, task: Any, params: dict[str, Any] | None = None,
              user: Any = None, unit: str = "items") -> BackgroundJob:
    """Create the job row and enqueue ``task`` after commit.

    ``task`` is a Celery task taking the job id, or its registered name: services name their
    task (the task module imports the service, never the other way), so no import cycle.
    """
    job = BackgroundJob.objects.create(
        kind=kind, label=label, params=params or {}, unit=unit,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    if isinstance(task, str):
        from planner.celery import app

        transaction.on_commit(lambda: app.send_task(task, args=[job.pk]))
    else:
        transaction.on_commit(lambda: task.delay(job.pk))
    return job


def job_running(job_id: int, *, total: int | None = None, message: str = "") -> None:
    BackgroundJob.objects.filter(pk=job_id).update(
        status=BackgroundJob.Status.RUNNING, started_at=timezone.now(), total=total, message=message
    )


def job_progress(job_id: int, *, done: int, total: int | None = None, message: str | None = None) -> None:
    fields: dict[str, Any] = {"done": done}
    if total is not None:
        fields["total"] = total
    if message is not None:
        fields["message"] = message
    BackgroundJob.objects.filter(pk=job_id).update(**fields)


def job_succeeded(
    job_id: int, *, result: dict[str, Any], result_url: str = "", message: str = "Done"
) -> None:
    BackgroundJob.objects.filter(pk=job_id).update(
        status=BackgroundJob.Status.SUCCEEDED, result=result, result_url=result_url,
        message=message, finished_at=timezone.now(),
    )


def job_failed(job_id: int, *, message: str, result_url: str = "", retry: bool = True) -> None:
    """``retry`` False: the input itself is the problem (a file with no readable record), so a retry would
    fail the same way and none is offered; ``result_url``: where what went wrong can be seen."""
    BackgroundJob.objects.filter(pk=job_id).update(
        status=BackgroundJob.Status.FAILED, message=message, finished_at=timezone.now(), result_url=result_url,
        result=None if retry else {"retry": False},
    )



def throttled(report: Callable[[int], None], every_s: float = 0.5) -> Callable[[int], None]:
    """Wrap a progress callback so it writes to the database at most every ``every_s`` seconds."""
    last = 0.0

    def call(done: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= every_s:
            last = now
            report(done)

    return call


def job_alive(job: BackgroundJob, *, now: Any = None) -> bool:
    """Whether a running job's worker still beats (a job run outside a worker has no heartbeat)."""
    from datetime import timedelta

    from django.conf import settings

    if job.status != BackgroundJob.Status.RUNNING:
        return False
    if job.heartbeat_at is None:
        return True
    return (now or timezone.now()) - job.heartbeat_at < timedelta(seconds=settings.JOBS_STALE_S)


STATUS_TEXT = {
    BackgroundJob.Status.QUEUED: "queued",
    BackgroundJob.Status.RUNNING: "running",
    BackgroundJob.Status.INTERRUPTED: "interrupted, resuming",
    BackgroundJob.Status.SUCCEEDED: "succeeded",
    BackgroundJob.Status.FAILED: "failed",
}


def job_status(job: BackgroundJob) -> dict[str, Any]:
    """What the progress bar shows: fraction, rate and ETA, computed from the row.

    Only a running job whose worker still beats has a rate and an ETA: an interrupted job, or
    one whose heartbeat stopped (the reaper has not passed yet), shows none.
    """
    elapsed = None
    rate = None
    eta = None
    alive = job_alive(job)
    if job.started_at:
        end = job.finished_at or timezone.now()
        elapsed = max((end - job.started_at).total_seconds(), 1e-6)
        rate = job.done / elapsed if job.done and (alive or job.finished_at) else None
        if rate and job.total and alive:
            eta = max(job.total - job.done, 0) / rate
    text = STATUS_TEXT.get(job.status, job.status)
    if job.status == BackgroundJob.Status.RUNNING and not alive:
        text = "not answering (its worker stopped; it will be resumed)"
    return {
        "id": job.pk,
        "kind": job.kind,
        "label": job.label,
        "status": job.status,
        "status_text": text,
        "alive": alive,
        "attempts": job.attempts,
        "can_retry": job.can_retry,
        "done": job.done,
        "total": job.total,
        "unit": job.unit,
        "fraction": (job.done / job.total) if job.total else None,
        "rate_per_s": rate,
        "eta_s": eta,
        "elapsed_s": elapsed,
        "message": job.message,
        "result": job.result,
        "result_url": job.result_url,
    }
