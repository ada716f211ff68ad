"""Workload characterisation reads: SQL on the shape rollups and UsageMonthly, never on jobs.

``workload_report(user=..., cluster=..., start=..., end=..., department=..., project=...,
queue=...)`` returns every number of the overview (documented in docs/workload-report.md);
pages, CSV/JSON exports and ``workload_report`` share it.  Rows are scoped through
planner.roles: a department viewer's numbers are computed from their departments' rows only.

Shape rows carry the department and project attributed at ingest (as UsageMonthly's); active
users, projects and departments are counted on UsageMonthly with the same filters.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from typing import Any

from django.db import connection

from forecasts.accounting.models import Cluster, ClusterCapacity, Department
from forecasts.accounting.selectors import logs_first_part_months, logs_month_spans, logs_partial_month
from forecasts.usage.cache import rollup_cached
from forecasts.workload.core import (
    CORE_BUCKETS,
    DAY_BUCKET,
    DIM_CORE_HOURS,
    DIM_RATIO,
    DIM_REQUEST,
    DIM_RUNTIME,
    DIM_SIZE,
    DIM_WAIT,
    RATIO_EDGES,
    RATIO_LABELS,
    TEN_MINUTES_BUCKET,
    TIME_EDGES_S,
    TIME_LABELS,
    UNKNOWN,
    Bucket,
    CapacityStep,
    capacity_core_hours,
    capacity_core_hours_until,
    cdf,
    core_hour_bucket_bounds,
    cores_bounds,
    cores_label,
    month_end,
    period_bounds,
    quantile,
    share,
    time_bucket,
    time_bucket_bounds,
)
from forecasts.workload.services import rebuild_cluster, stale_months
from planner.roles import visible_department_ids

SCHEMA = "workload-report/1"
THREE_DAYS_BUCKET = TIME_EDGES_S.index(259200) + 1  # requests of 3 days or more


class _Where:
    """WHERE clauses and parameters shared by the rollup and UsageMonthly queries."""

    def __init__(self, *, user: Any, cluster: str | None, start: date | None, end: date | None,
                 department: str | None, project: str | None, queue: str | None,
                 use_period: bool = True) -> None:
        self.sql: list[str] = []
        self.params: dict[str, Any] = {}
        self.needs_attr = False
        if cluster:
            self.sql.append("{t}.cluster_id = (SELECT id FROM forecasts_cluster WHERE name = %(cluster)s)")
            self.params["cluster"] = cluster
        if use_period and start:
            self.sql.append("{t}.month >= %(start)s")
            self.params["start"] = start.replace(day=1)
        if use_period and end:
            self.sql.append("{t}.month <= %(end)s")
            self.params["end"] = end.replace(day=1)
        if queue:
            self.sql.append("{t}.queue = %(queue)s")
            self.params["queue"] = queue
        ids = visible_department_ids(user) if user is not None else None
        if ids is not None:
            self.sql.append("{a}.department_id = ANY(%(visible)s)")
            self.params["visible"] = sorted(ids) or [-1]
            self.needs_attr = True
        if department:
            self.sql.append("{a}.department_id = (SELECT id FROM forecasts_department WHERE code = %(department)s)")
            self.params["department"] = department
            self.needs_attr = True
        if project:
            self.sql.append("{a}.project_id = (SELECT id FROM forecasts_project WHERE name = %(project)s)")
            self.params["project"] = project
            self.needs_attr = True

    def render(self, t: str, a: str) -> str:
        return " AND ".join(s.format(t=t, a=a) for s in self.sql) or "true"


def _fetch(sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _shape_rows(where: _Where) -> list[tuple[Any, ...]]:
    """(dim, bucket, flag, queue, jobs, core_hours, node_hours, wall_hours, wait_hours, req_hours,
    max_core_hours, min_core_hours, max_wall_s, min_wall_s) summed over the filtered rows."""
    sql = f"""
        SELECT w.dim, w.bucket, w.flag, w.queue, sum(w.jobs)::float8, sum(w.core_hours), sum(w.node_hours),
            sum(w.wall_hours), sum(w.wait_hours), sum(w.req_hours), max(w.max_core_hours),
            min(w.min_core_hours), max(w.max_wall_s), min(w.min_wall_s)
        FROM forecasts_workloadshapemonthly w
        WHERE {where.render("w", "w")}
        GROUP BY w.dim, w.bucket, w.flag, w.queue
    """
    return _fetch(sql, where.params)


def _usage_counts(where: _Where) -> dict[str, int]:
    """Active users, projects and departments; Unassigned is a bucket, not a department (as the dashboard and
    the grant report count: "11 departments", not 12)."""
    sql = f"""
        SELECT count(DISTINCT i."user"), count(DISTINCT u.project_id),
            count(DISTINCT u.department_id) FILTER (WHERE u.department_id IS DISTINCT FROM
                (SELECT id FROM forecasts_department WHERE code = %(unassigned_code)s))
        FROM forecasts_usagemonthly u JOIN forecasts_identity i ON i.id = u.identity_id
        WHERE {where.render("u", "u")}
    """
    users, projects, departments = _fetch(sql, where.params | {"unassigned_code": Department.UNASSIGNED_CODE})[0]
    return {"users": users, "projects": projects, "departments": departments}


def _growth_rows(where: _Where) -> list[dict[str, Any]]:
    sql = f"""
        SELECT u.month, d.code, d.name, sum(u.core_hours), sum(u.jobs)::float8, count(DISTINCT i."user")
        FROM forecasts_usagemonthly u JOIN forecasts_identity i ON i.id = u.identity_id
        JOIN forecasts_department d ON d.id = u.department_id
        WHERE {where.render("u", "u")}
        GROUP BY u.month, d.code, d.name ORDER BY u.month, d.name
    """
    return [{"month": m.isoformat()[:7], "department": code, "department_name": name,
             "core_hours": float(ch or 0), "jobs": int(jobs or 0), "users": int(users or 0)}
            for m, code, name, ch, jobs, users in _fetch(sql, where.params)]


def _capacity_steps(cluster: str | None) -> dict[int, list[CapacityStep]]:
    caps = ClusterCapacity.objects.all()
    if cluster:
        caps = caps.filter(cluster__name=cluster)
    out: dict[int, list[CapacityStep]] = defaultdict(list)
    for c in caps:
        out[c.cluster_id].append(CapacityStep(c.effective_from, c.cores))
    return out


def rollups_current(cluster: str | None = None) -> list[str]:
    """Recompute shape rollup months whose attribution no longer matches UsageMonthly.

    A mapping change re-attributes UsageMonthly (forecasts.accounting.org.usage_reattribute) but
    not the department-keyed shape rows; the check is one small aggregate per cluster and the
    recomputation touches only the changed months' jobs.  Returns the months recomputed.
    """
    done: list[str] = []
    clusters = Cluster.objects.filter(name=cluster) if cluster else Cluster.objects.all()
    for c in clusters:
        months = stale_months(c)
        if months:
            rebuild_cluster(c, months=months)
            done += [f"{c.name} {m:%Y-%m}" for m in months]
    return done


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)


@rollup_cached
def workload_report(*, user: Any = None, cluster: str | None = None, start: date | None = None,
                    end: date | None = None, department: str | None = None, project: str | None = None,
                    queue: str | None = None) -> dict[str, Any]:
    """Every number of the workload overview for the filters (see docs/workload-report.md)."""
    filters = {"cluster": cluster, "start": start, "end": end, "department": department, "project": project,
               "queue": queue}
    rollups_current(cluster)
    where = _Where(user=user, **filters)
    rows = _shape_rows(where)
    counts = _usage_counts(where)
    growth = _growth_rows(_Where(user=user, **{**filters, "start": None, "end": None}, use_period=False))

    by_dim: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for r in rows:
        by_dim[r[0]].append(r)
    size_rows = by_dim[DIM_SIZE]
    jobs = int(sum(r[4] for r in size_rows))
    core_hours = float(sum(r[5] for r in size_rows))
    node_hours = float(sum(r[6] for r in size_rows))
    wall_hours = float(sum(r[7] for r in size_rows))
    wait_hours = float(sum(r[8] for r in size_rows))
    max_ch = max((r[10] for r in size_rows), default=None)
    min_ch = min((r[11] for r in size_rows), default=None)
    max_wall = max((r[12] for r in size_rows), default=None)
    min_wall = min((r[13] for r in size_rows), default=None)

    def agg(dim: int) -> dict[tuple[int, int], list[float]]:
        """(bucket, flag) -> [jobs, core_hours, wall_hours, wait_hours, req_hours] over queues."""
        out: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0] * 5)
        for r in by_dim[dim]:
            acc = out[(r[1], r[2])]
            for k, v in enumerate((r[4], r[5], r[7], r[8], r[9])):
                acc[k] += float(v or 0)
        return out

    # --- Table 1 -------------------------------------------------------------------------
    ch_hist = agg(DIM_CORE_HOURS)
    ch_buckets = [Bucket(*core_hour_bucket_bounds(b), v[0]) for (b, _), v in ch_hist.items()]
    rt_hist = agg(DIM_RUNTIME)
    rt_buckets = [time_bucket(b, v[0], v[2] * 3600) for (b, _), v in rt_hist.items()]
    median_ch = quantile(ch_buckets, 0.5, clip=(min_ch, max_ch))
    median_rt_s = quantile(rt_buckets, 0.5, clip=(min_wall, max_wall))
    table1 = {
        "jobs": jobs,
        "core_hours": _r(core_hours),
        "core_hours_per_job": {"mean": _r(share(core_hours, jobs)), "median": _r(median_ch),
                               "max": _r(max_ch), "min": _r(min_ch)},
        "run_time_hours": {"mean": _r(share(wall_hours, jobs)),
                           "median": _r(median_rt_s / 3600 if median_rt_s is not None else None),
                           "max": _r(max_wall / 3600 if max_wall is not None else None)},
        "wall_hours": _r(wall_hours), "node_hours": _r(node_hours), "wait_hours": _r(wait_hours),
        **counts,
    }

    # --- Shape shares -------------------------------------------------------------------------
    size = agg(DIM_SIZE)
    unknown_width = size.pop((UNKNOWN, 0), [0.0] * 5)  # no core count in the log: neither 1-core nor 1-node
    single_node = [sum(v[i] for (b, f), v in size.items() if f == 1) for i in (0, 1)]
    unknown_nodes = [sum(v[i] for (b, f), v in size.items() if f == 2) for i in (0, 1)]  # neither one nor several
    single_core = [sum(v[i] for (b, f), v in size.items() if b == 0) for i in (0, 1)]
    under10 = [sum(v[i] for (b, _), v in rt_hist.items() if b < TEN_MINUTES_BUCKET) for i in (0, 1)]
    under24 = [sum(v[i] for (b, _), v in rt_hist.items() if b < DAY_BUCKET) for i in (0, 1)]

    def pair(v: list[float]) -> dict[str, Any]:
        return {"jobs": int(v[0]), "jobs_share": _r(share(v[0], jobs)), "core_hours": _r(v[1]),
                "core_hours_share": _r(share(v[1], core_hours))}

    shape = {"single_node": pair(single_node), "single_core": pair(single_core),
             "under_10_minutes": pair(under10), "under_24_hours": pair(under24),
             "unknown_width": pair(unknown_width[:2]), "unknown_nodes": pair(unknown_nodes)}
    # no job's node count is known (an SWF trace with more processors than nodes): a one-node share of 0 would mislead
    shape["single_node"]["unknown"] = bool(unknown_nodes[0]) and not single_node[0]

    # --- Histograms -----------------------------------------------------------------------------
    size_by_b: dict[int, list[float]] = defaultdict(lambda: [0.0] * 5)
    for (b, _), v in size.items():
        size_by_b[b] = [x + y for x, y in zip(size_by_b[b], v, strict=True)]
    job_size = []
    for b in range(CORE_BUCKETS):
        if b not in size_by_b:
            continue
        v = size_by_b[b]
        lo, hi = cores_bounds(b)
        job_size.append({"bucket": b, "label": cores_label(b), "cores_min": lo, "cores_max": hi,
                         "jobs": int(v[0]), "core_hours": _r(v[1]), "jobs_share": _r(share(v[0], jobs)),
                         "core_hours_share": _r(share(v[1], core_hours)),
                         "mean_wait_hours": _r(share(v[3], v[0]))})
    if job_size:
        first, last = job_size[0]["bucket"], job_size[-1]["bucket"]
        present = {r["bucket"] for r in job_size}
        for b in range(first, last + 1):  # empty buckets inside the range are drawn as zero
            if b not in present:
                lo, hi = cores_bounds(b)
                job_size.append({"bucket": b, "label": cores_label(b), "cores_min": lo, "cores_max": hi,
                                 "jobs": 0, "core_hours": 0.0, "jobs_share": 0.0, "core_hours_share": 0.0,
                                 "mean_wait_hours": None})
        job_size.sort(key=lambda r: r["bucket"])

    def time_hist(hist: dict[tuple[int, int], list[float]]) -> list[dict[str, Any]]:
        by_b: dict[int, list[float]] = defaultdict(lambda: [0.0] * 5)
        for (b, _), v in hist.items():
            if b != UNKNOWN:
                by_b[b] = [x + y for x, y in zip(by_b[b], v, strict=True)]
        if not by_b:
            return []
        bs = list(range(min(by_b), max(by_b) + 1))
        j = [by_b[b][0] for b in bs]
        c = [by_b[b][1] for b in bs]
        jc, cc = cdf(j), cdf(c)
        return [{"bucket": b, "label": TIME_LABELS[b], "seconds_min": time_bucket_bounds(b)[0] if b else 0,
                 "seconds_max": TIME_EDGES_S[b] if b < len(TIME_EDGES_S) else None,
                 "jobs": int(j[k]), "core_hours": _r(c[k]), "jobs_cdf": _r(jc[k]), "core_hours_cdf": _r(cc[k])}
                for k, b in enumerate(bs)]

    run_time = time_hist(rt_hist)
    ch_rows = []
    for (b, _), v in sorted(ch_hist.items()):
        lo, hi = core_hour_bucket_bounds(b)
        ch_rows.append({"bucket": b, "core_hours_min": lo if b else 0, "core_hours_max": hi,
                        "jobs": int(v[0]), "core_hours": _r(v[1])})

    # --- Requested vs actual wall time ---------------------------------------------------------
    req = agg(DIM_REQUEST)
    ratio = agg(DIM_RATIO)
    with_request = sum(v[0] for (b, _), v in req.items() if b != UNKNOWN)
    req_hours = sum(v[4] for (b, _), v in req.items() if b != UNKNOWN)
    req_wall = sum(v[2] for (b, _), v in req.items() if b != UNKNOWN)
    ratio_buckets = []
    for (b, _), v in ratio.items():
        if b == UNKNOWN:
            continue
        lo = RATIO_EDGES[b - 1] if b > 0 else 0.05
        hi = RATIO_EDGES[b] if b < len(RATIO_EDGES) else RATIO_EDGES[-1] * 4
        ratio_buckets.append(Bucket(lo, hi, v[0]))
    under_day_req_over_day = sum(v[0] for (b, f), v in req.items() if f == 1 and b != UNKNOWN and b >= DAY_BUCKET)
    under_day_req_3d = sum(v[0] for (b, f), v in req.items() if f == 1 and b != UNKNOWN and b >= THREE_DAYS_BUCKET)
    requests = []
    req_bs = sorted({b for (b, _) in req if b != UNKNOWN})
    for b in req_bs:
        ran_under = req.get((b, 1), [0.0] * 5)[0]
        ran_over = req.get((b, 0), [0.0] * 5)[0]
        requests.append({"bucket": b, "label": TIME_LABELS[b], "jobs": int(ran_under + ran_over),
                         "ran_under_day": int(ran_under), "ran_day_or_more": int(ran_over)})
    over_request = {
        "jobs_with_request": int(with_request),
        "requested_hours": _r(req_hours),
        "used_share_of_requested": _r(share(req_wall, req_hours)),
        "median_ratio": _r(quantile(ratio_buckets, 0.5)),
        "ran_under_day_requested_over_day": {"jobs": int(under_day_req_over_day),
                                             "share": _r(share(under_day_req_over_day, with_request))},
        "ran_under_day_requested_3_days_or_more": {"jobs": int(under_day_req_3d),
                                                   "share": _r(share(under_day_req_3d, with_request))},
        "ratio": [{"bucket": b, "label": RATIO_LABELS[b], "jobs": int(ratio.get((b, 0), [0.0])[0])}
                  for b in range(len(RATIO_LABELS)) if (b, 0) in ratio],
        "requested": requests,
    }

    # --- Queue wait -------------------------------------------------------------------------------
    queues: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in by_dim[DIM_SIZE]:
        q = queues[r[3]]
        q["jobs"] += r[4]
        q["core_hours"] += r[5]
        q["wait_hours"] += r[8]
    wait_hist: dict[str, list[Bucket]] = defaultdict(list)
    for r in by_dim[DIM_WAIT]:
        if r[1] != UNKNOWN:
            wait_hist[r[3]].append(time_bucket(r[1], float(r[4]), float(r[8] or 0) * 3600))
    by_queue = []
    for name, q in sorted(queues.items(), key=lambda kv: -kv[1]["jobs"]):
        med = quantile(wait_hist.get(name, []), 0.5)
        by_queue.append({"queue": name or "(none)", "jobs": int(q["jobs"]), "core_hours": _r(q["core_hours"]),
                         "wait_hours": _r(q["wait_hours"]), "mean_wait_hours": _r(share(q["wait_hours"], q["jobs"])),
                         "median_wait_hours": _r(med / 3600 if med is not None else None)})
    all_wait = [b for bs in wait_hist.values() for b in bs]
    med_all = quantile(all_wait, 0.5)
    # every job's wait reads 0 s: no job queued, or (far likelier) the log does not record waits (SWF's -1)
    queue_wait = {"all_zero": bool(jobs) and not wait_hours,
                  "mean_wait_hours": _r(share(wait_hours, jobs)),
                  "median_wait_hours": _r(med_all / 3600 if med_all is not None else None),
                  "by_queue": by_queue,
                  "by_size": [{"label": r["label"], "jobs": r["jobs"], "mean_wait_hours": r["mean_wait_hours"]}
                              for r in job_size if r["jobs"]]}

    # --- Utilisation against capacity (period) ----------------------------------------------------
    monthly_used: dict[str, float] = defaultdict(float)
    for g in growth:
        monthly_used[g["month"]] += g["core_hours"]
    months = [date.fromisoformat(m + "-01") for m in monthly_used]
    bounds = period_bounds(start, end, months)
    utilisation: dict[str, Any] = {"capacity_core_hours": None, "core_hours": _r(core_hours), "utilisation": None,
                                   "capacity_known": False, "monthly": []}
    steps = _capacity_steps(cluster)
    # a cluster's capacity counts over the months its logs cover: a retired cluster (or one whose logs stopped,
    # or began years later) is not idle capacity in the other clusters' months
    spans = logs_month_spans(steps)
    # the month the logs end inside: its capacity runs to the logs' end, not the month's (else a cliff)
    partial = logs_partial_month(cluster_name=cluster)
    # the months the logs begin inside (each cluster's first, when not from its first day): part months too
    firsts = logs_first_part_months(Cluster.objects.filter(name=cluster).values_list("pk", flat=True) if cluster
                                    else None)
    if bounds and steps:
        lo, hi = bounds
        monthly = []
        m = lo
        while m < hi:
            until = partial[1] if partial is not None and m == partial[0] else None
            c = sum(capacity_core_hours(s, m, month_end(m)) if until is None else capacity_core_hours_until(s, m, until)
                    for cid, s in steps.items() if cid not in spans or spans[cid][0] <= m <= spans[cid][1])
            used = monthly_used.get(m.isoformat()[:7], 0.0)
            monthly.append({"month": m.isoformat()[:7], "core_hours": _r(used), "capacity_core_hours": _r(c),
                            "utilisation": _r(share(used, c)), "partial": until is not None})
            m = month_end(m)
        cap = sum(r["capacity_core_hours"] or 0.0 for r in monthly)  # the months partition the period
        utilisation.update({"capacity_core_hours": _r(cap), "utilisation": _r(share(core_hours, cap)),
                            "capacity_known": cap > 0, "monthly": monthly,
                            "cores_now": sum(sorted(s, key=lambda x: x.effective_from)[-1].cores
                                             for s in steps.values())})

    period = None
    if bounds:
        period = {"start": bounds[0].isoformat(), "end_exclusive": bounds[1].isoformat()}
    return {
        "schema": SCHEMA,
        "filters": {k: (v.isoformat() if isinstance(v, date) else v) for k, v in filters.items()},
        "period": period,
        "table1": table1,
        "shape": shape,
        "job_size": job_size,
        "run_time": run_time,
        "core_hours_per_job": ch_rows,
        "over_request": over_request,
        "queue_wait": queue_wait,
        "utilisation": utilisation,
        "growth": growth,
        "partial_month": {"month": partial[0].isoformat()[:7], "logs_end": partial[1].isoformat()} if partial else None,
        "first_part_months": [{"month": m.isoformat()[:7], "logs_start": t.isoformat()} for m, t in firsts.items()],
        "notes": [
            "months are UTC calendar months by job end; a job counts wholly in the month it ended",
            "medians are interpolated log-uniformly within histogram buckets (run time and wait: "
            "buckets at most 2.5x wide from 30 s up, one bucket below 30 s; core-hours per job: powers of two), "
            "clipped to the exact min/max; a bucket whose values sum to zero counts as zeros",
            "totals, means, maxima, minima and the shares at 1 core, 1 node, 10 minutes and 24 hours are exact",
            "utilisation = core-hours of jobs ending in the period / (cores x hours of the period from the "
            "cluster's dated capacity); each cluster's capacity counts over the months its logs cover (a cluster "
            "retired, or loaded for other years, is not idle capacity in the others' months)",
            "a month the accounting logs end inside (partial_month) has its capacity counted to the logs' end; "
            "the charts draw it apart from the whole months",
        ],
    }


def departments_visible(user: Any) -> list[Department]:
    ids = visible_department_ids(user)
    qs = Department.objects.order_by("name")
    return list(qs if ids is None else qs.filter(pk__in=ids))
