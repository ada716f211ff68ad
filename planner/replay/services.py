"""Replay services (Django shell): a cluster's jobs from the Job table, machines, growth, design replays.

The pure core (``planner.replay.engine``) gets numpy arrays: the jobs of a cluster and period are
read with one query straight into arrays (no model instances); each job's department is
attributed once per (identity, month) by the same dated mappings as the usage rollups.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import numpy as np
from django.db import connection

from forecasts.accounting.load import ATTRIBUTION_LATERAL, unassigned_department
from forecasts.accounting.models import Cluster, ClusterCapacity, Department
from forecasts.accounting.selectors import logs_bounds
from planner.replay.engine import POLICIES, replay
from planner.replay.future import growth_factor
from planner.replay.summary import ReplaySummary, summarise, wait_cdf
from planner.replay.workload import Machine, NodeType, ReplayInputError, Workload

MODES = ("pool", "nodes")
COPY_BLOCK_BYTES = 16 << 20
WHAT_IF_SCALES = (0.5, 0.75, 1.0, 1.25, 1.5)


class ReplayError(ValueError):
    """A replay the inputs do not allow; the message is one line a person can act on."""


@dataclass(slots=True)
class ClusterJobs:
    """A cluster's jobs of a period as replay arrays, with what the summary needs to name groups."""

    cluster: str
    start: date
    end: date  # exclusive
    workload: Workload
    department: np.ndarray
    department_names: dict[int, str]
    queue_names: dict[int, str]
    core_hours: float

    def summarise(self, result: Any) -> ReplaySummary:
        return summarise(result, queue=self.workload.queue, queue_names=self.queue_names,
                         department=self.department, department_names=self.department_names)


def parse_month(text: str, *, what: str) -> date:
    try:
        year, month = (int(x) for x in text.split("-"))
        return date(year, month, 1)
    except ValueError:
        raise ReplayError(f"{what} {text!r}: expected YYYY-MM") from None


def next_month(d: date) -> date:
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1)


def cluster_get(name: str) -> Cluster:
    try:
        return Cluster.objects.get(name=name)
    except Cluster.DoesNotExist:
        known = ", ".join(Cluster.objects.values_list("name", flat=True)) or "none yet"
        raise ReplayError(f"cluster {name!r} not found (known: {known})") from None


def last_whole_year(cluster: Cluster) -> tuple[date, date]:
    """The last calendar year the cluster's logs cover from its start to its end; when the logs cover no whole
    calendar year, their last 12 whole months (fewer when they are shorter). Before, a year the logs began
    inside counted as whole: KTH's logs (30 Sep 1996 to 29 Aug 1997) were replayed as "1996", three months of
    jobs on a page that said a year. Where the logs begin and end is the accounting selectors' rule (completed
    loads only), as for usage and forecasts: before, a failed load's partial jobs moved the replay's year."""
    first, last = logs_bounds(cluster)
    if last is None:
        raise ReplayError(f"cluster {cluster.name!r} has no completed load of accounting logs: ingest its logs first"
                          " (a failed load's partial jobs do not count)")
    first = first or last
    year = last.year if (last.month, last.day) == (12, 31) else last.year - 1
    if (first.year, first.month, first.day) <= (year, 1, 1):
        return date(year, 1, 1), date(year + 1, 1, 1)
    end = next_month(last.date()) if (last + timedelta(days=1)).day == 1 else last.date().replace(day=1)
    start = first.date() if first.day == 1 else next_month(first.date())
    start = max(start, date(end.year - 1, end.month, 1))
    if start >= end:  # logs within one month: that month's jobs, as they are
        start, end = first.date().replace(day=1), next_month(last.date())
    return start, end


def base_period_note(t0: date, t1: date) -> str:
    """'' for a calendar year; else what the period is, so a part year is not read as a whole one."""
    if (t0.month, t0.day) == (1, 1) and t1 == date(t0.year + 1, 1, 1):
        return ""
    months = (t1.year - t0.year) * 12 + t1.month - t0.month
    return f"the logs cover no whole calendar year: their last {months} whole month{'' if months == 1 else 's'}"


