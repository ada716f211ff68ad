"""Supply-side models, plus BackgroundJob: the progress record every long task writes."""

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


# ---- Hardware catalog, benchmarks, designs and optimiser runs (issue 6) -------------------------
# Field names equal the pure-core dataclasses' (planner.catalog) so rows convert one to one
# (planner.services_catalog.catalog_from_db); units are in the names.


class NodeType(models.Model):
    name = models.SlugField(max_length=60, unique=True)
    cpu_model = models.CharField(max_length=120)
    sockets = models.PositiveSmallIntegerField(default=2)
    cores_per_node = models.PositiveIntegerField(help_text="the node's width")
    base_clock_ghz = models.FloatField()
    all_core_clock_ghz = models.FloatField()
    arch_factor = models.FloatField(default=1.0, help_text="work per core per GHz relative to the reference")
    memory_gb = models.FloatField()
    local_flash_tb = models.FloatField(default=0.0)
    gpus = models.PositiveIntegerField(default=0)
    price_usd = models.FloatField()
    power_w = models.FloatField(help_text="typical draw at load")
    rack_units = models.FloatField(default=1.0)
    support_pct_per_year = models.FloatField(default=5.0, help_text="yearly support as % of price")
    lifetime_years = models.PositiveSmallIntegerField(default=5)
    first_year = models.PositiveSmallIntegerField(help_text="first year it can be bought")
    last_year = models.PositiveSmallIntegerField(null=True, blank=True, help_text="end of sale; empty: no limit")
    flops_per_cycle_per_core = models.FloatField(default=8.0, help_text="double precision, for peak TF")
    source = models.TextField(blank=True)
    assumptions = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["first_year", "name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(cores_per_node__gt=0, base_clock_ghz__gt=0, arch_factor__gt=0),
                name="nodetype_positive_width_clock_arch",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class StorageSystem(models.Model):
    class Kind(models.TextChoices):
        DISK = "disk"
        FLASH = "flash"
        HYBRID = "hybrid"
        ARCHIVE = "archive"

    name = models.SlugField(max_length=60, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    raw_tb = models.FloatField(help_text="per unit, decimal TB")
    usable_tb = models.FloatField(help_text="per unit, before the fullness limit")
    price_usd = models.FloatField(help_text="per unit")
    power_w = models.FloatField(help_text="per unit")
    throughput_gbps = models.FloatField(help_text="GB/s per unit; aggregate grows linearly with units")
    metadata_iops = models.FloatField(help_text="per unit")
    fullness_limit = models.FloatField(default=0.80, help_text="plannable share of usable (GPFS degrades above 80%)")
    cpu_efficiency = models.FloatField(null=True, blank=True, help_text="CPU h / wall core-h of pipelines on it")
    ceiling_concurrent_samples = models.FloatField(null=True, blank=True, help_text="per unit")
    ceiling_genomes_per_day = models.FloatField(null=True, blank=True, help_text="per unit")
    tested_max_concurrent_samples = models.FloatField(null=True, blank=True)
    support_pct_per_year = models.FloatField(default=8.0)
    lifetime_years = models.PositiveSmallIntegerField(default=5)
    first_year = models.PositiveSmallIntegerField(default=2010)
    last_year = models.PositiveSmallIntegerField(null=True, blank=True)
    source = models.TextField(blank=True)
    assumptions = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind", "name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(fullness_limit__gt=0, fullness_limit__lte=1),
                name="storagesystem_fullness_limit_0_1",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Benchmark(models.Model):
    """One measured pipeline run with its provenance (``source``: document, table or figure)."""

    pipeline = models.CharField(max_length=120)
    sample_type = models.CharField(max_length=60)
    node_type = models.ForeignKey(NodeType, on_delete=models.PROTECT, related_name="benchmarks")
    storage_system = models.ForeignKey(StorageSystem, on_delete=models.PROTECT, related_name="benchmarks")
    source = models.TextField(help_text="where the numbers come from: document, section, table or figure")
    samples = models.PositiveIntegerField(default=1)
    nodes = models.PositiveIntegerField(null=True, blank=True)
    samples_per_node = models.PositiveIntegerField(null=True, blank=True)
    cpu_hours_per_sample = models.FloatField(null=True, blank=True)
    wall_core_hours_per_sample = models.FloatField(null=True, blank=True, help_text="core-hours held per genome")
    wall_hours_per_batch = models.FloatField(null=True, blank=True)
    genomes_per_day = models.FloatField(null=True, blank=True, help_text="measured")
    saturated = models.BooleanField(default=False)
    note = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pipeline", "node_type__name", "storage_system__name", "samples"]
        constraints = [
            # Natural key: re-importing the catalog updates a row instead of adding a copy.
            models.UniqueConstraint(fields=["pipeline", "node_type", "storage_system", "samples"],
                                    name="benchmark_natural_key"),
        ]

    def __str__(self) -> str:
        return f"{self.pipeline} on {self.node_type}/{self.storage_system} ({self.samples})"


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
    result = models.JSONField(help_text="planner.capacity.DesignEvaluation.to_dict()")
    sensitivity = models.JSONField(null=True, blank=True, help_text="planner.sensitivity.Tornado.to_dict(), "
                                   "computed on first view of a comparison")
    price_sources = models.JSONField(
        default=list, blank=True,
        help_text="prices taken from a forecast (price_trends): series, fit id, percentile and the multiplier "
                  "per year, planner.prices.PriceSource.to_dict()")
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
    result = models.JSONField(null=True, blank=True, help_text="planner.optimize.OptimizationResult.to_dict()")
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
from planner.reports.models import GrantReport  # noqa: E402,F401
