"""Chargeback services: price a month from the rollups and the jobs, write versioned statements.

How a month is priced (one pass over the month's jobs, whatever the site's size):

1. The plan in force (latest ``effective_from`` on or before the month) gives the rates.
2. The month's distinct (cluster, queue, QOS) keys are read from the rollups (small) and
   each is priced by the pure core (``forecasts.chargeback.rates.resolve_price``).
3. One grouped SQL statement bills every job of the month -- the largest of its CPU,
   memory and GPU equivalents, in exact ``numeric`` -- and sums per rollup key
   (cluster x identity x queue x QOS), into a temporary table; the same table gives the
   largest jobs.  Jobs are matched to their department through the rollup row they were
   counted in, so attribution is the rollups' own (ATTRIBUTION_LATERAL at ingest, then
   ``usage_reattribute`` when a mapping changes) and the two can never disagree.
4. Lines take their quantities from the rollup rows (jobs, core-hours, GPU-hours), so the
   statement's core-hours are the rollups' core-hours: ``math.fsum`` of the rollup values,
   the correctly rounded exact sum, identical whatever order rows come in.
5. Money: exact per line, rounded to cents by the rule in ``forecasts/chargeback/rates.py``;
   subsidy and cap are lines too, so the total is the sum of the lines.
6. A statement whose lines are unchanged is left alone; otherwise a new version is
   written and the previous one is kept (``is_current=False``).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import Max

from forecasts.accounting.models import Department, Project, UsageMonthly
from forecasts.accounting.selectors import logs_partial_months
from forecasts.chargeback import rates as core
from forecasts.chargeback.holdings import StorageHolding, storage_holdings
from forecasts.chargeback.models import (
    ComputeRate,
    DepartmentAdjustment,
    QosMultiplier,
    RatePlan,
    Statement,
    StatementJob,
    StatementLine,
    StorageRate,
)
from forecasts.chargeback.months import logs_cover
from forecasts.units import MB_PER_GB, SECONDS_PER_HOUR
from planner.audit.events import record_event

TOP_JOBS = 10
NO_STORAGE_NOTE = "No file system has been scanned yet: storage is not charged on this statement."


class ChargebackError(Exception):
    """The month cannot be priced (no plan in force, unknown department, bad month)."""


# --- Months ------------------------------------------------------------------------------

def parse_month(text: str) -> date:
    """'2025-03' -> date(2025, 3, 1); a clear error otherwise."""
    try:
        parsed = datetime.strptime(text.strip(), "%Y-%m")
    except ValueError as exc:
        raise ChargebackError(f"month {text!r} must look like YYYY-MM, e.g. 2025-03") from exc
    return parsed.date()


def next_month(month: date) -> date:
    return date(month.year + (month.month == 12), month.month % 12 + 1, 1)


# --- Rates ---------------------------------------------------------------------------------

def plan_for_month(month: date) -> RatePlan | None:
    return RatePlan.objects.filter(effective_from__lte=month).order_by("-effective_from").first()


@dataclass
class PlanRates:
    plan: RatePlan
    compute: list[core.ComputeRate]
    qos: list[core.QosRule]
    storage: list[core.StorageRate]
    adjustments: dict[int, core.Adjustment]


def plan_rates(plan: RatePlan) -> PlanRates:
    """The plan's rows as the pure core's dataclasses."""
    return PlanRates(
        plan=plan,
        compute=[core.ComputeRate(r.cluster, r.queue, r.core_hour_usd, r.gpu_hour_usd, r.mem_gb_hour_usd)
                 for r in ComputeRate.objects.filter(plan=plan)],
        qos=[core.QosRule(r.qos, r.multiplier) for r in QosMultiplier.objects.filter(plan=plan)],
        storage=[core.StorageRate(r.filesystem, r.tier, r.tb_month_usd) for r in StorageRate.objects.filter(plan=plan)],
        adjustments={a.department_id: core.Adjustment(a.subsidy_percent, a.cap_usd)
                     for a in DepartmentAdjustment.objects.filter(plan=plan)},
    )


# --- Storage ---------------------------------------------------------------------------------

def storage_tb_by_department(month: date, mode: str = "carry") -> dict[int, list[StorageHolding]]:
    """Storage held per department in a month (forecasts/chargeback/holdings.py): every month is
    billed from the scans that stand for it, {} only before the first scan of any file system."""
    return storage_holdings(month, mode).by_department


# --- Pricing a month ---------------------------------------------------------------------------

_BILL_SQL = """
CREATE TEMP TABLE chargeback_job_charge ON COMMIT DROP AS
SELECT j.id, j.cluster_id, j.identity_id, j.queue, j.qos,
    GREATEST(
        j.core_hours::numeric * p.core_usd,
        COALESCE(j.req_mem_mb, 0)::numeric / %(mb_per_gb)s * j.wall_s::numeric / %(s_per_h)s * COALESCE(p.mem_usd, 0),
        j.gpus::numeric * j.wall_s::numeric / %(s_per_h)s * COALESCE(p.gpu_usd, 0)
    ) AS billing_usd,
    COALESCE(j.req_mem_mb, 0) / %(mb_per_gb)s * j.wall_s / %(s_per_h)s AS mem_gb_hours,
    p.mult
