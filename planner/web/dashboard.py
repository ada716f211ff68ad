"""What the dashboard shows: one status line per area and the headline figures, scoped to the user.

Selectors only (reads); each is one or two aggregate queries on rollups or small tables,
so the dashboard stays fast whatever the number of jobs.
"""

from __future__ import annotations

import operator
from functools import reduce
from typing import Any

from django.db import connection
from django.db.models import Count, Max, Q, Sum

from forecasts.accounting.models import Cluster, Department
from forecasts.accounting.selectors import logs_partial_by_cluster, logs_partial_months
from forecasts.chargeback.models import Statement
from forecasts.demand.growth.calendar import add_months
from forecasts.demand.horizon import whole_forecast_years
from forecasts.demand.models import ForecastFit
from forecasts.storage.models import StorageSnapshot
from forecasts.units import YEAR_AGGREGATE
from forecasts.usage.cache import rollup_cached
from forecasts.usage.selectors import usage_filtered
from planner.designs.services import design_latest_versions
from planner.hardware.models import Benchmark, NodeType, StorageSystem
from planner.reports.models import GrantReport
from planner.roles import scope_by_department, sees_everything


@rollup_cached
def headline(user: Any) -> dict[str, Any]:
    """Jobs, core-hours and users of the last 12 whole months with usage, for the user's departments.

    Each cluster's own last 12 whole months: one cluster whose logs end years after another's (a new
    cluster, a late export) must not push the other out of the window, nor one's partial month read as
    another's whole one. ``windows`` names each cluster's months when they differ. The growth compares
    each cluster's window with its 12 months before, over the clusters that have usage then."""
    visible = usage_filtered(user=user)
    ids = set(visible.order_by().values_list("cluster_id", flat=True).distinct())
    partial_by = logs_partial_by_cluster(ids)
    whole = visible.exclude(reduce(operator.or_, (Q(cluster_id=c, month__gte=p[0]) for c, p in partial_by.items()),
                                   Q(pk__in=[])))
    lasts = dict(whole.order_by().values("cluster_id").annotate(m=Max("month")).values_list("cluster_id", "m"))
    names = dict(Cluster.objects.filter(pk__in=lasts).values_list("pk", "name"))
    current, before, windows = Q(pk__in=[]), Q(pk__in=[]), []
    for cid in sorted(lasts, key=lambda c: names[c]):
        last = lasts[cid]
        since = add_months(last, -11)
        windows.append({"cluster": names[cid], "since": since, "through": last})
        current |= Q(cluster_id=cid, month__gte=since, month__lte=last)
        before |= Q(cluster_id=cid, month__gte=add_months(last, -23), month__lt=since)
    if not windows:
        return {}
    year = visible.filter(current).aggregate(
        jobs=Sum("jobs"), core_hours=Sum("core_hours"), users=Count("identity__user", distinct=True))
    prior = visible.filter(before).values("cluster_id").annotate(c=Sum("core_hours"))
    with_prior = {r["cluster_id"]: r["c"] for r in prior if r["c"]}
    now = visible.filter(current, cluster_id__in=with_prior).aggregate(c=Sum("core_hours"))["c"] or 0
    growth = (now / sum(with_prior.values()) - 1) if with_prior else None
    partials = logs_partial_months(ids)  # each month once, with its earliest end
    partial = next(iter(partials.items()), None)
    same = len({(w["since"], w["through"]) for w in windows}) == 1
    return {"since": min(w["since"] for w in windows), "through": max(w["through"] for w in windows),
            "jobs": year["jobs"] or 0, "core_hours": year["core_hours"] or 0, "users": year["users"] or 0,
            "growth": growth, "windows": [] if same else windows, "partials": tuple(partials.items()),
            "partial_month": partial[0] if partial else None, "logs_end": partial[1] if partial else None}


@rollup_cached
def usage_totals(user: Any) -> dict[str, Any]:
    """Jobs and clusters of all the usage the user sees (a scan of the rollups: cached until they change)."""
    return usage_filtered(user=user).aggregate(jobs=Sum("jobs"), clusters=Count("cluster", distinct=True))