def period(cluster: Cluster, start: str | None, end: str | None) -> tuple[date, date]:
    """[first day of ``start``, first day after ``end``); by default the last whole year."""
    if not start and not end:
        return last_whole_year(cluster)
    if not (start and end):
        raise ReplayError("give both --start and --end (YYYY-MM), or neither for the last whole year")
    t0, t1 = parse_month(start, what="start"), next_month(parse_month(end, what="end"))
    if t1 <= t0:
        raise ReplayError(f"period {start} to {end}: the end is before the start")
    return t0, t1


# Every column a non-null bigint, so COPY's binary rows have one fixed layout numpy reads directly.
_JOBS_SQL = """
SELECT extract(epoch FROM COALESCE(j.submit, j.start))::bigint,
       GREATEST(round(j.wall_s), 0)::bigint,
       j.cores::bigint,
       COALESCE(j.req_walltime_s, -1)::bigint,
       (COALESCE(array_position(%(queues)s::text[], j.queue), 0) - 1)::bigint,
       j.identity_id::bigint,
       (extract(year FROM COALESCE(j.submit, j.start)) * 12
        + extract(month FROM COALESCE(j.submit, j.start)) - 1)::bigint,
       j.id::bigint
FROM forecasts_job j
WHERE j.cluster_id = %(cluster)s AND j.start IS NOT NULL AND j."end" IS NOT NULL
  AND j."end" >= %(t0)s
  AND COALESCE(j.submit, j.start) >= %(t0)s AND COALESCE(j.submit, j.start) < %(t1)s
"""
N_COLS = 8
# PostgreSQL binary COPY: a 19-byte header, then per row an int16 field count and, per field, an
# int32 length and the big-endian value; a 2-byte trailer.
_ROW = np.dtype([("n", ">i2")] + [item for i in range(N_COLS) for item in ((f"len{i}", ">i4"), (f"v{i}", ">i8"))])
_HEADER, _TRAILER = 19, 2

# The queue names from the monthly rollup (a few rows per month), not from the jobs themselves: a job
# submitted in the period ends in or after its first month. A queue it lacks would show as "(other)".
_QUEUES_SQL = """
SELECT DISTINCT u.queue FROM forecasts_usagemonthly u
WHERE u.cluster_id = %(cluster)s AND u.month >= %(m0)s
ORDER BY 1
"""

_ATTRIBUTE_SQL = """
SELECT p.identity_id, p.month_index, COALESCE(attr.department_id, %(unassigned)s)
FROM unnest(%(ids)s::bigint[], %(months)s::int[]) AS p(identity_id, month_index)
JOIN forecasts_identity i ON i.id = p.identity_id
""" + ATTRIBUTION_LATERAL.format(month="make_date(p.month_index / 12, p.month_index %% 12 + 1, 1)")


def load_jobs(cluster: Cluster, t0: date, t1: date) -> ClusterJobs:
    """The jobs submitted in [t0, t1) that ran, as arrays: one binary COPY read by numpy, no row objects.

    Ties in submit time are broken by the table's row id (the order jobs were loaded); the engine
    sorts by (submit, id), so the query needs no ORDER BY.
    """
    args = {"cluster": cluster.pk, "t0": datetime(t0.year, t0.month, t0.day, tzinfo=UTC),
            "t1": datetime(t1.year, t1.month, t1.day, tzinfo=UTC)}
    with connection.cursor() as cur:
        cur.execute(_QUEUES_SQL, {"cluster": cluster.pk, "m0": t0.replace(day=1)})
        queues = [q for (q,) in cur.fetchall()]
        parts = _copy_rows(cur, _JOBS_SQL, args | {"queues": queues})
    columns = []
    for i in range(N_COLS):  # one column at a time, dropping its blocks: ~1 column of extra memory at most
        columns.append(np.concatenate(parts[i]) if parts[i] else np.zeros(0, dtype=np.int64))
        parts[i] = []
    submit, run, procs, req, queue, ident, month, row_id = columns
    dept, dept_names = _departments(ident, month)
    workload = Workload(submit_s=submit, run_s=run, procs=procs, req_s=np.where(req > 0, req, run), job_id=row_id,
                        queue=queue)
    names = {i: q or "(none)" for i, q in enumerate(queues)} | {-1: "(other)"}
    return ClusterJobs(cluster=cluster.name, start=t0, end=t1, workload=workload, department=dept,
                       department_names=dept_names, queue_names=names,
                       core_hours=float((procs * run).sum(dtype=np.float64)) / 3600.0)


