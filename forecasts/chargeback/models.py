"""Chargeback: rate plans with effective dates, and versioned monthly statements.

A statement prices one department's month.  Its lines carry the usage quantities read
from the monthly rollups (so its core-hours equal UsageMonthly's for that department and
month, exactly) and the money computed per job at the plan's rates (billing TRES x QOS
multiplier, see forecasts/chargeback/rates.py).  Statements are never edited: re-computing
after a rate or mapping change writes a new version and keeps the old one.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from forecasts.accounting.models import Department, Project

MONEY = {"max_digits": 14, "decimal_places": 2}
PRICE = {"max_digits": 12, "decimal_places": 6}


class RatePlan(models.Model):
    """The site's prices from ``effective_from`` on; the plan in force for a month is the one
    with the latest ``effective_from`` on or before the month's first day."""

    name = models.CharField(max_length=120)
    effective_from = models.DateField(unique=True, help_text="first day these rates apply")
    note = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class StorageBetweenScans(models.TextChoices):
        CARRY = "carry", "carry the last scan forward"
        LINEAR = "linear", "interpolate linearly between scans"

    storage_between_scans = models.CharField(
        max_length=6, choices=StorageBetweenScans.choices, default=StorageBetweenScans.CARRY,
        help_text="how a month without a scan of a file system is billed (forecasts/chargeback/months.py)")

    class Meta:
        ordering = ["-effective_from"]

    def __str__(self) -> str:
        return f"{self.name} (from {self.effective_from})"


class ComputeRate(models.Model):
    """Price per core-hour on a cluster and queue/partition; * and ? wildcards allowed."""

    plan = models.ForeignKey(RatePlan, on_delete=models.CASCADE, related_name="compute_rates")
    cluster = models.CharField(max_length=120, default="*", help_text="cluster name or pattern (* = any)")
    queue = models.CharField(max_length=120, default="*", help_text="queue/partition or pattern (* = any)")
    core_hour_usd = models.DecimalField(**PRICE, validators=[MinValueValidator(Decimal(0))])
    gpu_hour_usd = models.DecimalField(**PRICE, null=True, blank=True, validators=[MinValueValidator(Decimal(0))],
                                       help_text="empty: GPUs are not priced on this queue")
    mem_gb_hour_usd = models.DecimalField(**PRICE, null=True, blank=True,
                                          validators=[MinValueValidator(Decimal(0))],
                                          help_text="empty: memory is not priced on this queue")

    class Meta:
        ordering = ["plan", "cluster", "queue"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "cluster", "queue"], name="computerate_one_per_queue"),
            models.CheckConstraint(condition=models.Q(core_hour_usd__gte=0), name="computerate_price_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.cluster}/{self.queue}: ${self.core_hour_usd}/core-hour"


class QosMultiplier(models.Model):
    """Slurm's QOS UsageFactor: 1.5 for high priority, 0 for scavenger; 1 when no rule matches."""

    plan = models.ForeignKey(RatePlan, on_delete=models.CASCADE, related_name="qos_multipliers")
    qos = models.CharField(max_length=120, help_text="QOS name or pattern")
    multiplier = models.DecimalField(max_digits=6, decimal_places=3, validators=[MinValueValidator(Decimal(0))])

    class Meta:
        ordering = ["plan", "qos"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "qos"], name="qosmultiplier_one_per_qos"),
            models.CheckConstraint(condition=models.Q(multiplier__gte=0), name="qosmultiplier_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.qos} x{self.multiplier}"


class StorageRate(models.Model):
    plan = models.ForeignKey(RatePlan, on_delete=models.CASCADE, related_name="storage_rates")
    filesystem = models.CharField(max_length=120, default="*", help_text="file system name or pattern")
    tier = models.CharField(max_length=60, default="*", help_text="tier (e.g. flash, disk, archive) or *")
    tb_month_usd = models.DecimalField(**PRICE, validators=[MinValueValidator(Decimal(0))],
                                       help_text="price per decimal TB held for a month")

    class Meta:
        ordering = ["plan", "filesystem", "tier"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "filesystem", "tier"], name="storagerate_one_per_tier"),
        ]

    def __str__(self) -> str:
        return f"{self.filesystem}/{self.tier}: ${self.tb_month_usd}/TB-month"


