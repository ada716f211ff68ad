"""BackgroundJob: the progress record every long task writes."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class BackgroundJob(models.Model):
    """One piece of long work (ingest, fit, optimise, render) a person can watch.

    Tasks take this row's id, update ``done``/``total``/``message`` as they go and end in
    SUCCEEDED with a ``result`` (JSON) and a ``result_url`` to land on, or FAILED with a
    message a person can act on.  Pages poll ``/jobs/<id>.json`` for the progress bar.

    While a worker runs the task it beats ``heartbeat_at`` (planner/jobs/runtime.py); the
    beat-driven reaper (planner/jobs/reaper.py) marks a RUNNING job whose heartbeat stopped
    INTERRUPTED and sends ``task`` (name, args, queue: recorded when it was published) again,
    so the task resumes from its checkpoint; past ``JOBS_MAX_ATTEMPTS`` it fails the job and
    the page offers Retry.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        INTERRUPTED = "interrupted"  # its worker was lost; queued again to resume from the checkpoint
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    kind = models.CharField(max_length=60)
    label = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    params = models.JSONField(default=dict, blank=True)
    done = models.BigIntegerField(default=0)
    total = models.BigIntegerField(null=True, blank=True)
    unit = models.CharField(max_length=30, default="items")
    message = models.TextField(blank=True)
    result = models.JSONField(null=True, blank=True)
    result_url = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True,
                                        help_text="last beat of the worker running it (every JOBS_HEARTBEAT_S)")
    worker = models.CharField(max_length=200, blank=True, help_text="host:pid of the process running it")
    attempts = models.PositiveIntegerField(default=0, help_text="times a worker started it")
    task = models.JSONField(default=dict, blank=True,
                            help_text="the Celery message that runs it: name, args, queue (for requeue)")

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # the reaper's query: running jobs whose heartbeat is older than JOBS_STALE_S
            models.Index(fields=["status", "heartbeat_at"], name="backgroundjob_status_beat"),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(done__gte=0), name="backgroundjob_done_nonnegative"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"

    @property
    def failed_on_input(self) -> bool:
        """Failed because of its input (``job_failed(retry=False)``, e.g. a file with no readable record): a
        retry would fail the same way."""
        return self.status == self.Status.FAILED and isinstance(self.result, dict) and self.result.get("retry") is False

    @property
    def can_retry(self) -> bool:
        """A person may retry (or resume) it: failed or interrupted, its task recorded, not failed on its input."""
        return (self.status in (self.Status.FAILED, self.Status.INTERRUPTED) and bool(self.task.get("name"))
                and not self.failed_on_input)