def _copy_rows(cur: Any, sql: str, params: dict[str, Any]) -> list[list[np.ndarray]]:
    """Run ``COPY (sql) TO STDOUT (FORMAT BINARY)``; per column, its blocks as int64 arrays."""
    blocks: list[list[np.ndarray]] = [[] for _ in range(N_COLS)]
    parts: list[bytes] = []
    size = 0
    first = True

    def flush(final: bool) -> None:
        nonlocal parts, size, first
        data = b"".join(parts)
        if first:
            data, first = data[_HEADER:], False
        if final:
            data = data[:-_TRAILER]
        n = len(data) // _ROW.itemsize
        if n:
            rows = np.frombuffer(data, dtype=_ROW, count=n)
            if not (np.all(rows["n"] == N_COLS) and all(np.all(rows[f"len{i}"] == 8) for i in range(N_COLS))):
                raise ReplayError("the jobs query returned an unexpected row layout (a NULL?)")
            for i in range(N_COLS):
                blocks[i].append(rows[f"v{i}"].astype(np.int64))
        rest = data[n * _ROW.itemsize:]
        if final and rest:
            raise ReplayError("the jobs query ended inside a row")
        parts, size = [rest], len(rest)

    raw = getattr(cur, "cursor", cur)  # psycopg's own cursor: Django's DEBUG wrapper takes no COPY params
    with raw.copy(f"COPY ({sql}) TO STDOUT (FORMAT BINARY)", params) as copy:
        for chunk in copy:
            parts.append(bytes(chunk))
            size += len(chunk)
            if size >= COPY_BLOCK_BYTES:
                flush(False)
    flush(True)
    return blocks