class DepartmentAdjustment(models.Model):
    """A department's subsidy (percent off) and/or monthly cap, under a plan."""

    plan = models.ForeignKey(RatePlan, on_delete=models.CASCADE, related_name="adjustments")
    department = models.ForeignKey(Department, on_delete=models.CASCADE, related_name="chargeback_adjustments")
    subsidy_percent = models.DecimalField(max_digits=5, decimal_places=2, default=Decimal(0),
                                          validators=[MinValueValidator(Decimal(0)), MaxValueValidator(Decimal(100))])
    cap_usd = models.DecimalField(**MONEY, null=True, blank=True, help_text="monthly cap in dollars; empty = none")
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["plan", "department"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "department"], name="adjustment_one_per_department"),
            models.CheckConstraint(condition=models.Q(subsidy_percent__gte=0, subsidy_percent__lte=100),
                                   name="adjustment_percent_range"),
        ]

    def __str__(self) -> str:
        return f"{self.department}: {self.subsidy_percent}% subsidy, cap {self.cap_usd or '-'}"


class Statement(models.Model):
    """One department's charges for one month, one version.  The latest version is current."""

    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="statements")
    month = models.DateField(help_text="first day of the month (UTC calendar month by job end)")
    version = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    plan = models.ForeignKey(RatePlan, null=True, on_delete=models.SET_NULL, related_name="statements")
    plan_name = models.CharField(max_length=200, blank=True, help_text="kept if the plan is deleted later")
    computed_at = models.DateTimeField(auto_now_add=True)
    computed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    reason = models.CharField(max_length=200, blank=True)
    fingerprint = models.CharField(max_length=64, help_text="hash of the lines; equal = nothing changed")
    jobs = models.BigIntegerField(default=0)
    core_hours = models.FloatField(default=0, help_text="sum of UsageMonthly.core_hours (exact reconciliation)")
    gpu_hours = models.FloatField(default=0)
    storage_tb = models.FloatField(default=0)
    compute_usd = models.DecimalField(**MONEY, default=Decimal(0))
    storage_usd = models.DecimalField(**MONEY, default=Decimal(0))
    subsidy_usd = models.DecimalField(**MONEY, default=Decimal(0))
    cap_usd = models.DecimalField(**MONEY, default=Decimal(0))
    total_usd = models.DecimalField(**MONEY, default=Decimal(0))
    notes = models.JSONField(default=list, blank=True, help_text="what a reader must know (missing scans, rates)")
    _logs_partial: dict[date, datetime]  # logs_partial_months(), read once (see logs_end)

    class Meta:
        ordering = ["-month", "department__name", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["department", "month", "version"], name="statement_version_unique"),
            models.UniqueConstraint(fields=["department", "month"], condition=models.Q(is_current=True),
                                    name="statement_one_current"),
        ]
        indexes = [
            # the month overview: current statements of a month
            models.Index(fields=["month", "is_current"], name="statement_month_current"),
        ]

    def __str__(self) -> str:
        return f"{self.department} {self.month:%Y-%m} v{self.version}"

    @property
    def logs_end(self) -> datetime | None:
        """When the accounting logs end, if they end inside this statement's month (None: they cover it
        whole); the one rule is forecasts.accounting.selectors.logs_partial_months (any cluster's logs ending
        inside the month), read once per statement (``statements_logs_end`` reads it once for a list)."""
        if not hasattr(self, "_logs_partial"):
            from forecasts.accounting.selectors import logs_partial_months

            self._logs_partial = logs_partial_months()
        return self._logs_partial.get(self.month)

    @property
    def in_progress(self) -> bool:
        """The month is still in progress: its usage and scans are still coming in."""
        from django.utils import timezone

        from forecasts.chargeback.months import is_provisional

        return is_provisional(self.month, timezone.now().date())

    @property
    def is_provisional(self) -> bool:
        """Its figures will still change: the month is in progress, or the logs end inside it."""
        return self.logs_end is not None or self.in_progress

    @property
    def provisional_reason(self) -> str:
        """Why the statement is provisional ('' when it is final), in the words every surface uses."""
        from forecasts.chargeback.months import logs_end_words

        if (end := self.logs_end) is not None:
            return logs_end_words(end)
        return "the month is in progress" if self.in_progress else ""

    @property
    def adjustments_usd(self) -> Decimal:
        """Subsidy plus cap (both zero or negative)."""
        return self.subsidy_usd + self.cap_usd

    def summary(self) -> dict[str, object]:
        return {
            "id": self.pk, "department": self.department.code, "month": f"{self.month:%Y-%m}",
            "version": self.version, "is_current": self.is_current, "provisional": self.is_provisional,
            "provisional_reason": self.provisional_reason,
            "jobs": self.jobs,
            "core_hours": self.core_hours, "gpu_hours": self.gpu_hours, "storage_tb": self.storage_tb,
            "compute_usd": str(self.compute_usd), "storage_usd": str(self.storage_usd),
            "subsidy_usd": str(self.subsidy_usd), "cap_usd": str(self.cap_usd),
            "total_usd": str(self.total_usd),
        }


