"""The organisation (institution, departments, projects), clusters, scheduler identities and
their attribution, ingest runs, jobs and monthly rollups.

Attribution: a job belongs to an Identity (user, group, account as the scheduler wrote
them).  Which project and department an identity's usage counts for is decided by
dated IdentityMapping rows, resolved per month into UsageMonthly.  Adding or changing a
mapping re-attributes the rollups (small) in SQL; jobs are never re-read or rewritten.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import BrinIndex
from django.db import models

# ---- The organisation: the institution, its departments and projects (PI groups) ----


class Institution(models.Model):
    """The site using the product (one row; its name heads every page and report)."""

    name = models.CharField(max_length=200)
    short_name = models.CharField(max_length=40, blank=True)
    timezone = models.CharField(max_length=64, default="UTC", help_text="Zone of local times in logs")

    def __str__(self) -> str:
        return self.name

    @classmethod
    def current(cls) -> Institution | None:
        return cls.objects.order_by("pk").first()


class Department(models.Model):
    UNASSIGNED = "Unassigned"
    UNASSIGNED_CODE = "unassigned"  # the bucket of usage no mapping attributes yet: not a department

    name = models.CharField(max_length=200, unique=True)
    code = models.SlugField(max_length=40, unique=True)
    viewers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="viewable_departments",
        help_text="Department viewers who may see this department's usage and chargeback",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Project(models.Model):
    """A PI group or allocation; belongs to one department."""

    name = models.CharField(max_length=200, unique=True)
    pi = models.CharField("principal investigator", max_length=200, blank=True)
    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="projects")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Cluster(models.Model):
    name = models.SlugField(max_length=60, unique=True)
    description = models.CharField(max_length=200, blank=True)
    timezone = models.CharField(max_length=64, default="UTC", help_text="Zone of local times in its logs")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ClusterCapacity(models.Model):
    """The cluster's size from a date on (capacity changes are dated: expansions, retirements)."""

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="capacities")
    effective_from = models.DateField()
    cores = models.PositiveIntegerField()
    nodes = models.PositiveIntegerField(default=0)
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["cluster", "effective_from"]
        constraints = [
            models.UniqueConstraint(fields=["cluster", "effective_from"], name="capacity_one_per_date"),
        ]

    def __str__(self) -> str:
        return f"{self.cluster}: {self.cores} cores from {self.effective_from}"


class Identity(models.Model):
    """A (user, group, account) triple as the scheduler wrote it: the unit of attribution."""

    user = models.CharField(max_length=120)
    group = models.CharField(max_length=120, blank=True)
    account = models.CharField(max_length=120, blank=True)

    class Meta:
        verbose_name_plural = "identities"
        constraints = [
            models.UniqueConstraint(fields=["user", "group", "account"], name="identity_unique_triple"),
        ]

    def __str__(self) -> str:
        return f"{self.user}/{self.group or '-'}/{self.account or '-'}"


class IdentityMapping(models.Model):
    """Scheduler user, group or account -> project and department, valid over a date range.

    Precedence when several match a job's identity in a month: account, then user, then
    group; among the same kind, the most recent valid_from.  People move: end one row's
    validity and start another rather than editing history.
    """

    class Kind(models.TextChoices):
        ACCOUNT = "account"
        USER = "user"
        GROUP = "group"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    name = models.CharField(max_length=120, help_text="the scheduler's user, group or account name")
    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="mappings")
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.PROTECT, related_name="mappings")
    valid_from = models.DateField(default="1970-01-01")
    valid_to = models.DateField(null=True, blank=True, help_text="last day this mapping applies; empty = open")
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["kind", "name", "valid_from"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "name", "valid_from"], name="mapping_one_per_start"),
            models.CheckConstraint(
                condition=models.Q(valid_to__isnull=True) | models.Q(valid_to__gte=models.F("valid_from")),
                name="mapping_valid_range",
            ),
        ]
        indexes = [models.Index(fields=["name", "kind"], name="mapping_name_kind")]  # attribution lookup

    def __str__(self) -> str:
        return f"{self.kind} {self.name} -> {self.department} ({self.valid_from}..{self.valid_to or ''})"