def _departments(ident: np.ndarray, month: np.ndarray) -> tuple[np.ndarray, dict[int, str]]:
    if len(ident) == 0:
        return np.zeros(0, dtype=np.int64), {}
    key = ident * 100_000 + month
    uniq, inverse = np.unique(key, return_inverse=True)
    ids, months = (uniq // 100_000).tolist(), (uniq % 100_000).tolist()
    with connection.cursor() as cur:
        cur.execute(_ATTRIBUTE_SQL, {"ids": ids, "months": months, "unassigned": unassigned_department().pk})
        found = {int(i) * 100_000 + int(m): int(d) for i, m, d in cur.fetchall()}
    per_pair = np.array([found.get(int(k), -1) for k in uniq.tolist()], dtype=np.int64)
    dept = per_pair[inverse]
    names = dict(Department.objects.filter(pk__in=set(per_pair.tolist())).values_list("pk", "code"))
    return dept, names


# ---- machines ------------------------------------------------------------------------------------

def cluster_machine(cluster: Cluster, on: date, mode: str) -> Machine:
    """The cluster as it was on ``on`` (its dated capacity); in node mode, equal nodes of cores/nodes."""
    cap = (ClusterCapacity.objects.filter(cluster=cluster, effective_from__lt=on)
           .order_by("-effective_from").first())
    if cap is None:
        raise ReplayError(f"cluster {cluster.name!r} has no recorded capacity before {on}: give --processors")
    if mode == "nodes":
        if cap.nodes <= 0 or cap.cores % cap.nodes:
            raise ReplayError(f"cluster {cluster.name!r}: {cap.cores} cores on {cap.nodes} nodes is not a whole "
                              "number of cores per node; use --mode pool")
        return Machine.nodes(NodeType(cap.nodes, cap.cores // cap.nodes, cluster.name))
    return Machine.pool(cap.cores)


def design_node_types(design: Any, year: int) -> tuple[NodeType, ...]:
    """The node types and counts a design has in ``year`` (existing within lifetime + purchases so far)."""
    from planner.designs.capacity import resolve_assets
    from planner.designs.scenario import ScenarioError
    from planner.designs.services import design_scenario
    from planner.hardware.services import CatalogImportError

    try:
        sc = design_scenario(design.scenario)
    except (ScenarioError, CatalogImportError) as exc:
        raise ReplayError(f"design #{design.pk}: {exc}") from None
    if not sc.design.start_year <= year <= sc.design.end_year:
        raise ReplayError(f"design #{design.pk} covers {sc.design.start_year}-{sc.design.end_year}, not {year}")
    counts: dict[str, int] = {}
    for a in resolve_assets(sc.design, sc.catalog):
        if a.kind == "node" and a.active(year):
            counts[a.name] = counts.get(a.name, 0) + a.count
    return tuple(NodeType(n, sc.catalog.node(name).cores_per_node, name) for name, n in sorted(counts.items()) if n)


def design_machine(design: Any, year: int, mode: str) -> Machine:
    types = design_node_types(design, year)
    if not types:
        raise ReplayError(f"design #{design.pk} ({design.name}) has no nodes in {year}: nothing to replay on")
    machine = Machine.nodes(*types)
    return machine if mode == "nodes" else Machine.pool(machine.processors)


# ---- growth ----------------------------------------------------------------------------------------

@dataclass(slots=True)
class Growth:
    """Load scales for a year (median, P10, P90) and where they came from."""

    median: float
    p10: float
    p90: float
    source: str
    scales: dict[str, float] = field(default_factory=dict)


def design_growth(design: Any, cluster: Cluster, base_year: int, year: int) -> Growth:
    """Growth from the base year to ``year``: the cluster's core-hours forecast, else the design's demand."""
    from forecasts.demand.models import ForecastFit

    fit = (ForecastFit.objects.filter(metric=ForecastFit.Metric.CORE_HOURS, cluster=cluster, department=None,
                                      exclude_department=None).order_by("-created_at").first())
    if fit is not None:
        by_year = {int(y["year"]): y for y in fit.yearly}
        base, target = by_year.get(base_year), by_year.get(year)
        # A base year the logs cover in part (KTH's 1996: October to December) would make the growth its
        # inverse share of a year (x4): such a fit is not used.
        if base and target and base.get("median") and target.get("median") and base.get("complete", True):
            b = float(base["median"])
            return Growth(growth_factor(b, float(target["median"])), growth_factor(b, float(target["p10"])),
                          growth_factor(b, float(target["p90"])),
                          f"core-hours forecast fit #{fit.pk} ({fit.family}): {year} over {base_year}")
    from planner.designs.services import design_scenario

    demand = {y: d.core_hours for y, d in design_scenario(design.scenario).design.demand.items()}
    first = min(demand) if demand else None
    if first is not None and demand.get(first, 0) > 0 and demand.get(year, 0) > 0:
        g = growth_factor(demand[first], demand[year])
        return Growth(g, g, g, f"no core-hours forecast covers {year}: the design's demand, {year} over {first}")
    return Growth(1.0, 1.0, 1.0, f"no forecast or design demand for {year}: today's arrival rate")


# ---- one replay (command, API) --------------------------------------------------------------------

def run_replay(*, cluster: str, start: str | None = None, end: str | None = None, processors: int | None = None,
               design: Any = None, year: int | None = None, policy: str = "easy", mode: str = "pool",
               load_scale: float = 1.0, progress: Any = None,
               queue_priority: list[str] | None = None) -> dict[str, Any]:
    """Replay a cluster's jobs on a machine; returns the JSON summary (the command's last line).

    ``queue_priority`` names the cluster's queues from the most to the least urgent: waiting jobs
    are then kept in (priority, submit) order (queues not named come last, in one FCFS class).
    """
    if policy not in POLICIES:
        raise ReplayError(f"policy {policy!r}: expected one of {', '.join(POLICIES)}")
    if mode not in MODES:
        raise ReplayError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    if (processors is None) == (design is None):
        raise ReplayError("give either --processors P or --design ID --year Y")
    c = cluster_get(cluster)
    t0, t1 = period(c, start, end)
    if processors is not None:
        if processors <= 0:
            raise ReplayError(f"--processors {processors}: must be > 0")
        if mode == "nodes":
            raise ReplayError("--mode nodes needs a design (--design ID --year Y): --processors is a pool")
        machine = Machine.pool(processors)
    else:
        if year is None:
            raise ReplayError("--design needs --year Y")
        machine = design_machine(design, year, mode)
    jobs = load_jobs(c, t0, t1)
    if len(jobs.workload) == 0:
        raise ReplayError(f"cluster {c.name!r} has no jobs submitted from {t0} to {t1} (exclusive)")
    priority = None
    if queue_priority:
        ids = {name: i for i, name in jobs.queue_names.items()}
        unknown = [q for q in queue_priority if q not in ids]
        if unknown:
            raise ReplayError(f"--queue-priority: no queue {unknown[0]!r} in {c.name}'s jobs of the period "
                              f"(queues: {', '.join(sorted(n for i, n in jobs.queue_names.items() if i >= 0))})")
        priority = [ids[q] for q in queue_priority]
    try:
        result = replay(jobs.workload, machine, policy, load_scale=load_scale, progress=progress,
                        queue_priority=priority)
    except ReplayInputError as exc:
        raise ReplayError(str(exc)) from None
    summary = jobs.summarise(result).as_dict()
    return {"cluster": c.name, "period": [t0.isoformat(), t1.isoformat()],
            "design": design.pk if design is not None else None, "year": year,
            "queue_priority": list(queue_priority or [])} | summary


# ---- a design's queue waits, every year (the task) ---------------------------------------------------

def design_queue_waits(design: Any, cluster_name: str, *, progress: Any = None) -> dict[str, Any]:
    """Waits on today's cluster and on the design's nodes each year (P10 / median / P90 growth), and a
    what-if of machine sizes for the median; everything the page, the API and the report show."""
    c = cluster_get(cluster_name)
    t0, t1 = last_whole_year(c)
    jobs = load_jobs(c, t0, t1)
    if len(jobs.workload) == 0:
        raise ReplayError(f"cluster {c.name!r} has no jobs in its last whole year {t0.year}")
    from planner.designs.services import design_scenario

    sc = design_scenario(design.scenario)
    years = list(range(sc.design.start_year, sc.design.end_year + 1))
    total = 1 + len(years) * (3 + len(WHAT_IF_SCALES) - 1)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    seen: dict[tuple[Machine, float], dict[str, Any]] = {}

    def entry(machine: Machine, scale: float, cdf: bool) -> dict[str, Any]:
        if (machine, scale) in seen and ("cdf_hours" in seen[machine, scale] or not cdf):
            tick()  # the same machine at the same load (a year without a forecast band): replayed once
            return dict(seen[machine, scale])
        result = replay(jobs.workload, machine, "easy", load_scale=scale)
        s = jobs.summarise(result)
        out = {k: getattr(s, k) for k in ("jobs_simulated", "jobs_not_simulated", "not_simulated_reasons",
                                          "mean_wait", "median_wait", "p95_wait", "max_wait",
                                          "mean_bounded_slowdown", "utilisation", "processors", "machine",
                                          "load_scale")}
        if cdf:
            out["cdf_hours"], out["cdf_fraction"] = wait_cdf(result.wait_s[result.simulated])
            for group in ("by_queue", "by_department", "by_size"):
                out[group] = {name: asdict(w) for name, w in getattr(s, group).items()}
        seen[machine, scale] = out
        tick()
        return dict(out)

    try:
        today_mode = "nodes"
        today_machine = cluster_machine(c, t1, today_mode)
    except ReplayError:
        today_mode, today_machine = "pool", cluster_machine(c, t1, "pool")
    out: dict[str, Any] = {"design": design.pk, "design_name": design.name, "cluster": c.name,
                           "base_period": [t0.isoformat(), t1.isoformat()], "base_jobs": len(jobs.workload),
                           "base_note": base_period_note(t0, t1),
                           "policy": "easy", "today": entry(today_machine, 1.0, True) | {"mode": today_mode},
                           "years": []}
    for y in years:
        row: dict[str, Any] = {"year": y}
        try:
            machine = design_machine(design, y, "nodes")
        except ReplayError as exc:
            row["error"] = str(exc)
            out["years"].append(row)
            for _ in range(3 + len(WHAT_IF_SCALES) - 1):
                tick()
            continue
        growth = design_growth(design, c, t0.year, y)
        row |= {"machine": machine.describe(), "processors": machine.processors, "growth_source": growth.source,
                "load_scale": {"p10": growth.p10, "median": growth.median, "p90": growth.p90}}
        row["median"] = entry(machine, growth.median, True)
        row["p10"] = entry(machine, growth.p10, False)
        row["p90"] = entry(machine, growth.p90, False)
        what_if = []
        for f in WHAT_IF_SCALES:
            if f == 1.0:
                what_if.append({"machine_scale": f} | {k: row["median"][k] for k in (
                    "processors", "mean_wait", "p95_wait", "utilisation", "jobs_not_simulated")})
                continue
            scaled = machine.scaled(f)
            if scaled.processors <= 0:
                tick()
                continue
            e = entry(scaled, growth.median, False)
            what_if.append({"machine_scale": f} | {k: e[k] for k in (
                "processors", "mean_wait", "p95_wait", "utilisation", "jobs_not_simulated")})
        row["what_if"] = what_if
        out["years"].append(row)
    return out


# ---- the background job ---------------------------------------------------------------------------
REPLAY_DESIGN_TASK = "planner.tasks.replay_design"
JOB_KIND = "replay_design"


def design_replay_start(*, design: Any, cluster: str, user: Any = None) -> Any:
    """Create the BackgroundJob and enqueue the replay of every year of ``design`` on ``cluster``'s jobs."""
    from django.db import transaction

    from planner.jobs.services import job_start

    c = cluster_get(cluster)
    _, t1 = last_whole_year(c)  # fail here, not in the worker, when the cluster has no jobs
    if not ClusterCapacity.objects.filter(cluster=c, effective_from__lt=t1).exists():
        # Every year is set beside today's cluster: without its size the worker failed after queueing, with
        # the command's hint ("give --processors") on the page. Logs loaded from a trace record none.
        raise ReplayError(f"cluster {c.name!r} has no recorded capacity before {t1}: the replay sets the design "
                          "beside today's cluster, so record its cores and nodes first (admin: cluster "
                          "capacities)")
    with transaction.atomic():
        return job_start(kind=JOB_KIND, label=f"Queue waits: {design.name} on {c.name}'s jobs",
                         task=REPLAY_DESIGN_TASK, params={"design_id": design.pk, "cluster": c.name}, user=user,
                         unit="replays")


def design_replay_execute(job_id: int) -> dict[str, Any]:
    """Run a design replay job (the task calls this); progress and the result go on the job row."""
    from django.urls import reverse

    from planner.designs.models import Design
    from planner.jobs.models import BackgroundJob
    from planner.jobs.services import job_failed, job_progress, job_running, job_succeeded

    job = BackgroundJob.objects.get(pk=job_id)
    design = Design.objects.get(pk=job.params["design_id"])
    job_running(job_id, message=f"Loading {job.params['cluster']}'s jobs of its last whole year")

    def progress(done: int, total: int) -> None:
        job_progress(job_id, done=done, total=total, message=f"Replay {done} of {total}")

    try:
        result = design_queue_waits(design, job.params["cluster"], progress=progress)
    except (ReplayError, ReplayInputError) as exc:
        job_failed(job_id, message=str(exc))
        raise
    url = reverse("designs:detail", args=[design.pk]) + "#queue-waits"
    job_succeeded(job_id, result=result, result_url=url, message="Queue waits replayed for every year")
    return result


def design_replay_latest(design: Any) -> Any:
    """The latest finished replay of this design (the page and the API show it), or None."""
    from planner.jobs.models import BackgroundJob

    return (BackgroundJob.objects.filter(kind=JOB_KIND, params__design_id=design.pk,
                                         status=BackgroundJob.Status.SUCCEEDED).order_by("-finished_at").first())