def statements_logs_end(statements: Iterable[Statement]) -> list[Statement]:
    """The statements, each knowing where the logs end from one read (not one read per statement)."""
    from forecasts.accounting.selectors import logs_partial_months

    rows = list(statements)
    partial = logs_partial_months() if rows else {}
    for statement in rows:
        statement._logs_partial = partial
    return rows


class StatementLine(models.Model):
    """A priced line: compute per cluster x queue x QOS x project x user, storage per file system
    and tier, or an adjustment (subsidy, cap).  The statement total is the sum of its lines."""

    class Kind(models.TextChoices):
        COMPUTE = "compute"
        STORAGE = "storage"
        SUBSIDY = "subsidy"
        CAP = "cap"

    statement = models.ForeignKey(Statement, on_delete=models.CASCADE, related_name="lines")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.SET_NULL)
    project_name = models.CharField(max_length=200, blank=True)
    pi = models.CharField(max_length=200, blank=True)
    user = models.CharField(max_length=120, blank=True)
    cluster = models.CharField(max_length=120, blank=True)
    queue = models.CharField(max_length=120, blank=True)
    qos = models.CharField(max_length=120, blank=True)
    filesystem = models.CharField(max_length=120, blank=True)
    tier = models.CharField(max_length=60, blank=True)
    jobs = models.BigIntegerField(default=0)
    core_hours = models.FloatField(default=0)
    gpu_hours = models.FloatField(default=0)
    mem_gb_hours = models.FloatField(default=0)
    tb = models.FloatField(default=0)
    rate = models.CharField(max_length=200, blank=True, help_text="the prices applied, for the reader")
    multiplier = models.DecimalField(max_digits=6, decimal_places=3, default=Decimal(1))
    amount_usd = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["statement", "kind", "-amount_usd", "pk"]

    def __str__(self) -> str:
        return f"{self.kind} {self.user or self.filesystem}: {self.amount_usd}"


class StatementJob(models.Model):
    """The statement's largest jobs by charge, for the drill-down."""

    statement = models.ForeignKey(Statement, on_delete=models.CASCADE, related_name="top_jobs")
    cluster = models.CharField(max_length=120)
    job_id = models.CharField(max_length=80)
    user = models.CharField(max_length=120)
    project_name = models.CharField(max_length=200, blank=True)
    queue = models.CharField(max_length=120, blank=True)
    qos = models.CharField(max_length=120, blank=True)
    cores = models.IntegerField(default=0)
    gpus = models.IntegerField(default=0)
    wall_hours = models.FloatField(default=0)
    core_hours = models.FloatField(default=0)
    amount_usd = models.DecimalField(**MONEY)

    class Meta:
        ordering = ["statement", "-amount_usd"]

    def __str__(self) -> str:
        return f"{self.cluster}:{self.job_id} {self.amount_usd}"
