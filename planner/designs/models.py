"""Multi-year designs, their evaluations and optimiser runs."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from planner.jobs.models import BackgroundJob


class Design(models.Model):
    """One version of a multi-year purchase plan: the scenario YAML exactly as a person wrote it.

    Editing saves a new version (``parent`` = the one edited) so every evaluation keeps the
    exact inputs it was computed from; lists show the latest version of each design.
    """

    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    scenario_yaml = models.TextField(help_text="the scenario as edited (YAML or JSON)")
    scenario = models.JSONField(help_text="the parsed scenario")
    version = models.PositiveIntegerField(default=1)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="revisions")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "-version"]

    def __str__(self) -> str:
        return f"{self.name} (v{self.version})"


class DesignEvaluation(models.Model):
    """A design evaluated against one catalog state; ``inputs_sha256`` names the exact inputs."""

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="evaluations")
    inputs_sha256 = models.CharField(max_length=64, help_text="sha256 of the scenario and catalog used")
    catalog_snapshot = models.JSONField(default=dict, help_text="the catalog rows the numbers came from")
    result = models.JSONField(help_text="planner.designs.capacity.DesignEvaluation.to_dict()")
    sensitivity = models.JSONField(null=True, blank=True, help_text="planner.designs.sensitivity.Tornado.to_dict(), "
                                   "computed on first view of a comparison")
    price_sources = models.JSONField(
        default=list, blank=True,
        help_text="prices taken from a forecast (price_trends): series, fit id, percentile and the multiplier "
                  "per year, planner.designs.prices.PriceSource.to_dict()")
    feasible = models.BooleanField()
    npv_usd = models.FloatField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # design_evaluate looks up an evaluation of the same inputs before computing again.
            models.Index(fields=["design", "inputs_sha256"], name="designeval_design_inputs"),
        ]

    def __str__(self) -> str:
        return f"evaluation #{self.pk} of {self.design}"


class OptimizerRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        OPTIMAL = "optimal"
        GAP = "gap"
        INFEASIBLE = "infeasible"
        TIME_LIMIT = "time_limit"
        FAILED = "failed"

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="optimizer_runs")
    params = models.JSONField(default=dict, help_text="time_limit_s, mip_rel_gap, keep_purchases")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    inputs_sha256 = models.CharField(max_length=64, blank=True)
    result = models.JSONField(null=True, blank=True, help_text="planner.designs.optimize.OptimizationResult.to_dict()")
    message = models.TextField(blank=True)
    job = models.ForeignKey(BackgroundJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    result_design = models.ForeignKey(Design, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                      help_text="the optimised plan saved as a design")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"optimiser run #{self.pk} of {self.design} ({self.status})"


# Grant justification reports (issue 7) live in their own module; imported here so Django registers them.
