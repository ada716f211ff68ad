"""Reads about what the accounting logs cover (Django selectors; used by usage series and charts, the
workload report, the dashboard and chargeback)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta

from django.db.models import Max, Min

from forecasts.accounting.models import Cluster, IngestRun
from forecasts.accounting.parsers.compression import TOO_LONG, TRUNCATED


def logs_end(cluster: Cluster | None = None, *, cluster_name: str | None = None) -> datetime | None:
    """Where the accounting logs end: the latest completed load's last job end (None before any load).
    ``cluster`` (or ``cluster_name``): that cluster's logs only; neither: all clusters'."""
    runs = IngestRun.objects.filter(status=IngestRun.Status.COMPLETED)
    if cluster is not None:
        runs = runs.filter(cluster=cluster)
    elif cluster_name:
        runs = runs.filter(cluster__name=cluster_name)
    return runs.aggregate(m=Max("last_end"))["m"]


def _partial(latest_end: datetime | None) -> tuple[date, datetime] | None:
    """(the month, the end) when logs ending at ``latest_end`` end inside a month; None when they reach its last
    day or there is no load."""
    if latest_end is None or (latest_end.date() + timedelta(days=1)).day == 1:
        return None
    return latest_end.date().replace(day=1), latest_end


def logs_partial_month(cluster: Cluster | None = None, *, cluster_name: str | None = None
                       ) -> tuple[date, datetime] | None:
    """The month the accounting logs end inside (e.g. exported on the 6th), with the logs' end,
    or None when the latest completed load reaches its month's last day. Its figures are usage so
    far, not comparable with whole months: forecasts leave it out, the pages draw it apart and say so.
    ``cluster`` (or ``cluster_name``): that cluster's logs only; neither: all clusters'."""
    return _partial(logs_end(cluster, cluster_name=cluster_name))


def _bounds(cluster_ids: Iterable[int] | None) -> dict[int, tuple[datetime | None, datetime | None]]:
    """Each cluster's logs: (its earliest loaded job's start, its latest job's end) over its completed loads;
    ``cluster_ids``: those clusters only. One query, the one every reading of where logs begin and end makes."""
    runs = IngestRun.objects.filter(status=IngestRun.Status.COMPLETED)
    if cluster_ids is not None:
        runs = runs.filter(cluster_id__in=list(cluster_ids))
    rows = runs.order_by().values("cluster_id").annotate(a=Min("first_start"), b=Max("last_end"))
    return {r["cluster_id"]: (r["a"], r["b"]) for r in rows}


def logs_bounds(cluster: Cluster) -> tuple[datetime | None, datetime | None]:
    """Where ``cluster``'s logs begin and end: (its earliest loaded job's start, its latest job's end) over its
    completed loads, the rule every reading of the logs' extent follows (a failed load's partial jobs do not
    move it); (None, None) before any completed load. One query."""
    return _bounds([cluster.pk]).get(cluster.pk, (None, None))


def logs_ends_by_cluster() -> dict[int, datetime | None]:
    """Each cluster's logs' end (``logs_end`` of that cluster) for every cluster with a completed load; the
    latest of them is ``logs_end()``. One query, for a list of many clusters' fits."""
    return {cid: end for cid, (_, end) in _bounds(None).items()}


def logs_partial_by_cluster(cluster_ids: Iterable[int] | None = None) -> dict[int, tuple[date, datetime]]:
    """Each cluster's partial month (``logs_partial_month`` of that cluster), for the clusters whose logs end
    inside a month; ``cluster_ids``: those clusters only. One query for every cluster."""
    return {cid: found for cid, (_, end) in _bounds(cluster_ids).items() if (found := _partial(end)) is not None}


def logs_month_spans(cluster_ids: Iterable[int] | None = None) -> dict[int, tuple[date, date]]:
    """Each cluster's first and last month of logs (the months its earliest loaded job started and its latest
    ended in), for the clusters with a completed load; ``cluster_ids``: those clusters only. One query."""
    return {cid: (a.date().replace(day=1), b.date().replace(day=1))
            for cid, (a, b) in _bounds(cluster_ids).items() if a is not None and b is not None}


def logs_partial_months(cluster_ids: Iterable[int] | None = None) -> dict[date, datetime]:
    """Every month some cluster's logs end inside, with the earliest such end: with clusters whose logs end
    at different times, each one's last month is usage so far (chargeback marks it partial and prorates its
    storage to the days every cluster covers), not only the latest cluster's. One query."""
    months: dict[date, datetime] = {}
    for month, end in logs_partial_by_cluster(cluster_ids).values():
        months[month] = min(months.get(month, end), end)
    return dict(sorted(months.items()))


def logs_first_part_months(cluster_ids: Iterable[int] | None = None) -> dict[date, datetime]:
    """Every month some cluster's logs begin inside (its earliest loaded job started after the month's first
    day), with the earliest such start: that month holds only the jobs that ended after the logs begin, a
    part month like the one they end inside (the usage page, its CSV and the API say so). One query."""
    months: dict[date, datetime] = {}
    for start, _ in _bounds(cluster_ids).values():
        if start is not None and start.day != 1:
            month = start.date().replace(day=1)
            months[month] = min(months.get(month, start), start)
    return dict(sorted(months.items()))


def other_zones(run: IngestRun) -> list[str]:
    """The time zones the cluster's other completed runs read local times in, where they differ from ``run``'s.

    A job is the same job when its cluster, id, array index and submit time agree; lines loaded before under
    another zone get other submit times, so loading them again stores them again instead of counting duplicates.
    """
    zones = (IngestRun.objects.filter(cluster_id=run.cluster_id, status=IngestRun.Status.COMPLETED)
             .exclude(pk=run.pk).exclude(timezone=run.timezone).order_by("timezone")
             .values_list("timezone", flat=True).distinct())
    return list(zones)


def run_resumable(run: IngestRun) -> bool:
    """A failed run can be resumed unless its file is truncated or has an over-long line: reading it again
    would stop at the same place."""
    return run.status == IngestRun.Status.FAILED and TRUNCATED not in run.error and TOO_LONG not in run.error
