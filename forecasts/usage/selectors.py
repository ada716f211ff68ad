"""Reads of usage: QuerySet shapes used by pages, the API, exports and commands alike.

Every selector takes the requesting user (or None for trusted callers such as
commands) and scopes rows through planner.roles, so no caller can forget to.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.db.models import Count, Max, Min, Q, Sum

from forecasts.accounting.models import Cluster, Department, UsageMonthly
from forecasts.accounting.selectors import logs_first_part_months, logs_partial_month, logs_partial_months
from forecasts.usage.cache import rollup_cached
from planner.roles import scope_by_department


def usage_filtered(*, user: Any = None, cluster: str | None = None, queue: str | None = None,
                   department: str | None = None, start: date | None = None, end: date | None = None) -> Any:
    """UsageMonthly rows the user may see, narrowed by the usual filters (department by code)."""
    rows = UsageMonthly.objects.all()
    if user is not None:
        rows = scope_by_department(rows, user)
    if cluster:
        rows = rows.filter(cluster__name=cluster)
    if queue:
        rows = rows.filter(queue=queue)
    if department:
        rows = rows.filter(department__code=department)
    if start:
        rows = rows.filter(month__gte=start.replace(day=1))
    if end:
        rows = rows.filter(month__lte=end)
    return rows


@rollup_cached
def usage_monthly_by_department(**filters: Any) -> list[dict[str, Any]]:
    """Monthly core-hours, jobs and active users per department over the filtered history."""
    rows = (
        usage_filtered(**filters)
        .values("month", "department__code", "department__name")
        .annotate(core_hours=Sum("core_hours"), jobs=Sum("jobs"), users=Count("identity__user", distinct=True))
        .order_by("month", "department__name")
    )
    return list(rows)


@rollup_cached
def usage_kpis(**filters: Any) -> dict[str, Any]:
    """Jobs, core-hours, users, departments and the first and last month of the filtered usage."""
    agg = usage_filtered(**filters).aggregate(
        jobs=Sum("jobs"), core_hours=Sum("core_hours"), users=Count("identity__user", distinct=True),
        # 'Unassigned' is a bucket, not a department: counted as the dashboard and chargeback count
        departments=Count("department", distinct=True, filter=~Q(department__code=Department.UNASSIGNED_CODE)),
        first=Min("month"), last=Max("month"),
    )
    return {k: (v or 0) if k not in ("first", "last") else v for k, v in agg.items()}


@rollup_cached
def usage_choices(*, user: Any) -> dict[str, Any]:
    """What the usage filters offer the user: whether any usage is visible, its queues and cluster ids."""
    visible = usage_filtered(user=user)
    queues = sorted(q for q in visible.values_list("queue", flat=True).distinct() if q)
    return {"any": visible.exists(), "queues": queues,
            "cluster_ids": sorted(visible.values_list("cluster_id", flat=True).distinct())}


@rollup_cached
def usage_queue_names(*, user: Any) -> list[str]:
    """Every queue with usage, all departments' (the workload page's queue filter: a queue is the
    cluster's, not a department's); a scan of the rollups, so cached until they change."""
    return list(UsageMonthly.objects.order_by("queue").values_list("queue", flat=True).distinct())


@rollup_cached
def usage_months(*, user: Any) -> list[date]:
    """Every month with usage, all departments', oldest first (what a planner may price: the chargeback
    page's month picker); a scan of the rollups, so cached until they change."""
    return sorted(UsageMonthly.objects.order_by("-month").values_list("month", flat=True).distinct())


def partial_months(cluster: str | None, clusters: Any) -> tuple[tuple[date, datetime], ...]:
    """The months the accounting logs end inside, as (month, logs' end), oldest first: the named cluster's, or
    with every cluster (``cluster`` blank) each of ``clusters``' own, so one cluster's logs ending later does
    not make another's part month read as whole (the usage page; the dashboard's chart too).
    Two clusters ending inside one month: its earlier end."""
    if cluster:
        found = logs_partial_month(cluster_name=cluster)
        return (found,) if found else ()
    return tuple(logs_partial_months([c.pk for c in clusters]).items())


def usage_partial_months(*, user: Any, cluster: str | None) -> dict[date, datetime]:
    """Month -> the logs' end, for the months the logs end inside among the clusters the user's usage is on
    (or the named cluster): what the CSV and the API mark as usage so far, as the page draws them apart."""
    clusters = Cluster.objects.filter(id__in=usage_choices(user=user)["cluster_ids"])
    return dict(partial_months(cluster, clusters))


def usage_first_part_months(*, user: Any, cluster: str | None) -> dict[date, datetime]:
    """Month -> the logs' start, for the months the logs begin inside (the named cluster's, or each cluster's
    the user's usage is on): part months, whose usage starts on that day."""
    clusters = Cluster.objects.filter(name=cluster) if cluster else Cluster.objects.filter(
        id__in=usage_choices(user=user)["cluster_ids"])
    return logs_first_part_months([c.pk for c in clusters])