FROM forecasts_job j
JOIN unnest(%(cluster)s::bigint[], %(queue)s::text[], %(qos)s::text[], %(core)s::numeric[],
            %(mem)s::numeric[], %(gpu)s::numeric[], %(mult)s::numeric[])
     AS p(cluster_id, queue, qos, core_usd, mem_usd, gpu_usd, mult)
  ON p.cluster_id = j.cluster_id AND p.queue = j.queue AND p.qos = j.qos
WHERE j."end" >= %(lo)s AND j."end" < %(hi)s
  AND j.identity_id IN (SELECT identity_id FROM forecasts_usagemonthly
                        WHERE month = %(month)s AND department_id = ANY(%(departments)s))
"""

# One row per rollup row of the month: its quantities and the sum of its jobs' billing.
_ROWS_SQL = """
SELECT u.department_id, u.project_id, c.name, u.queue, u.qos, i."user",
    u.jobs, u.core_hours, u.gpu_hours, b.mem_gb_hours, b.billing_usd
FROM forecasts_usagemonthly u
JOIN forecasts_identity i ON i.id = u.identity_id
JOIN forecasts_cluster c ON c.id = u.cluster_id
LEFT JOIN (
    SELECT cluster_id, identity_id, queue, qos, sum(mem_gb_hours) AS mem_gb_hours, sum(billing_usd) AS billing_usd
    FROM chargeback_job_charge GROUP BY 1, 2, 3, 4
) b ON b.cluster_id = u.cluster_id AND b.identity_id = u.identity_id AND b.queue = u.queue AND b.qos = u.qos
WHERE u.month = %(month)s AND u.department_id = ANY(%(departments)s)
"""

_TOP_SQL = """
SELECT department_id, cluster, job_id, array_index, "user", project_id, queue, qos, cores, gpus, wall_s,
       core_hours, charge
