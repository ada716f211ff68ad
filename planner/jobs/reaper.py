"""The reaper (run by Celery beat every JOBS_REAP_EVERY_S) and Retry: work whose worker is gone.

A RUNNING job whose heartbeat is older than JOBS_STALE_S lost its worker (SIGKILL, OOM, a
machine that went away).  The reaper marks it INTERRUPTED and sends its task again (the
message recorded on the job when it was first published, to the same queue): the task
resumes from its checkpoint (ingest runs continue after their last committed batch; scans
and reports are written all or nothing).  A job that cannot resume (no message recorded, or
it was started JOBS_MAX_ATTEMPTS times) is FAILED with a message, and its page offers Retry:
then a person decides.

A QUEUED (or INTERRUPTED, i.e. requeued) job can also lose its message before any worker takes
it: a broker restarted without persistence, a purged queue, a message dropped in transit.
When such a job was sent more than JOBS_QUEUED_STALE_S ago, no live worker holds it (no
heartbeat since, or a silent one) and the broker no longer holds its message (by task id,
planner/jobs/broker.py), the reaper sends the recorded task again; the task resumes from its
checkpoint and a duplicate delivery is dropped by the claim (planner/jobs/runtime.py).  A job
whose task was not recorded, or that was sent JOBS_MAX_ATTEMPTS times without a worker taking
it, is FAILED with a message instead.  On a broker that cannot be inspected the message counts
as lost once the threshold passes (a duplicate is dropped, the count bounds the repeats).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from planner.jobs.models import BackgroundJob

log = logging.getLogger(__name__)

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
    """Requeue or fail every running job whose worker stopped beating, and send again every queued
    job whose message was lost (``resent``); returns the ids by outcome."""
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.JOBS_STALE_S)
    outcome: dict[str, list[int]] = {"requeued": [], "resent": [], "failed": []}
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
    _resend_lost_messages(now, outcome)
    return outcome


def _sent_at(job: BackgroundJob) -> datetime:
    try:
        return datetime.fromisoformat(job.task["sent_at"])
    except (KeyError, TypeError, ValueError):
        return job.created_at  # recorded before sent_at was


def _waiting_unclaimed(now: datetime) -> Q:
    """Queued or requeued, and no live worker holds it (never claimed since, or silent)."""
    silent = now - timedelta(seconds=settings.JOBS_STALE_S)
    return Q(status__in=[S.QUEUED, S.INTERRUPTED]) & (Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=silent))


def _resend_lost_messages(now: datetime, outcome: dict[str, list[int]]) -> None:
    """Send again (or fail) every job queued for JOBS_QUEUED_STALE_S whose message the broker lost."""
    from planner.jobs.broker import task_ids_in_broker

    before = now - timedelta(seconds=settings.JOBS_QUEUED_STALE_S)
    waiting = [job for job in BackgroundJob.objects.filter(_waiting_unclaimed(now), created_at__lt=before)
               if _sent_at(job) < before]
    if not waiting:
        return
    queues = {job.task.get("queue") or settings.CELERY_TASK_DEFAULT_QUEUE for job in waiting}
    try:
        held = task_ids_in_broker(queues)
    except Exception as exc:  # noqa: BLE001  the broker is down: nothing can be decided now
        log.warning("reaper: cannot read the broker (%s); queued jobs are checked again next time", exc)
        return
    for candidate in waiting:
        if held is not None and candidate.task.get("id") and candidate.task["id"] in held:
            continue  # its message waits its turn
        with transaction.atomic():
            job = (BackgroundJob.objects.select_for_update(skip_locked=True)
                   .filter(_waiting_unclaimed(now), pk=candidate.pk).first())
            if job is None or _sent_at(job) >= before:
                continue  # a worker took it, or it was sent again meanwhile
            when = timezone.localtime(_sent_at(job)).strftime("%Y-%m-%d %H:%M:%S")
            resent = int(job.task.get("resent") or 0)
            if job_can_resume(job) and resent < settings.JOBS_MAX_ATTEMPTS:
                BackgroundJob.objects.filter(pk=job.pk).update(
                    task={**job.task, "resent": resent + 1},
                    message=f"Queued at {when}, but its message was lost before a worker took it: "
                            f"sent again; it resumes from the last checkpoint.")
                job_send(job)
                outcome["resent"].append(job.pk)
                continue
            queue = job.task.get("queue") or settings.CELERY_TASK_DEFAULT_QUEUE
            why = (f"it was sent {resent + 1} times and no worker took it (is a worker consuming the "
                   f"queue '{queue}'?)" if job_can_resume(job) else "the task to send it again was not recorded")
            BackgroundJob.objects.filter(pk=job.pk).update(
                status=S.FAILED, finished_at=now,
                message=f"Failed: queued at {when}, its message was lost before a worker took it and {why}. "
                        f"Retry sends it again from the last checkpoint.")
            outcome["failed"].append(job.pk)


def job_retry(*, job: BackgroundJob, user: Any = None) -> BackgroundJob:
    """A person's Retry (or Resume) of a failed or interrupted job: queue it again from its checkpoint."""
    if job.status not in (S.FAILED, S.INTERRUPTED):
        raise ValueError(f"job #{job.pk} is {job.status}: only a failed or interrupted job can be retried")
    if not job_can_resume(job):
        raise ValueError(f"job #{job.pk} cannot be retried: the task that runs it was not recorded")
    if job.failed_on_input:
        raise ValueError(f"job #{job.pk} failed on its input, and a retry would read it the same way: "
                         "upload a corrected file")
    who = getattr(user, "username", "") or "someone"
    with transaction.atomic():
        BackgroundJob.objects.filter(pk=job.pk).update(
            status=S.QUEUED, attempts=0, finished_at=None, heartbeat_at=None, worker="", task={**job.task, "resent": 0},
            message=f"Queued again by {who}; it resumes from the last checkpoint.")
        job_send(job)
    job.refresh_from_db()
    return job