def row_counts(*models: Any) -> list[int]:
    """How many rows each model's table has, in one statement (the dashboard's area lines)."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f"(SELECT count(*) FROM {quote(m._meta.db_table)})" for m in models))
        return [int(n) for n in cursor.fetchone()]


def chargeback_status(user: Any) -> dict[str, str]:
    """The latest whole month's statements: a month the logs end inside is billed so far, not comparable with
    whole months, so the card quotes the month before and names the partial one (as the headline figures)."""
    statements = scope_by_department(Statement.objects.filter(is_current=True), user)
    partials = logs_partial_months()
    whole = statements.exclude(month__in=list(partials))
    latest = whole.aggregate(m=Max("month"))["m"]
    if not latest:
        return {}
    bucket = Q(department__code=Department.UNASSIGNED_CODE)  # billed, but a bucket, not a department
    month = whole.filter(month=latest).aggregate(t=Sum("total_usd"), n=Count("pk", filter=~bucket),
                                                 u=Count("pk", filter=bucket))
    line = (f"{latest:%B %Y}: ${month['t'] or 0:,.2f} across {month['n']} department statement"
            f"{'s' if month['n'] != 1 else ''}{' + Unassigned' if month['u'] else ''}")
    later = [(m, end) for m, end in partials.items() if m > latest and statements.filter(month=m).exists()]
    for m, end in later[-1:]:
        line += f" ({m:%B %Y} so far: partial, the logs end {end:%-d %B})"
    return {"chargeback": line}


def area_status(user: Any) -> dict[str, str]:
    """One line per area saying what is there (the area card shows it under its question)."""
    status: dict[str, str] = {}
    usage = usage_totals(user)
    snapshots, node_types, storage_systems, benchmarks, reports = row_counts(
        StorageSnapshot, NodeType, StorageSystem, Benchmark, GrantReport)
    if usage["jobs"]:
        status["usage"] = (f"{usage['jobs']:,} jobs from {usage['clusters']} cluster"
                           f"{'s' if usage['clusters'] != 1 else ''}; {snapshots} storage scan"
                           f"{'s' if snapshots != 1 else ''}")
    status |= chargeback_status(user)
    if not sees_everything(user):
        return status
    fits = (ForecastFit.objects.filter(metric=ForecastFit.Metric.CORE_HOURS, external_series__isnull=True)
            .order_by("-created_at")
            .select_related("cluster", "department", "exclude_department", "external_series")
            .defer("result", "values", "errors", "options"))  # the series label and yearly rows only
    # the whole site's series when there is one, else the latest of any
    fit = fits.filter(department__isnull=True, exclude_department__isnull=True).first() or fits.first()
    if fit is not None and fit.yearly:
        where = fit.series_label.removesuffix(f" / {fit.get_metric_display()}")  # the units say the metric
        status["forecasts"] = forecast_status(where, fit.yearly, metric=fit.metric)
    # the card asks "how much compute and storage": the newest storage forecast too (every file system together)
    storage = (ForecastFit.objects.filter(metric=ForecastFit.Metric.STORAGE_PB).order_by("-created_at")
               .defer("result", "values", "errors", "options").first())
    if storage is not None and storage.yearly:
        line = forecast_status("all file systems", storage.yearly, metric=storage.metric)
        status["forecasts"] = f"{status['forecasts']}; {line}" if status.get("forecasts") else line
    if node_types:
        status["hardware"] = f"{node_types} node types, {storage_systems} storage systems, {benchmarks} benchmarks"
    # as the designs page lists them: one row per design, its latest version (older versions are history)
    designs = design_latest_versions().count()
    if designs:
        status["designs"] = f"{designs} design{'s' if designs != 1 else ''}"
    if reports:
        status["reports"] = f"{reports} report version{'s' if reports != 1 else ''}"
    return status


# How a year's figure reads: the metric's unit, then how its months make the year (forecasts.units.YEAR_AGGREGATE)
YEAR_UNIT = {"core_hours": "core-hours", "jobs": "jobs", "storage_pb": "PB stored", "active_users": "active users"}
YEAR_HOW = {"sum": "in total", "last": "at year end", "mean": "a month on average"}


def _amount(value: float, scale: float) -> str:
    if scale >= 1e6:
        return f"{value / 1e6:,.1f} M"
    if scale >= 1e3:
        return f"{value / 1e3:,.1f} k"
    return f"{value:,.3g}" if scale < 10 else f"{value:,.0f}"


def forecast_status(label: str, yearly: list[dict[str, Any]], *, metric: str = "core_hours") -> str:
    """The dashboard's forecast line: the last forecast year that is a whole year (12 months
    observed + forecast), said to be the year's figure (a total for core-hours and jobs, the year-end
    stock for storage) in the metric's units; a part year is never quoted as a year's total."""
    future = [y for y in yearly if y.get("periods_forecast")]
    whole = whole_forecast_years(yearly)
    if whole:
        row = whole[-1]
        unit = YEAR_UNIT.get(metric, metric)
        how = YEAR_HOW.get(YEAR_AGGREGATE.get(metric, ""), "")
        scale = abs(row["median"])
        low, high = _amount(row["p10"], scale), _amount(row["p90"], scale)
        if low.endswith((" M", " k")):
            low = low[:-2]  # "28.2–44.3 M": one multiplier for the range
        return (f"{label}: {row['year']} (whole year): {_amount(row['median'], scale)} {unit} {how}, "
                f"80% range {low}–{high}")
    if future:
        row = future[-1]
        months = row.get("periods_observed", 0) + row["periods_forecast"]
        return (f"{label}: no whole forecast year yet ({row['year']} is a part year: {months} of 12 months); "
                "forecast further ahead for a yearly figure")
    return f"{label}: no forecast months"


def visible_departments(user: Any) -> Any:
    """All the departments the user sees, the Unassigned bucket (usage not yet mapped) included."""
    return scope_by_department(Department.objects.all(), user, field="id")


def named_departments(departments: Any) -> list[Any]:
    """The real departments among ``departments``: the Unassigned bucket is not one (the demo and the
    organisation file count departments without it)."""
    return [d for d in departments if d.code != Department.UNASSIGNED_CODE]