FROM (
    SELECT u.department_id, c.name AS cluster, j.job_id, j.array_index, i."user", u.project_id, j.queue, j.qos,
        j.cores, j.gpus, j.wall_s, j.core_hours, ch.billing_usd * ch.mult AS charge,
        row_number() OVER (PARTITION BY u.department_id ORDER BY ch.billing_usd * ch.mult DESC, j.id) AS rn
    FROM chargeback_job_charge ch
    JOIN forecasts_job j ON j.id = ch.id
    JOIN forecasts_identity i ON i.id = ch.identity_id
    JOIN forecasts_cluster c ON c.id = ch.cluster_id
    JOIN forecasts_usagemonthly u ON u.month = %(month)s AND u.cluster_id = ch.cluster_id
        AND u.identity_id = ch.identity_id AND u.queue = ch.queue AND u.qos = ch.qos
    WHERE ch.billing_usd * ch.mult > 0
) ranked
WHERE rn <= %(top)s
ORDER BY department_id, charge DESC
"""


@dataclass
class Line:
    kind: str
    exact_usd: Decimal
    project_id: int | None = None
    user: str = ""
    cluster: str = ""
    queue: str = ""
    qos: str = ""
    filesystem: str = ""
    tier: str = ""
    jobs: int = 0
    core_hours: list[float] = field(default_factory=list)
    gpu_hours: list[float] = field(default_factory=list)
    mem_gb_hours: list[float] = field(default_factory=list)
    tb: float = 0.0
    rate: str = ""
    multiplier: Decimal = Decimal(1)
    amount_usd: Decimal = Decimal(0)


@dataclass
class DepartmentMonth:
    department_id: int
    lines: list[Line] = field(default_factory=list)
    rollup_core_hours: list[float] = field(default_factory=list)
    top_jobs: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class ComputeResult:
    month: date
    plan: str
    statements: list[Statement] = field(default_factory=list)
    created: int = 0
    unchanged: int = 0
    seconds: float = 0.0

    def summary(self) -> dict[str, object]:
        return {
            "month": f"{self.month:%Y-%m}",
            "plan": self.plan,
            "statements": len(self.statements),
            "new_versions": self.created,
            "unchanged": self.unchanged,
            "core_hours": math.fsum(s.core_hours for s in self.statements),
            "total_usd": str(sum((s.total_usd for s in self.statements), Decimal(0))),
            "departments": [
                {"department": s.department.code, "statement": s.pk, "version": s.version,
                 "core_hours": s.core_hours, "compute_usd": str(s.compute_usd), "storage_usd": str(s.storage_usd),
                 "adjustments_usd": str(s.subsidy_usd + s.cap_usd), "total_usd": str(s.total_usd)}
                for s in self.statements
            ],
            "seconds": round(self.seconds, 3),
        }


def _price_table(month: date, rates: PlanRates, departments: list[int]) -> tuple[dict[str, list[Any]], dict[
        tuple[str, str, str], core.ResolvedPrice | None]]:
    keys = (UsageMonthly.objects.filter(month=month, department_id__in=departments)
            .values_list("cluster_id", "cluster__name", "queue", "qos").distinct())
    table: dict[str, list[Any]] = {k: [] for k in ("cluster", "queue", "qos", "core", "mem", "gpu", "mult")}
    prices: dict[tuple[str, str, str], core.ResolvedPrice | None] = {}
    for cluster_id, cluster, queue, qos in keys:
        price = core.resolve_price(rates.compute, rates.qos, cluster, queue, qos)
        prices[(cluster, queue, qos)] = price
        if price is None:
            continue
        table["cluster"].append(cluster_id)
        table["queue"].append(queue)
        table["qos"].append(qos)
        table["core"].append(price.core_hour_usd)
        table["mem"].append(price.mem_gb_hour_usd)
        table["gpu"].append(price.gpu_hour_usd)
        table["mult"].append(price.multiplier)
    return table, prices


def _rate_text(price: core.ResolvedPrice) -> str:
    parts = [f"${price.core_hour_usd.normalize():f}/core-h"]
    if price.gpu_hour_usd is not None:
        parts.append(f"${price.gpu_hour_usd.normalize():f}/GPU-h")
    if price.mem_gb_hour_usd is not None:
        parts.append(f"${price.mem_gb_hour_usd.normalize():f}/GB-h")
    return ", ".join(parts) + f" ({price.rate_label})"


def price_month(month: date, rates: PlanRates, departments: list[int]) -> dict[int, DepartmentMonth]:
    """Compute and storage lines (exact money), largest jobs and notes for each department."""
    result = {d: DepartmentMonth(d) for d in departments}
    table, prices = _price_table(month, rates, departments)
    params = {**table, "month": month, "departments": departments, "mb_per_gb": MB_PER_GB,
              "s_per_h": SECONDS_PER_HOUR, "top": TOP_JOBS,
              "lo": f"{month:%Y-%m-%d} 00:00:00+00", "hi": f"{next_month(month):%Y-%m-%d} 00:00:00+00"}
    compute_lines: dict[tuple[Any, ...], Line] = {}
    with connection.cursor() as cursor:
        cursor.execute(_BILL_SQL, params)
        cursor.execute(_ROWS_SQL, params)
        rows = cursor.fetchall()
        cursor.execute(_TOP_SQL, params)
        top = cursor.fetchall()
        cursor.execute("DROP TABLE IF EXISTS chargeback_job_charge")
    unpriced: set[str] = set()
    unbilled = 0
    for dept, project, cluster, queue, qos, user, jobs, core_hours, gpu_hours, mem_gb_hours, billing in rows:
        dm = result[dept]
        dm.rollup_core_hours.append(core_hours)
        price = prices.get((cluster, queue, qos))
        key = (dept, project, cluster, queue, qos, user)
        line = compute_lines.get(key)
        if line is None:
            line = compute_lines[key] = Line(
                "compute", Decimal(0), project_id=project, user=user, cluster=cluster, queue=queue, qos=qos,
                rate=_rate_text(price) if price else "no rate in the plan: not charged",
                multiplier=price.multiplier if price else Decimal(1))
            dm.lines.append(line)
        line.jobs += jobs
        line.core_hours.append(core_hours)
        line.gpu_hours.append(gpu_hours)
        line.mem_gb_hours.append(mem_gb_hours or 0.0)
        if price is None:
            unpriced.add(f"{cluster}/{queue}")
            continue
        if billing is None:  # rollup without its jobs (jobs purged): bill the CPU equivalent
            unbilled += 1
            billing = core.billing_usd(core_hours, 0.0, gpu_hours, price)
        line.exact_usd += Decimal(billing) * price.multiplier
    for dm in result.values():
        if unpriced:
            dm.notes.append("No rate for " + ", ".join(sorted(unpriced)) + ": that usage is not charged.")
        if unbilled:
            dm.notes.append(f"{unbilled} usage rows had no job records; they are billed on core-hours and GPU-hours.")
    projects = dict(Project.objects.values_list("id", "name"))
    for dept, cluster, job_id, array_index, user, project, queue, qos, cores, gpus, wall_s, ch, charge in top:
        result[dept].top_jobs.append({
            "cluster": cluster, "job_id": f"{job_id}_{array_index}" if array_index >= 0 else job_id, "user": user,
            "project_name": projects.get(project, ""), "queue": queue, "qos": qos, "cores": cores, "gpus": gpus,
            "wall_hours": wall_s / SECONDS_PER_HOUR, "core_hours": ch, "amount_usd": core.round_half_up(charge),
        })
    _add_storage_lines(month, rates, result)
    return result


def _add_storage_lines(month: date, rates: PlanRates, result: dict[int, DepartmentMonth]) -> None:
    """Storage lines; in the month the logs end inside, prorated to the days the logs cover
    (forecasts/chargeback/months.py), so storage and compute bill the same days so far."""
    found = storage_holdings(month, rates.plan.storage_between_scans)
    holdings = found.by_department
    end = logs_partial_months().get(month)  # the earliest cluster's end inside this month
    covered = logs_cover(month, end) if end is not None else None
    for dept, dm in result.items():
        if not holdings:
            dm.notes.append(NO_STORAGE_NOTE)
            continue
        held = {h.filesystem for h in holdings.get(dept, [])}
        dm.notes += [f"Storage on {fs}: {basis}." for fs, basis in sorted(found.notes.items()) if fs in held]
        if covered and held and end is not None:
            dm.notes.append(f"Storage billed for {covered[0]} of {covered[1]} days: the accounting logs end on "
                            f"{end.day} {end:%B %Y}, so this statement bills the usage so far.")
        unpriced = sorted({f"{h.filesystem}/{h.tier}" for h in holdings.get(dept, [])
                           if core.resolve_storage_rate(rates.storage, h.filesystem, h.tier) is None})
        if unpriced:  # as for compute with no rate: say why held terabytes cost $0.00
            dm.notes.append("No storage rate for " + ", ".join(unpriced) + ": that storage is not charged.")
        for h in holdings.get(dept, []):
            rate = core.resolve_storage_rate(rates.storage, h.filesystem, h.tier)
            exact = core.storage_charge_usd(h.tb, rate) if rate else Decimal(0)
            label = f"${rate.tb_month_usd.normalize():f}/TB-month" if rate else "no storage rate: not charged"
            if covered and rate:
                exact = exact * covered[0] / covered[1]
                label += f" x {covered[0]}/{covered[1]} of the month"
            dm.lines.append(Line("storage", exact, project_id=h.project_id, filesystem=h.filesystem, tier=h.tier,
                                 tb=h.tb, rate=label))


def _finish(dm: DepartmentMonth, rates: PlanRates) -> tuple[list[Line], core.Adjusted]:
    """Round to cents (largest remainder) and add the subsidy and cap lines."""
    charged = [ln for ln in dm.lines]
    for line, cents in zip(charged, core.round_lines([ln.exact_usd for ln in charged]), strict=True):
        line.amount_usd = cents
    gross = sum((ln.amount_usd for ln in charged), Decimal(0))
    adjustment = rates.adjustments.get(dm.department_id)
    adjusted = core.apply_adjustment(gross, adjustment)
    lines = list(charged)
    if adjusted.subsidy_usd:
        lines.append(Line("subsidy", adjusted.subsidy_usd, amount_usd=adjusted.subsidy_usd,
                          rate=f"{adjustment.subsidy_percent.normalize():f}% department subsidy" if adjustment else ""))
    if adjusted.cap_usd:
        lines.append(Line("cap", adjusted.cap_usd, amount_usd=adjusted.cap_usd,
                          rate=f"monthly cap ${adjustment.cap_usd:,}" if adjustment else ""))
    return lines, adjusted


def _fingerprint(plan: RatePlan, lines: list[Line], notes: list[str]) -> str:
    canonical = [
        [ln.kind, ln.project_id, ln.user, ln.cluster, ln.queue, ln.qos, ln.filesystem, ln.tier, ln.jobs,
         repr(math.fsum(ln.core_hours)), repr(math.fsum(ln.gpu_hours)), repr(ln.tb), str(ln.amount_usd), ln.rate]
        for ln in lines
    ]
    canonical.sort(key=lambda row: json.dumps(row, default=str))
    blob = json.dumps([plan.pk, canonical, sorted(notes)], default=str, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def statements_compute(*, month: date, department: str | None = None, user: Any = None, reason: str = "",
                       progress: Callable[[str], None] | None = None) -> ComputeResult:
    """Compute (or re-compute) the month's statements; unchanged ones are kept as they are."""
    import time as _time

    started = _time.monotonic()
    month = month.replace(day=1)
    plan = plan_for_month(month)
    if plan is None:
        raise ChargebackError(
            f"no rate plan is in force for {month:%Y-%m}: add one in the admin (Rate plans) "
            "or load fixtures/demo_rates.yaml with the demo"
        )
    departments = Department.objects.all()
    if department:
        departments = departments.filter(code=department)
        if not departments.exists():
            raise ChargebackError(f"unknown department {department!r} (use its code, e.g. ggs)")
    wanted = set(departments.values_list("id", flat=True))
    with_usage = set(UsageMonthly.objects.filter(month=month).values_list("department_id", flat=True).distinct())
    with_storage = set(storage_tb_by_department(month, plan.storage_between_scans))
    with_statement = set(Statement.objects.filter(month=month, is_current=True).values_list("department_id", flat=True))
    ids = sorted(wanted & (with_usage | with_storage | with_statement))
    rates = plan_rates(plan)
    result = ComputeResult(month=month, plan=str(plan))
    if progress:
        progress(f"{month:%Y-%m}: pricing {len(ids)} departments with {plan}")
    with transaction.atomic():
        priced = price_month(month, rates, ids) if ids else {}
        for dept_id in ids:
            statement, created = _write_statement(priced[dept_id], month, rates, user=user, reason=reason)
            result.statements.append(statement)
            result.created += created
            result.unchanged += not created
        # who computed which month's statements (the page, the API, the command; planner.audit.events)
        record_event("statement computation", model=Statement, object_repr=f"{month:%Y-%m} statements", actor=user,
                     detail={"month": f"{month:%Y-%m}", "department": department or "every department",
                             "rate plan": str(plan), "statements": len(result.statements),
                             "new versions": result.created, "unchanged": result.unchanged, "reason": reason})
    result.seconds = _time.monotonic() - started
    return result


