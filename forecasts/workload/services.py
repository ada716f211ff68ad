"""Maintaining the workload shape rollups (WorkloadShapeMonthly) incrementally and from scratch.

``batch_rollup_ctes()`` is registered with the ingest batch statement
(forecasts.accounting.load.batch_rollup_register, wired in forecasts.apps) and spliced after its
``ins`` CTE: the jobs a batch inserted are bucketed, attributed (ingest's own
ATTRIBUTION_LATERAL) and upserted into the rollup in the same statement, hence the same
transaction, as the jobs themselves.  PostgreSQL runs a data-modifying CTE to completion even
when the outer query does not read it, so the batch's final SELECT is unchanged.

``rebuild_cluster`` recomputes a cluster's rows from its jobs (data loaded before the table
existed), in one transaction; ``stale_months`` finds months whose per-department totals no
longer match UsageMonthly (a mapping changed since) so that only those are recomputed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Exists, OuterRef

from forecasts.accounting.load import ATTRIBUTION_LATERAL, unassigned_department
from forecasts.accounting.models import Cluster, Job
from forecasts.workload.core import (
    CORE_EDGES,
    CORE_HOUR_EDGES,
    DIM_CORE_HOURS,
    DIM_RATIO,
    DIM_REQUEST,
    DIM_RUNTIME,
    DIM_SIZE,
    DIM_WAIT,
    RATIO_EDGES,
    TIME_EDGES_S,
    UNKNOWN,
    month_end,
    sql_array,
)
from forecasts.workload.models import WorkloadShapeMonthly

_T = sql_array(TIME_EDGES_S)

# Bucket a relation of jobs ({source}: columns identity_id, queue, submit, start, "end", cores,
# nodes, wall_s, core_hours, req_walltime_s) and aggregate per month x identity x queue x dim.
_SHAPE_SELECT = f"""
shape_src AS (
    SELECT date_trunc('month', COALESCE(j."end", j.start, j.submit) AT TIME ZONE 'UTC')::date AS month,
        j.identity_id, j.queue, j.cores, j.nodes, j.wall_s, j.core_hours,
        CASE WHEN j.req_walltime_s > 0 THEN j.req_walltime_s END AS req_s,
        CASE WHEN j.start IS NOT NULL AND j.submit IS NOT NULL
             THEN GREATEST(date_part('epoch', j.start - j.submit), 0) END AS wait_s,
        -- a job whose log gives no core count (SWF's -1, stored as 0 cores) is of unknown width: not a 1-core job
        CASE WHEN j.cores > 0 THEN width_bucket((j.cores - 1)::float8, {sql_array(CORE_EDGES)}) ELSE {UNKNOWN} END
            AS size_b,
        -- 1: one node; 2: the log gives no node count (nodes 0: an SWF trace with more processors than nodes);
        -- 0: several nodes, or unknown width (no core count: counted apart by its bucket)
        CASE WHEN j.cores <= 0 THEN 0 WHEN j.nodes = 1 THEN 1 WHEN j.nodes <= 0 THEN 2 ELSE 0 END AS single,
        width_bucket(j.wall_s, {_T}) AS rt_b,
        width_bucket(j.core_hours, {sql_array(CORE_HOUR_EDGES)}) AS ch_b,
        CASE WHEN j.req_walltime_s > 0 THEN width_bucket(j.req_walltime_s::float8, {_T}) ELSE {UNKNOWN} END
            AS req_b,
        (j.wall_s < 86400)::int AS under_day,
        CASE WHEN j.req_walltime_s > 0 AND j.wall_s > 0
             THEN width_bucket(j.req_walltime_s / j.wall_s, {sql_array(RATIO_EDGES)}) ELSE {UNKNOWN} END
            AS ratio_b,
        CASE WHEN j.start IS NOT NULL AND j.submit IS NOT NULL
             THEN width_bucket(GREATEST(date_part('epoch', j.start - j.submit), 0), {_T})
             ELSE {UNKNOWN} END AS wait_b
    FROM {{source}} j
), shape_who AS MATERIALIZED (  -- attribution once per identity and month, not once per job
    SELECT w.month, w.identity_id, COALESCE(attr.department_id, %(unassigned)s) AS department_id, attr.project_id
    FROM (SELECT DISTINCT month, identity_id FROM shape_src) w JOIN forecasts_identity i ON i.id = w.identity_id
    /*attribution*/
), shape_attr AS (
    SELECT s.*, w.department_id, w.project_id FROM shape_src s JOIN shape_who w USING (month, identity_id)
), shape_agg AS (
    SELECT month, department_id, project_id, queue,
        CASE WHEN GROUPING(size_b) = 0 THEN {DIM_SIZE} WHEN GROUPING(rt_b) = 0 THEN {DIM_RUNTIME}
             WHEN GROUPING(ch_b) = 0 THEN {DIM_CORE_HOURS} WHEN GROUPING(req_b) = 0 THEN {DIM_REQUEST}
             WHEN GROUPING(ratio_b) = 0 THEN {DIM_RATIO} ELSE {DIM_WAIT} END AS dim,
        COALESCE(size_b, rt_b, ch_b, req_b, ratio_b, wait_b) AS bucket,
        COALESCE(single, under_day, 0) AS flag,
        count(*) AS jobs, sum(core_hours) AS core_hours, sum(nodes * wall_s) / 3600.0 AS node_hours,
        sum(wall_s) / 3600.0 AS wall_hours, COALESCE(sum(wait_s), 0) / 3600.0 AS wait_hours,
        COALESCE(sum(req_s), 0) / 3600.0 AS req_hours,
        max(core_hours) AS max_core_hours, min(core_hours) AS min_core_hours,
        max(wall_s) AS max_wall_s, min(wall_s) AS min_wall_s
    FROM shape_attr
    GROUP BY month, department_id, project_id, queue,
        GROUPING SETS ((size_b, single), (rt_b), (ch_b), (req_b, under_day), (ratio_b), (wait_b))
)"""

_SHAPE_UPSERT = """
INSERT INTO forecasts_workloadshapemonthly (
    cluster_id, month, department_id, project_id, queue, dim, bucket, flag, jobs, core_hours, node_hours,
    wall_hours, wait_hours, req_hours, max_core_hours, min_core_hours, max_wall_s, min_wall_s)
SELECT %(cluster)s, month, department_id, project_id, queue, dim, bucket, flag, jobs, core_hours, node_hours,
    wall_hours, wait_hours, req_hours, max_core_hours, min_core_hours, max_wall_s, min_wall_s
FROM shape_agg
ORDER BY month, department_id, project_id, queue, dim, bucket, flag  -- one lock order for concurrent loaders
ON CONFLICT ON CONSTRAINT workload_shape_key DO UPDATE SET
    jobs = forecasts_workloadshapemonthly.jobs + EXCLUDED.jobs,
    core_hours = forecasts_workloadshapemonthly.core_hours + EXCLUDED.core_hours,
    node_hours = forecasts_workloadshapemonthly.node_hours + EXCLUDED.node_hours,
    wall_hours = forecasts_workloadshapemonthly.wall_hours + EXCLUDED.wall_hours,
    wait_hours = forecasts_workloadshapemonthly.wait_hours + EXCLUDED.wait_hours,
    req_hours = forecasts_workloadshapemonthly.req_hours + EXCLUDED.req_hours,
    max_core_hours = GREATEST(forecasts_workloadshapemonthly.max_core_hours, EXCLUDED.max_core_hours),
    min_core_hours = LEAST(forecasts_workloadshapemonthly.min_core_hours, EXCLUDED.min_core_hours),
    max_wall_s = GREATEST(forecasts_workloadshapemonthly.max_wall_s, EXCLUDED.max_wall_s),
    min_wall_s = LEAST(forecasts_workloadshapemonthly.min_wall_s, EXCLUDED.min_wall_s)
"""

ATTRIBUTION_PLACEHOLDER = "/*attribution*/"

# Spliced into the ingest batch statement after its other CTEs (it reads ``ins``); ingest.py
# replaces ATTRIBUTION_PLACEHOLDER with ATTRIBUTION_LATERAL.format(month="w.month").
SHAPE_CTES = ", " + _SHAPE_SELECT.replace("{source}", "ins") + ", shaped AS (" + _SHAPE_UPSERT + " RETURNING 1)\n"

_JOBS_IN = ('(SELECT * FROM forecasts_job WHERE cluster_id = %(cluster)s AND ("end" >= %(lo)s OR %(lo)s IS NULL) '
            'AND ("end" < %(hi)s OR %(hi)s IS NULL))')


def batch_rollup_ctes() -> str:
    """The shape rollup as CTEs for the ingest batch (registered with accounting in forecasts.apps)."""
    return SHAPE_CTES.replace(ATTRIBUTION_PLACEHOLDER, ATTRIBUTION_LATERAL.format(month="w.month"))


def _rebuild_sql() -> str:
    return ("WITH " + _SHAPE_SELECT.replace("{source}", _JOBS_IN) + _SHAPE_UPSERT).replace(
        ATTRIBUTION_PLACEHOLDER, ATTRIBUTION_LATERAL.format(month="w.month"))


def _unassigned_id() -> int:
    return unassigned_department().pk


def rebuild_cluster(cluster: Cluster, log: Callable[[str], None] | None = None,
                    months: list[date] | None = None) -> dict[str, Any]:
    """Recompute a cluster's shape rollups from its jobs (all months, or only ``months``)."""
    sql, unassigned = _rebuild_sql(), _unassigned_id()
    with transaction.atomic(), connection.cursor() as cursor:
        rows = WorkloadShapeMonthly.objects.filter(cluster=cluster)
        if months is None:
            deleted, _ = rows.delete()
            cursor.execute(sql, {"cluster": cluster.pk, "lo": None, "hi": None, "unassigned": unassigned})
        else:
            deleted = 0
            for month in sorted(months):
                deleted += rows.filter(month=month).delete()[0]
                lo = datetime(month.year, month.month, 1, tzinfo=UTC)
                hi = datetime.combine(month_end(month), datetime.min.time(), tzinfo=UTC)
                cursor.execute(sql, {"cluster": cluster.pk, "lo": lo, "hi": hi, "unassigned": unassigned})
                if log:
                    log(f"  {cluster.name} {month:%Y-%m}: rebuilt")
    total = WorkloadShapeMonthly.objects.filter(cluster=cluster).count()
    if log:
        log(f"  {cluster.name}: {total:,} rollup rows")
    return {"cluster": cluster.name, "rows_deleted": deleted, "rows": total,
            "months": None if months is None else [m.isoformat()[:7] for m in sorted(months)]}


def clusters_needing_rebuild() -> list[Cluster]:
    """Clusters with jobs but no shape rows (loaded before the rollup existed)."""
    return list(Cluster.objects.filter(Exists(Job.objects.filter(cluster=OuterRef("pk"))))
                .exclude(Exists(WorkloadShapeMonthly.objects.filter(cluster=OuterRef("pk")))))


_STALE_SQL = f"""
SELECT coalesce(u.month, w.month) FROM
    (SELECT month, department_id, sum(jobs) AS jobs FROM forecasts_usagemonthly
     WHERE cluster_id = %(cluster)s GROUP BY 1, 2) u
FULL JOIN
    (SELECT month, department_id, sum(jobs) AS jobs FROM forecasts_workloadshapemonthly
     WHERE cluster_id = %(cluster)s AND dim = {DIM_SIZE} GROUP BY 1, 2) w
  ON u.month = w.month AND u.department_id = w.department_id
WHERE u.jobs IS DISTINCT FROM w.jobs
GROUP BY 1 ORDER BY 1
"""


def stale_months(cluster: Cluster) -> list[date]:
    """Months whose jobs per department differ between the shape rollup and UsageMonthly."""
    with connection.cursor() as cursor:
        cursor.execute(_STALE_SQL, {"cluster": cluster.pk})
        return [r[0] for r in cursor.fetchall()]
