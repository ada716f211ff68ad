"""GrantReport: one version of a grant-justification report, with its inputs and output files.

Versions are immutable once generated: editing the narrative or regenerating saves a new row
(``parent`` = the version it came from) with its own parameters, overrides, facts and files.
Files live under ``settings.REPORTS_DIR/<id>/`` (``DATA_DIR/reports/<id>/``).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db import models


class GrantReport(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        READY = "ready"
        FAILED = "failed"

    FORMATS = ("pdf", "docx", "html", "zip")

    title = models.CharField(max_length=300, blank=True)
    cluster = models.ForeignKey("forecasts.Cluster", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+", help_text="empty = all clusters")
    period_start = models.DateField(null=True, blank=True, help_text="first month; empty = all usage")
    period_end = models.DateField(null=True, blank=True, help_text="last month; empty = all usage")
    forecast_fit = models.ForeignKey("forecasts.ForecastFit", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    sequencer_plan = models.ForeignKey("forecasts.SequencerPlan", null=True, blank=True,
                                       on_delete=models.SET_NULL, related_name="+")
    design = models.ForeignKey("planner.Design", on_delete=models.PROTECT, related_name="grant_reports")
    parameters = models.JSONField(default=dict, blank=True, help_text="the inputs as chosen (ids, dates)")
    narrative_overrides = models.JSONField(default=dict, blank=True,
                                           help_text="paragraph key -> text written in place of the generated one")
    facts = models.JSONField(null=True, blank=True, help_text="what was gathered (planner.reports.gather)")
    document = models.JSONField(null=True, blank=True, help_text="the rendered Document.to_dict()")
    version = models.PositiveIntegerField(default=1)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    message = models.TextField(blank=True)
    files = models.JSONField(default=dict, blank=True, help_text="format -> file name under the report directory")
    job = models.ForeignKey("planner.BackgroundJob", null=True, blank=True, on_delete=models.SET_NULL,
                            related_name="+")
    seconds = models.FloatField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"grant report #{self.pk} v{self.version} ({self.status})"

    @property
    def directory(self) -> Path:
        return Path(settings.REPORTS_DIR) / str(self.pk)

    @property
    def formats_ready(self) -> list[str]:
        """The formats written, in the order pages list them (jsonb does not keep key order)."""
        return [f for f in self.FORMATS if f in (self.files or {})]

    def file_path(self, fmt: str) -> Path | None:
        name = (self.files or {}).get(fmt)
        return self.directory / name if name else None