def _write_statement(dm: DepartmentMonth, month: date, rates: PlanRates, *, user: Any,
                     reason: str) -> tuple[Statement, bool]:
    lines, adjusted = _finish(dm, rates)
    fingerprint = _fingerprint(rates.plan, lines, dm.notes)
    current = (Statement.objects.select_for_update().select_related("department")
               .filter(department_id=dm.department_id, month=month, is_current=True).first())
    if current is not None and current.fingerprint == fingerprint:
        return current, False
    version = (Statement.objects.filter(department_id=dm.department_id, month=month)
               .aggregate(v=Max("version"))["v"] or 0) + 1
    if current is not None:
        Statement.objects.filter(pk=current.pk).update(is_current=False)
    compute_usd = sum((ln.amount_usd for ln in lines if ln.kind == "compute"), Decimal(0))
    storage_usd = sum((ln.amount_usd for ln in lines if ln.kind == "storage"), Decimal(0))
    statement = Statement.objects.create(
        department_id=dm.department_id, month=month, version=version, is_current=True, plan=rates.plan,
        plan_name=str(rates.plan), computed_by=user if getattr(user, "is_authenticated", False) else None,
        reason=reason or ("first computation" if current is None else "usage, attribution or rates changed"),
        fingerprint=fingerprint, jobs=sum(ln.jobs for ln in lines),
        core_hours=math.fsum(dm.rollup_core_hours),
        gpu_hours=math.fsum(h for ln in lines for h in ln.gpu_hours),
        storage_tb=math.fsum(ln.tb for ln in lines if ln.kind == "storage"),
        compute_usd=compute_usd, storage_usd=storage_usd, subsidy_usd=adjusted.subsidy_usd,
        cap_usd=adjusted.cap_usd, total_usd=sum((ln.amount_usd for ln in lines), Decimal(0)), notes=dm.notes,
    )
    projects = {p.pk: p for p in Project.objects.filter(pk__in={ln.project_id for ln in lines if ln.project_id})}
    StatementLine.objects.bulk_create([
        StatementLine(
            statement=statement, kind=ln.kind, project_id=ln.project_id,
            project_name=projects[ln.project_id].name if ln.project_id in projects else "",
            pi=projects[ln.project_id].pi if ln.project_id in projects else "",
            user=ln.user, cluster=ln.cluster, queue=ln.queue, qos=ln.qos, filesystem=ln.filesystem, tier=ln.tier,
            jobs=ln.jobs, core_hours=math.fsum(ln.core_hours), gpu_hours=math.fsum(ln.gpu_hours),
            mem_gb_hours=math.fsum(ln.mem_gb_hours), tb=ln.tb, rate=ln.rate, multiplier=ln.multiplier,
            amount_usd=ln.amount_usd,
        )
        for ln in lines
    ], batch_size=2000)
    StatementJob.objects.bulk_create([StatementJob(statement=statement, **job) for job in dm.top_jobs])
    statement.department = Department.objects.get(pk=dm.department_id)
    return statement, True


