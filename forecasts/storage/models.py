"""File systems, their scans and what each department holds on them.

A scan (``find -printf``/GUFI TSV, GPFS policy LIST, or a pre-aggregated size histogram) is
streamed through forecasts/storage (bounded memory) into one StorageSnapshot per file system
and date: the headline numbers as columns, every statistic as the accumulator's JSON, and
per-owner/group rows attributed to departments and projects through the same dated identity
mappings as jobs (StorageUsage).  Loaded by forecasts/storage/services.py.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from forecasts.accounting.models import Department, Project
from forecasts.units import bytes_to_tb


class FileSystem(models.Model):
    class Kind(models.TextChoices):
        GPFS = "gpfs", "GPFS / Spectrum Scale"
        LUSTRE = "lustre", "Lustre"
        NFS = "nfs", "NFS"
        OBJECT = "object", "object store"
        OTHER = "other", "other"

    name = models.SlugField(max_length=60, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.GPFS)
    tier = models.CharField(max_length=60, default="disk", help_text="pricing tier, e.g. flash, disk, archive")
    capacity_tb = models.FloatField(null=True, blank=True, help_text="usable decimal TB")
    description = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class StorageSnapshot(models.Model):
    """One scan of a file system on a date (the last scan loaded for a date replaces earlier ones)."""

    class Status(models.TextChoices):
        RUNNING = "running"
        COMPLETED = "completed"
        FAILED = "failed"

    filesystem = models.ForeignKey(FileSystem, on_delete=models.CASCADE, related_name="snapshots")
    taken_on = models.DateField()
    format = models.CharField(max_length=12)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    files = models.BigIntegerField(default=0)
    bytes_total = models.BigIntegerField(default=0)
    directories = models.BigIntegerField(null=True, blank=True, help_text="exact or estimated; empty if unknown")
    zero_length = models.BigIntegerField(default=0)
    mean_size_bytes = models.FloatField(null=True, blank=True)
    median_size_bytes = models.BigIntegerField(null=True, blank=True)
    stats = models.JSONField(default=dict, blank=True, help_text="ScanAccumulator.to_dict()")
    facts = models.JSONField(default=dict, blank=True, help_text="planner facts (forecasts/storage/facts.py)")
    scan_name = models.CharField(max_length=500)
    scan_sha256 = models.CharField(max_length=64, blank=True)
    lines_read = models.BigIntegerField(default=0)
    lines_skipped = models.BigIntegerField(default=0)
    lines_rejected = models.BigIntegerField(default=0)
    seconds = models.FloatField(default=0)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    background_job = models.ForeignKey("planner.BackgroundJob", null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["filesystem", "-taken_on"]
        indexes = [models.Index(fields=["filesystem", "taken_on"], name="storage_snapshot_fs_date")]

    def __str__(self) -> str:
        return f"{self.filesystem} {self.taken_on}"

    @property
    def lines_stored(self) -> int:
        """Lines that became records: read = stored + skipped + rejected, always."""
        return self.lines_read - self.lines_skipped - self.lines_rejected

    @property
    def tb(self) -> float:
        """The scan's bytes in decimal TB (10**12 bytes), the unit of the storage page and its CSV."""
        return bytes_to_tb(self.bytes_total)


class StorageUsage(models.Model):
    """Bytes and files of one owner (user) or group in a snapshot, attributed to a department."""

    class Kind(models.TextChoices):
        OWNER = "owner"
        GROUP = "group"

    snapshot = models.ForeignKey(StorageSnapshot, on_delete=models.CASCADE, related_name="usage")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    name = models.CharField(max_length=120)
    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="storage_usage")
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.PROTECT,
                                related_name="storage_usage")
    bytes = models.BigIntegerField(default=0)
    files = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["snapshot", "-bytes"]
        constraints = [models.UniqueConstraint(fields=["snapshot", "kind", "name"], name="storage_usage_key")]
        indexes = [models.Index(fields=["department", "snapshot"], name="storage_usage_dept")]

    def __str__(self) -> str:
        return f"{self.snapshot}: {self.kind} {self.name} {self.bytes} B"


class StorageRejection(models.Model):
    snapshot = models.ForeignKey(StorageSnapshot, on_delete=models.CASCADE, related_name="rejections")
    line = models.BigIntegerField()
    reason = models.TextField()
    raw = models.TextField()

    class Meta:
        ordering = ["snapshot", "line"]

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"
