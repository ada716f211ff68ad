"""How a worker runs a job's task: claim it, beat a heartbeat while it runs, never run it twice.

Every Celery task of the project is a :class:`JobTask` (``Celery(task_cls=...)`` in
planner/celery.py).  A task whose first argument is a ``BackgroundJob`` id:

- is recorded on its job when published (name, args, queue: what the reaper sends again);
- when a worker starts it, claims the job (``worker`` = host:pid, ``attempts`` + 1) unless the
  job already finished (a redelivered message of finished work is dropped) or another live
  process is running it (a duplicate delivery is dropped: the reaper requeues if that process
  dies); past ``JOBS_MAX_ATTEMPTS`` starts it fails the job instead of running it again (a
  task that kills its worker every time must not loop for ever);
- beats ``heartbeat_at`` every ``JOBS_HEARTBEAT_S`` from a thread while it runs.  A worker
  killed by SIGKILL stops beating: Celery requeues the message (``task_reject_on_worker_lost``
  with late acknowledgement) when the worker's main process survives, and the reaper
  (planner/jobs/reaper.py) requeues the job when the whole worker is gone.  The tasks resume
  from their checkpoint, so a second run finishes the work exactly once.

Models are imported inside functions: this module is loaded with the Celery app, before Django.
"""

from __future__ import annotations

import os
import socket
import threading
from typing import Any

from celery import Task
from celery.signals import before_task_publish

HOST = socket.gethostname()


def worker_id() -> str:
    return f"{HOST}:{os.getpid()}"


def _process_alive(owner: str) -> bool | None:
    """Whether the process named ``host:pid`` lives; None when it is on another host (unknown)."""
    host, _, pid = owner.rpartition(":")
    if host != HOST or not pid.isdigit():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _job_id(args: Any) -> int | None:
    if isinstance(args, (list, tuple)) and args and isinstance(args[0], int) and not isinstance(args[0], bool):
        return args[0]
    return None


@before_task_publish.connect
def record_task_on_job(sender: str | None = None, body: Any = None, routing_key: str | None = None,
                       headers: Any = None, **_: Any) -> None:
    """Keep the message on the job (name, args, queue) so the reaper or a Retry can send it again,
    with its task id and when it was sent (the reaper looks for a queued job's message in the
    broker, planner/jobs/broker.py).  Other keys (``resent``: the reaper's count) are kept.

    Every task of ours whose first argument is an int takes a BackgroundJob id (the publisher
    may not have imported the task module, so the registry is only asked to opt a task out).
    """
    from celery import current_app

    task = current_app.tasks.get(sender or "")
    if not sender or (task is not None and not getattr(task, "tracks_job", False)):
        return
    args = body[0] if isinstance(body, (list, tuple)) and body else None
    job_id = _job_id(args)
    if job_id is None:
        return
    from django.db.models import Q
    from django.utils import timezone

    from planner.jobs.models import BackgroundJob

    # never overwrite another task's record (an int first argument that is not this job's id)
    found = BackgroundJob.objects.filter(Q(task={}) | Q(task__name=sender), pk=job_id).values_list("task", flat=True)
    for recorded in found[:1]:
        task_id = headers.get("id") if isinstance(headers, dict) else None
        BackgroundJob.objects.filter(Q(task={}) | Q(task__name=sender), pk=job_id).update(task={
            **(recorded or {}), "name": sender, "args": list(args), "queue": routing_key or "",
            "id": task_id or "", "sent_at": timezone.now().isoformat()})


class _Heartbeat(threading.Thread):
    """Beats ``heartbeat_at`` of one job on its own database connection until stopped."""

    def __init__(self, job_id: int, owner: str, every_s: float) -> None:
        super().__init__(name=f"heartbeat-{job_id}", daemon=True)
        self.job_id, self.owner, self.every_s = job_id, owner, every_s
        self.stopping = threading.Event()

    def run(self) -> None:
        from django.db import connection
        from django.utils import timezone

        from planner.jobs.models import BackgroundJob

        try:
            while not self.stopping.wait(self.every_s):
                try:
                    BackgroundJob.objects.filter(pk=self.job_id, worker=self.owner).update(
                        heartbeat_at=timezone.now())
                except Exception:  # noqa: BLE001  a missed beat is retried; the task goes on
                    connection.close()
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=10)


class JobTask(Task):  # type: ignore[misc]
    """The base of every task: claims the job of its first argument and beats its heartbeat."""

    tracks_job = True  # a task that takes no job id sets tracks_job=False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        job_id = _job_id(args) if self.tracks_job else None
        if job_id is None or self.request.called_directly:
            return super().__call__(*args, **kwargs)
        owner = worker_id()
        if not _claim(job_id, owner):
            return None
        from django.conf import settings

        beat = _Heartbeat(job_id, owner, float(settings.JOBS_HEARTBEAT_S))
        beat.start()
        try:
            return super().__call__(*args, **kwargs)
        finally:
            beat.stop()


def _claim(job_id: int, owner: str) -> bool:
    """Take the job for this process, or say why not (False: the message is dropped)."""
    from datetime import timedelta

    from django.conf import settings
    from django.db import transaction
    from django.db.models import F
    from django.utils import timezone

    from planner.jobs.models import BackgroundJob

    S = BackgroundJob.Status
    with transaction.atomic():
        job = BackgroundJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None:
            return True  # not a job this task tracks (or a test's): run as before
        if job.status in (S.SUCCEEDED, S.FAILED):
            return False  # a redelivered message of finished work
        now = timezone.now()
        fresh = job.heartbeat_at is not None and now - job.heartbeat_at < timedelta(seconds=settings.JOBS_STALE_S)
        if job.status in (S.QUEUED, S.RUNNING, S.INTERRUPTED) and job.worker and job.worker != owner and fresh \
                and _process_alive(job.worker) is not False:
            return False  # a duplicate delivery while its owner still beats
        if job.attempts >= settings.JOBS_MAX_ATTEMPTS:
            BackgroundJob.objects.filter(pk=job_id).update(
                status=S.FAILED, finished_at=now,
                message=f"Stopped after {job.attempts} starts: its worker was lost each time "
                        f"(last: {job.worker or 'unknown'}). {job.message}".strip()[:2000])
            return False
        taken: dict[str, Any] = {"task": {**job.task, "resent": 0}} if job.task.get("resent") else {}
        BackgroundJob.objects.filter(pk=job_id).update(worker=owner, heartbeat_at=now, attempts=F("attempts") + 1,
                                                       **taken)
    return True
