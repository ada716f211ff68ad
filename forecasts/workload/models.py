"""Pre-aggregated job-shape histograms: the workload overview reads these, never the jobs.

One row per cluster x month (UTC, by job end) x department x project x queue x dimension x
bucket x flag, maintained in the same transaction as the jobs (forecasts/workload/services.py
supplies the CTE that forecasts/accounting/load.py runs) and rebuilt from the jobs by
``python manage.py rebuild_workload_rollups``.  Department and project are attributed exactly
as UsageMonthly's (the same ATTRIBUTION_LATERAL, per identity and month).  Keyed by department
rather than identity so that the row count does not grow with jobs or users (a 10-million-job
history stays at a few hundred thousand rows); active users come from UsageMonthly.  After a
mapping change, ``rebuild_workload_rollups --stale`` recomputes the months whose per-department
totals no longer match UsageMonthly.  Dimensions and bucket edges: forecasts/workload/core.py.
"""

from __future__ import annotations

from django.db import models

from forecasts.accounting.models import Cluster, Department, Project


class WorkloadShapeMonthly(models.Model):
    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, db_index=False)
    month = models.DateField()
    department = models.ForeignKey(Department, on_delete=models.PROTECT, related_name="+", db_index=False)
    project = models.ForeignKey(Project, null=True, on_delete=models.PROTECT, related_name="+", db_index=False)
    queue = models.CharField(max_length=120, blank=True)
    dim = models.SmallIntegerField(help_text="1 size, 2 run time, 3 core-hours, 4 request, 5 ratio, 6 wait")
    bucket = models.SmallIntegerField(help_text="bucket index (forecasts/workload/core.py); -1 = value unknown")
    flag = models.SmallIntegerField(default=0, help_text="size: 1 = single node; request: 1 = ran under a day")
    jobs = models.BigIntegerField(default=0)
    core_hours = models.FloatField(default=0)
    node_hours = models.FloatField(default=0)
    wall_hours = models.FloatField(default=0)
    wait_hours = models.FloatField(default=0)
    req_hours = models.FloatField(default=0, help_text="requested wall hours of jobs that had a request")
    max_core_hours = models.FloatField(default=0)
    min_core_hours = models.FloatField(default=0)
    max_wall_s = models.FloatField(default=0)
    min_wall_s = models.FloatField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "month", "department", "project", "queue", "dim", "bucket", "flag"],
                name="workload_shape_key", nulls_distinct=False),
        ]
        indexes = [models.Index(fields=["dim", "month", "cluster"], name="workload_shape_dim_month")]

    def __str__(self) -> str:
        return f"{self.month:%Y-%m} {self.department_id} {self.queue} dim {self.dim} b{self.bucket}: {self.jobs}"
