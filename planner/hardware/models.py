"""The hardware catalog: node types, storage systems and per-genome benchmarks."""

from __future__ import annotations

from django.db import models

# Field names equal the pure-core dataclasses' (planner.hardware.catalog) so rows convert one to one
# (planner.hardware.services.catalog_from_db); units are in the names.


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
    price_source = models.TextField(blank=True, help_text="where price_usd comes from: vendor list, condo page, "
                                                          "procurement record or estimate")
    price_date = models.CharField(max_length=20, blank=True, help_text="when that price held, e.g. 2013-09")
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
    price_source = models.TextField(blank=True, help_text="where price_usd comes from: vendor list, condo page, "
                                                          "procurement record or estimate")
    price_date = models.CharField(max_length=20, blank=True, help_text="when that price held, e.g. 2013-09")
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