class IngestRun(models.Model):
    """One load of accounting files: who, when, what, and counts that always add up.

    records_read == jobs_ingested + duplicates + skipped + rejected.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        COMPLETED = "completed"
        NOTHING_LOADED = "empty", "nothing loaded"  # it ran to the end, but no record was stored
        FAILED = "failed"

    cluster = models.ForeignKey(Cluster, on_delete=models.PROTECT, related_name="ingest_runs")
    format = models.CharField(max_length=20)
    timezone = models.CharField(max_length=64, default="UTC")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    source = models.CharField(max_length=20, default="command", help_text="command, upload or api")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(default=0)
    records_read = models.BigIntegerField(default=0)
    jobs_ingested = models.BigIntegerField(default=0)
    duplicates = models.BigIntegerField(default=0)
    skipped = models.BigIntegerField(default=0)
    rejected = models.BigIntegerField(default=0)
    skipped_reasons = models.JSONField(default=dict, blank=True)
    names_cut = models.BigIntegerField(
        default=0, help_text="records whose job name was cut to 1,024 characters (the jobs are stored; "
                             "forecasts.accounting.parsers.records.NAME_MAX_CHARS)")
    core_hours = models.FloatField(default=0, help_text="allocated cores x wall hours of the jobs this run stored")
    first_start = models.DateTimeField(null=True, blank=True)
    last_end = models.DateTimeField(null=True, blank=True)
    checkpoint = models.JSONField(default=dict, blank=True, help_text="records committed per file, for resuming")
    error = models.TextField(blank=True)
    background_job = models.ForeignKey("planner.BackgroundJob", null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(
                    records_read=models.F("jobs_ingested") + models.F("duplicates") + models.F("skipped")
                    + models.F("rejected")
                ),
                name="ingestrun_counts_add_up",
            ),
        ]

    def __str__(self) -> str:
        return f"ingest #{self.pk} {self.cluster} {self.format} ({self.status})"

    def summary(self) -> dict[str, object]:
        """The JSON summary printed by the command and returned by the API."""
        return {
            "run": self.pk,
            "status": self.status,
            "cluster": self.cluster.name,
            "format": self.format,
            "files": [f.name for f in self.files.all()],
            "records_read": self.records_read,
            "jobs_ingested": self.jobs_ingested,
            "duplicates": self.duplicates,
            "skipped": self.skipped,
            "rejected": self.rejected,
            "skipped_reasons": self.skipped_reasons,
            "names_cut": self.names_cut,
            "core_hours": round(self.core_hours, 4),
            "first_start": self.first_start.isoformat() if self.first_start else None,
            "last_end": self.last_end.isoformat() if self.last_end else None,
            "seconds": round(self.seconds, 3),
            "error": self.error or None,
        }


class IngestFile(models.Model):
    run = models.ForeignKey(IngestRun, on_delete=models.CASCADE, related_name="files")
    position = models.PositiveIntegerField(default=0)
    name = models.CharField(max_length=500)
    path = models.CharField(max_length=1000, help_text="where the run reads it (kept for resuming)")
    size_bytes = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)

    class Meta:
        ordering = ["run", "position"]

    def __str__(self) -> str:
        return self.name


class IngestRejection(models.Model):
    """A record that could not be parsed: kept whole, with where and why."""

    run = models.ForeignKey(IngestRun, on_delete=models.CASCADE, related_name="rejections")
    file = models.ForeignKey(IngestFile, on_delete=models.CASCADE, related_name="rejections")
    line = models.BigIntegerField()
    reason = models.TextField()
    raw = models.TextField()

    class Meta:
        ordering = ["run", "file", "line"]

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


class Job(models.Model):
    """A finished job.  Loaded only by COPY (forecasts/accounting/load.py), never row by row.

    The foreign keys carry no database constraint: the loader writes cluster, identity and
    run ids it has just created or read in the same transaction, and PostgreSQL's per-row
    referential-integrity triggers would otherwise cost more than the insert itself
    (three lookups per job at commit, ~30 us each: more than half the load time).
    """

    cluster = models.ForeignKey(Cluster, on_delete=models.PROTECT, db_index=False, db_constraint=False)
    job_id = models.CharField(max_length=64)
    array_index = models.IntegerField(default=-1)
    submit = models.DateTimeField(null=True)
    identity = models.ForeignKey(Identity, on_delete=models.PROTECT, db_index=False, db_constraint=False)
    queue = models.CharField(max_length=120, blank=True)
    qos = models.CharField(max_length=120, blank=True)
    eligible = models.DateTimeField(null=True)
    start = models.DateTimeField(null=True)
    end = models.DateTimeField(null=True)
    cores = models.IntegerField()
    nodes = models.IntegerField()
    gpus = models.IntegerField(default=0)
    req_mem_mb = models.FloatField(null=True)
    used_mem_mb = models.FloatField(null=True)
    req_walltime_s = models.BigIntegerField(null=True)
    cpu_time_s = models.FloatField(null=True)
    exit_status = models.IntegerField(null=True)
    state = models.CharField(max_length=32, blank=True)
    node_list = models.TextField(blank=True)
    name = models.TextField(blank=True)
    wall_s = models.FloatField(help_text="end - start in seconds")
    core_hours = models.FloatField(help_text="allocated cores x wall hours")
    # runs are kept for traceability; DO_NOTHING spares a scan of all jobs if one is deleted
    ingest_run = models.ForeignKey(IngestRun, null=True, on_delete=models.DO_NOTHING, db_index=False,
                                   db_constraint=False)

    class Meta:
        constraints = [
            # Idempotent ingestion: the same job loaded twice is a duplicate, not a second row.
            models.UniqueConstraint(
                fields=["cluster", "job_id", "array_index", "submit"], name="job_natural_key",
                nulls_distinct=False,
            ),
        ]
        indexes = [
            # Workload characterisation and chargeback read a cluster's jobs by period.  Jobs
            # arrive roughly in end order, so a BRIN index (a few pages for millions of rows)
            # finds a month's blocks; a B-tree here cost a fifth of each batch's insert time.
            BrinIndex(fields=["cluster", "end"], name="job_cluster_end_brin"),
        ]

    def __str__(self) -> str:
        suffix = f"_{self.array_index}" if self.array_index >= 0 else ""
        return f"{self.cluster_id}:{self.job_id}{suffix}"


class UsageMonthly(models.Model):
    """Monthly usage per cluster x identity x queue, attributed to a department and project.

    Months are calendar months in UTC by the job's end time.  Every usage question
    (monthly core-hours by department over all history, chargeback) is answered here.
    """

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, db_index=False)
    month = models.DateField()
    identity = models.ForeignKey(Identity, on_delete=models.PROTECT)
    queue = models.CharField(max_length=120, blank=True)
    qos = models.CharField(max_length=120, blank=True)
    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="usage")
    project = models.ForeignKey(Project, null=True, on_delete=models.PROTECT, related_name="usage")
    jobs = models.BigIntegerField(default=0)
    core_hours = models.FloatField(default=0)
    cpu_hours = models.FloatField(default=0, help_text="consumed CPU time, where the format has it")
    gpu_hours = models.FloatField(default=0)
    node_hours = models.FloatField(default=0)
    wall_hours = models.FloatField(default=0)
    wait_hours = models.FloatField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["cluster", "month", "identity", "queue", "qos"], name="usage_rollup_key"),
        ]
        indexes = [
            # monthly core-hours by department over all history
            models.Index(fields=["department", "month"], name="usage_department_month"),
            models.Index(fields=["month"], name="usage_month"),
        ]

    def __str__(self) -> str:
        return f"{self.month:%Y-%m} {self.identity_id} {self.queue}: {self.core_hours:.1f} core-hours"