def months_with_usage(*, last: int | None = None) -> list[date]:
    months = list(UsageMonthly.objects.order_by("-month").values_list("month", flat=True).distinct())
    if last is not None:
        months = months[:last]
    return sorted(months)


def statement_is_stale(statement: Statement) -> str:
    """Why the statement may no longer match its inputs ('' when it does): cheap checks only."""
    if statement.plan_id is None:
        return "Its rate plan was deleted."
    plan = plan_for_month(statement.month)
    if plan is None or plan.pk != statement.plan_id:
        return "A different rate plan is now in force for this month."
    if plan.updated_at > statement.computed_at:
        return "The rate plan was edited after this statement was computed."
    rows = UsageMonthly.objects.filter(month=statement.month, department_id=statement.department_id)
    if math.fsum(rows.values_list("core_hours", flat=True)) != statement.core_hours:
        return "Usage or its attribution to departments changed since this statement was computed."
    return ""


# --- Re-pricing after attribution changes ------------------------------------------------------
# The Celery task computing statements (forecasts.chargeback.tasks), enqueued by name.
COMPUTE_TASK = "forecasts.tasks_chargeback.chargeback_compute"


def statements_reprice_after_attribution_change(user: Any = None, **_signal: Any) -> Any:
    """Queue re-pricing of every month that has current statements; returns the BackgroundJob or None.

    Connected to forecasts.accounting.org.attribution_changed (forecasts.apps): accounting says
    that usage moved between departments and never needs to know that chargeback exists.
    """
    from planner.jobs.services import job_start

    months = sorted(set(Statement.objects.filter(is_current=True).values_list("month", flat=True)))
    if not months:
        return None
    return job_start(
        kind="chargeback", label="Re-pricing statements after an identity mapping changed",
        task=COMPUTE_TASK, user=user, unit="months",
        params={"months": [f"{m:%Y-%m}" for m in months], "department": None, "reason": "identity mapping changed"},
    )
