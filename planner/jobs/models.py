"""BackgroundJob: the progress record every long task writes."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class BackgroundJob(models.Model):
    """One piece of long work (ingest, fit, optimise, render) a person can watch.

    Tasks take this row's id, update ``done``/``total``/``message`` as they go and end in
    SUCCEEDED with a ``result`` (JSON) and a ``result_url`` to land on, or FAILED with a
    message a person can act on.  Pages poll ``/jobs/<id>.json`` for the progress bar.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
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

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(done__gte=0), name="backgroundjob_done_nonnegative"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"
