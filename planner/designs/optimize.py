"""Cost-minimal multi-year purchase plan as a MILP (HiGHS: scipy.optimize.milp, or highspy), pure core.

Decision variables: integer nodes x[n, y] and storage units s[k, y] bought in year y (only from the
item's first year), active for its lifetime. Minimise the net present cost of capex + opex over the
horizon (the same number ``evaluate_design`` reports as ``npv_usd``) subject to, every year: demand
core-hours (normalised), plannable storage TB, flash TB for ``flash_days`` of ingest, metadata
files, bandwidth, yearly capex budgets and peak genomes/day. The genomes/day capacity is the best
single pipeline tier: binaries w[k, t] choose the tier, g[k, t] <= nodes' rate on tier k,
g[k, t] <= G_t w[k, t], g <= the tier's genomes/day ceiling, w <= units present, sum_k w <= 1,
sum_k g >= G_t. This equals the evaluation's max over storage present, so the optimum is exact.
With the performance model (issue 16) the genomes rows are planner.designs.genomes.add_genome_rows:
one binary per year picks the pipeline tier and one the storage utilisation level; node types serve
genomes at the model's rate for that level, within the tier's operations, the working sets its flash
holds and the turnaround limit; the same terms the evaluation maximises, so the optimum stays exact.

Prices per year (``design.prices``): a unit bought in year y costs the year-y price, and its support
over its life is a share of that price, so with a falling $/TB the objective itself rewards buying
storage only when it is needed (each year's purchase is a separate variable with its own cost).

When infeasible, an elastic copy with a slack on every demand / budget row (weighted by 1/rhs) gives
the minimal relative shortfalls, and a budget-only elastic copy gives the budget that would suffice.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from forecasts.units import HOURS_PER_DAY, HOURS_PER_YEAR, SECONDS_PER_HOUR
from planner.designs.capacity import (
    CHECK_FIELD,
    Asset,
    Design,
    DesignEvaluation,
    Purchase,
    core_hours_share,
    evaluate_design,
    ingest_gbps,
    json_safe,
    pipeline_model,
    purchase_cost,
    resolve_assets,
    schedulable_hours_per_year,
)
from planner.designs.genomes import add_genome_rows, why_no_genomes
from planner.designs.highs import Arrays, row_matrix, solve_highs
from planner.designs.second_core import PLAN_SHARE, POLISH_SHARE, start_second_core
from planner.designs.service_level import ServiceLevel
from planner.designs.warm_start import START_SHARE, start_plans
from planner.hardware.catalog import Catalog
from planner.hardware.costmodel import CostModel
from planner.hardware.design_model import PipelineModel

INF = np.inf


@dataclass(slots=True)
class Shortfall:
    constraint: str
    year: int
    shortfall: float
    unit: str
    required: float


@dataclass(slots=True)
class OptimizationResult:
    status: str  # "optimal", "gap" (feasible, gap > 0), "infeasible", "time_limit" (no solution)
    message: str
    mip_gap: float | None
    npv_usd: float | None  # objective: net present capex + opex, incl. existing inventory's opex
    purchases: list[Purchase]
    evaluation: DesignEvaluation | None
    shortfalls: list[Shortfall] = field(default_factory=list)  # minimal ones, when infeasible
    budget_needed_usd: dict[int, float] = field(default_factory=dict)  # when budgets block
    solve_seconds: float = 0.0
    n_variables: int = 0
    n_constraints: int = 0
    paths_covered: dict[int, float] | None = None  # with a service level: share of paths covered per year
    in_sample_level: float | None = None  # with a service level: the share of the paths it was bought to cover

    def to_dict(self) -> dict[str, Any]:
        out = {k: asdict(self)[k] for k in self.__dataclass_fields__ if k != "evaluation"}  # type: ignore
        out["evaluation"] = self.evaluation.to_dict() if self.evaluation else None
        return json_safe(out)


class _Model:
    def __init__(self) -> None:
        self.cost: list[float] = []
        self.lb: list[float] = []
        self.ub: list[float] = []
        self.integ: list[int] = []
        self.rows: list[dict[int, float]] = []
        self.rlb: list[float] = []
        self.rub: list[float] = []
        self.tags: list[tuple[str, int, str, float] | None] = []  # elastic rows: (name, year, unit, rhs)
        self._arrays: tuple[tuple[int, int], Arrays] | None = None

    def var(self, cost: float, lb: float, ub: float, integer: bool) -> int:
        self.cost.append(cost)
        self.lb.append(lb)
        self.ub.append(ub)
        self.integ.append(1 if integer else 0)
        return len(self.cost) - 1

    def row(self, coefs: dict[int, float], lb: float, ub: float,
            tag: tuple[str, int, str, float] | None = None) -> None:
        self.rows.append(coefs)
        self.rlb.append(lb)
        self.rub.append(ub)
        self.tags.append(tag)

    def arrays(self) -> Arrays:
        """The model as highspy's arrays, built once for every solve of the finished model (the start
        plans' LP and fixed-corner MIPs, the second process, the main solve). The model only grows
        (var, row), so its size says whether the arrays are still its own."""
        size = (len(self.cost), len(self.rows))
        if self._arrays is None or self._arrays[0] != size:
            self._arrays = (size, Arrays.of(self))
        return self._arrays[1]

    def solve(self, time_limit_s: float, gap: float, start: np.ndarray | None = None,
              lb: list[float] | None = None, ub: list[float] | None = None, lp_only: bool = False,
              use_highspy: bool = False, partner: Any = None) -> Any:
        """HiGHS on the model. Through highspy (planner.designs.highs) for a starting solution, other
        bounds, LP duals or on request (service-level plans); otherwise through scipy.optimize.milp,
        whose bundled HiGHS 1.12 solves the single-demand plans about a third faster than highspy 1.16
        (4.4 s against 6.6 s CPU on the bench_design instance), while 1.16 closes the service-level
        plans' gap faster (docs/uncertainty.md)."""
        if use_highspy or start is not None or lb is not None or ub is not None or lp_only or partner is not None:
            return solve_highs(self, time_limit_s, gap, start=start, lb=lb, ub=ub, lp_only=lp_only, partner=partner,
                               arrays=self.arrays())
        a = row_matrix(self.rows, len(self.cost)).tocsr()
        return milp(
            np.array(self.cost), integrality=np.array(self.integ),
            bounds=Bounds(np.array(self.lb), np.array(self.ub)),
            constraints=LinearConstraint(a, np.array(self.rlb), np.array(self.rub)) if self.rows else None,
            options={"time_limit": time_limit_s, "mip_rel_gap": gap, "disp": False},
        )


def rate_row_implied(need: float, need_tb: float, systems: list[tuple[float, float]]) -> bool:
    """Whether ``sum rate_s x_s >= need`` follows from ``sum tb_s x_s >= need_tb`` for every x >= 0, given each
    system's (rate, tb): it does when nothing is needed, or when every system gives at least need / need_tb
    of the rate per TB."""
    if need <= 1e-9:
        return True
    if need_tb <= 1e-9:
        return False
    return all(rate * need_tb >= need * tb for rate, tb in systems)


def _build(design: Design, catalog: Catalog, model: CostModel, nodes: list[str], stores: list[str],
           fixed: list[Asset], max_count: int, elastic: str, sla: ServiceLevel | None = None,
           pm: PipelineModel | None = None,
           ) -> tuple[_Model, dict[tuple[str, str, int], int], list[tuple[int, tuple]], float]:
    """elastic: "" (hard), "all" (slack on demand and budget rows) or "budget" (budget rows only).

    sla: demand rows of the path-dependent constraints take a requirement variable covered by a
    share of the paths (planner.designs.service_level) instead of the design's single figure.
    """
    m = _Model()
    years = design.years
    r = design.costs.discount_rate
    df = {t: 1.0 / (1.0 + r) ** (t - design.start_year) for t in years}
    energy = HOURS_PER_YEAR / 1000.0 * design.costs.pue * design.costs.power_usd_per_kwh
    hours = schedulable_hours_per_year(design.costs.maintenance_days_per_year) * design.utilisation_target
    ref_ghz = design.reference_clock_ghz * design.reference_arch_factor
    files_per_iops = design.metadata_scan_hours * SECONDS_PER_HOUR / design.metadata_ops_per_file

    def item(kind: str, name: str) -> Any:
        return catalog.node(name) if kind == "node" else catalog.storage(name)

    def price(kind: str, name: str, year: int) -> float:
        return design.unit_price_usd(catalog, kind, name, year)

    def opex(it: Any, paid: float) -> float:
        pct = design.costs.support_pct_per_year
        pct = it.support_pct_per_year if pct is None else pct
        return it.power_w * energy + paid * pct / 100.0

    const = 0.0
    for a in fixed:
        it = item(a.kind, a.name)
        paid = it.price_usd if a.sunk else price(a.kind, a.name, a.year)
        if not a.sunk and a.year in df:
            const += paid * a.count * df[a.year]
        const += sum(opex(it, paid) * a.count * df[t] for t in years if a.active(t))
    var: dict[tuple[str, str, int], int] = {}
    for kind, names in (("node", nodes), ("storage", stores)):
        for name in names:
            it = item(kind, name)
            for y in years:
                if y < it.first_year or (it.last_year is not None and y > it.last_year):
                    continue
                var[(kind, name, y)] = m.var(purchase_cost(design, it, price(kind, name, y), y), 0, max_count, True)

    def active(kind: str, name: str, t: int) -> list[int]:
        life = item(kind, name).lifetime_years
        return [j for (k, n, y), j in var.items() if k == kind and n == name and y <= t < y + life]

    def fixed_sum(t: int, fn: Any) -> float:
        return sum(fn(a) * a.count for a in fixed if a.active(t))

    tiers = sorted(set(stores) | {a.name for a in fixed if a.kind == "storage"})
    tiers = [k for k in tiers if catalog.storage(k).kind != "archive"]
    slack_tags: list[tuple[int, tuple]] = []

    def fixed_count(kind: str, name: str, year: int) -> float:
        return float(sum(a.count for a in fixed if a.kind == kind and a.name == name and a.active(year)))

    def demand_row(coefs: dict[int, float], rhs: float, tag: tuple[str, int, str, float]) -> None:
        if CHECK_FIELD.get(tag[0]) in design.checks_off:
            return
        if sla is not None and not elastic and sla.covers(tag[0], tag[1]):
            sla.demand_row(m, coefs, tag[3] - rhs, tag[0], tag[1], tag)  # tag[3] - rhs: what is installed
            return
        if rhs <= 1e-9:
            return
        if elastic == "all":
            j = m.var(1.0 / max(rhs, 1.0), 0, INF, False)
            coefs = coefs | {j: 1.0}
            slack_tags.append((j, tag))
        m.row(coefs, rhs, INF, tag)

    def lin(kind: str, fn: Any, names: list[str], t: int) -> dict[int, float]:
        out: dict[int, float] = {}
        for name in names:
            coef = fn(item(kind, name))
            if coef:
                for j in active(kind, name, t):
                    out[j] = coef
        return out

    def nodes_fixed(fn: Any, t: int) -> float:
        return fixed_sum(t, lambda a: fn(catalog.node(a.name)) if a.kind == "node" else 0.0)

    def store_fixed(fn: Any, t: int) -> float:
        return fixed_sum(t, lambda a: fn(catalog.storage(a.name)) if a.kind == "storage" else 0.0)

    ch_share = core_hours_share(design)

    def node_ch(it: Any) -> float:
        return float(it.cores_per_node * hours * it.core_ghz / ref_ghz * ch_share)

    def plannable(it: Any) -> float:
        limit = design.fullness_limit if design.fullness_limit is not None else it.fullness_limit
        return 0.0 if it.kind == "archive" else float(it.usable_tb * limit)

    def flash(it: Any) -> float:
        return float(it.usable_tb) if it.kind == "flash" else 0.0

    def files(it: Any) -> float:
        return 0.0 if it.kind == "archive" else float(it.metadata_iops * files_per_iops)

    def gbps(it: Any) -> float:
        return 0.0 if it.kind == "archive" else float(it.throughput_gbps)

    share = design.utilisation_target * design.genomics_share

    def rate_on(k: str) -> Any:
        def rate(it: Any) -> float:
            wall = model.wall_core_hours_per_sample(design.pipeline, it.name, k).value
            return HOURS_PER_DAY * it.cores_per_node * share / wall
        return rate

    def implied_by_storage(t: int, need_gbps: float) -> bool:
        """Exact presolve: the ingest's throughput row is left out when the year's storage row implies it, i.e.
        every system writes at least need_gbps / need_tb GB/s per plannable TB (both rows sum the same units,
        so any purchase meeting the TB meets the GB/s). A redundant row changes no optimum, only HiGHS's path:
        on bench_service_level it cost seed 21 its gap (0.40 % -> 0.96 % in 30 s)."""
        if elastic or "storage_tb" in design.checks_off:
            return False
        d = design.demand[t]
        floor = sla.lower_bound("storage_tb", t) if sla is not None and sla.covers("storage_tb", t) else d.storage_tb
        need_tb = floor - store_fixed(plannable, t)
        return rate_row_implied(need_gbps, need_tb, [(gbps(catalog.storage(k)), plannable(catalog.storage(k)))
                                                     for k in stores])

    for t in years:
        d = design.demand.get(t)
        if d is None:
            continue
        demand_row(lin("node", node_ch, nodes, t), d.core_hours - nodes_fixed(node_ch, t),
                   ("core_hours", t, "core-hours", d.core_hours))
        for name, fn, req, unit in (
            ("storage_tb", plannable, d.storage_tb, "TB"),
            ("flash_tb", flash, design.flash_days * d.ingest_tb_per_day, "TB"),
            ("ingest_gbps", gbps, ingest_gbps(d.ingest_tb_per_day), "GB/s"),
            ("metadata_files", files, d.files, "files"),
            ("bandwidth_gbps", gbps, d.bandwidth_gbps, "GB/s"),
        ):
            if name == "ingest_gbps" and implied_by_storage(t, req - store_fixed(fn, t)):
                continue
            demand_row(lin("storage", fn, stores, t), req - store_fixed(fn, t), (name, t, unit, req))
        g_paths = sla is not None and not elastic and sla.covers("genomes_per_day", t)
        g_bound = sla.upper_bound("genomes_per_day", t) if g_paths and sla is not None else d.genomes_per_day
        if "genomes_per_day" in design.checks_off:
            g_bound = 0.0
        if g_bound > 0 and pm is not None:
            g_model = add_genome_rows(
                m, pm, catalog, year=t, bound=g_bound, nodes=sorted(set(nodes) | {a.name for a in fixed
                                                                                if a.kind == "node"}),
                tiers=tiers, active=active, fixed_count=fixed_count, core_share=share,
                rho_max=design.storage_utilisation_max, reserved_tb=design.flash_days * d.ingest_tb_per_day,
                turnaround_limit_hours=design.turnaround_hours, share_levels=sla is not None)
            demand_row(g_model, d.genomes_per_day, ("genomes_per_day", t, "genomes/day", d.genomes_per_day))
        elif g_bound > 0:
            g_vars: dict[int, float] = {}
            w_vars: dict[int, float] = {}
            for k in tiers:
                st = catalog.storage(k)
                rate = rate_on(k)
                g = m.var(0.0, 0, INF, False)
                w = m.var(0.0, 0, 1, True)
                g_vars[g], w_vars[w] = 1.0, 1.0
                rates = {j: -c for j, c in lin("node", rate, nodes, t).items()}
                m.row({g: 1.0} | rates, -INF, nodes_fixed(rate, t))
                m.row({g: 1.0, w: -g_bound}, -INF, 0.0)
                units_k = {j: -1.0 for j in (active("storage", k, t) if k in stores else [])}
                units_fixed = float(sum(a.count for a in fixed
                                        if a.kind == "storage" and a.name == k and a.active(t)))
                m.row({w: 1.0} | units_k, -INF, units_fixed)
                if st.ceiling_genomes_per_day:
                    cap = st.ceiling_genomes_per_day
                    m.row({g: 1.0} | {j: cap * v for j, v in units_k.items()}, -INF, cap * units_fixed)
            m.row(w_vars, -INF, 1.0)
            demand_row(g_vars, d.genomes_per_day, ("genomes_per_day", t, "genomes/day", d.genomes_per_day))
        if t in design.budgets_usd:
            coefs = {j: price(k, n, y) for (k, n, y), j in var.items() if y == t}
            rhs = design.budgets_usd[t] - sum(
                price(a.kind, a.name, a.year) * a.count for a in fixed if not a.sunk and a.year == t
            )
            tag = ("budget_usd", t, "USD", design.budgets_usd[t])
            if elastic in ("all", "budget"):
                j = m.var(1.0 / max(design.budgets_usd[t], 1.0), 0, INF, False)
                coefs = coefs | {j: -1.0}
                slack_tags.append((j, tag))
            m.row(coefs, -INF, rhs, tag)
    if sla is not None and not elastic:
        sla.finish(m)
    if elastic:  # feasibility only: costs off
        slack_ids = {j for j, _ in slack_tags}
        m.cost = [c if j in slack_ids else 0.0 for j, c in enumerate(m.cost)]
    return m, var, slack_tags, const


def optimize_design(design: Design, catalog: Catalog, *, node_types: list[str] | None = None,
                    storage_systems: list[str] | None = None, max_count_per_year: int = 5000,
                    time_limit_s: float = 10.0, mip_rel_gap: float = 1e-3,
                    keep_purchases: bool = False, service_level: ServiceLevel | None = None) -> OptimizationResult:
    """Cheapest purchase plan (NPV of capex + opex) meeting every constraint of ``design`` each year.

    With ``service_level``, the path-dependent constraints need only hold, jointly, on a share
    alpha of the demand paths each year (exact for those paths; see planner.designs.service_level).
    """
    t0 = time.perf_counter()
    model = CostModel(catalog)
    pm = pipeline_model(design, catalog)
    nodes = sorted(node_types if node_types is not None else catalog.node_types)
    stores = sorted(
        storage_systems if storage_systems is not None
        else [k for k, s in catalog.storage_systems.items() if s.kind != "archive"]
    )
    nodes = [n for n in nodes if catalog.node(n).first_year <= design.end_year]
    stores = [k for k in stores if catalog.storage(k).first_year <= design.end_year]
    base = replace(design, purchases=list(design.purchases) if keep_purchases else [])
    fixed = resolve_assets(base, catalog)
    m, var, _, const = _build(base, catalog, model, nodes, stores, fixed, max_count_per_year, "",
                              service_level, pm)
    if not var:  # an empty program: HiGHS would answer "`c` must be ... at least one element"
        return _nothing_to_buy(base, catalog, model, pm, nodes, stores, t0)
    start, partner = None, None
    if service_level is not None:
        # the other core proves a bound and finds plans of its own (planner.designs.second_core)
        storage = [j for (k, _, _), j in var.items() if k == "storage"]
        systems = [name for (k, name, _) in var if k == "storage"]
        hulls = service_level.pair_hulls()  # for the relaxation's bound only
        partner, arrays = start_second_core(m, storage, time_limit_s - (time.perf_counter() - t0), mip_rel_gap,
                                            systems, hulls, service_level.joint_sets())
        # feasible plans first (one corner per year): HiGHS starts from the cheaper
        try:
            firsts = start_plans(m, service_level, time_limit_s * START_SHARE, mip_rel_gap)
        except BaseException:
            if partner is not None:
                partner.finish(0.0)
            raise
        start = firsts[0] if firsts else None
        if partner is not None and start is not None:
            for x in firsts:  # both are parents of the second process's crossover
                partner.share_plan(x)
            # a local search on its storage purchases before branching (planner.designs.local_search)
            start = partner.polish(arrays, storage, systems, start, time_limit_s * POLISH_SHARE)
        if partner is not None:  # the descent from the relaxation's optimum on this core (SPLIT_SEARCH)
            start = partner.descend(arrays, storage, systems, start, t0 + time_limit_s - 1.0,
                                    time_limit_s * PLAN_SHARE)
    res = m.solve(max(time_limit_s - (time.perf_counter() - t0), 1.0), mip_rel_gap, start=start,
                  use_highspy=service_level is not None, partner=partner)
    n_var, n_con = len(m.cost), len(m.rows)
    if res.x is not None and res.status in (0, 1):
        new = _purchases(var, res.x)
        plan = replace(base, name=f"{design.name} (optimised)", purchases=list(base.purchases) + new)
        ev = evaluate_design(plan, catalog, model, pm)
        gap = float(getattr(res, "mip_gap", 0.0) or 0.0)
        status = "optimal" if res.status == 0 and gap <= 1e-6 else "gap"
        msg = f"HiGHS: {res.message}; relative gap {gap:.3%}"
        covered = service_level.covered(res.x) if service_level is not None else None
        return OptimizationResult(status, msg, gap, float(res.fun) + const, new, ev,
                                  solve_seconds=time.perf_counter() - t0, n_variables=n_var,
                                  n_constraints=n_con, paths_covered=covered)
    if res.status == 1:
        return OptimizationResult("time_limit", f"HiGHS: {res.message} (no feasible plan found in time)",
                                  None, None, [], None, solve_seconds=time.perf_counter() - t0,
                                  n_variables=n_var, n_constraints=n_con)
    shortfalls, budget_needed = _diagnose(base, catalog, model, nodes, stores, fixed, max_count_per_year,
                                          time_limit_s, pm)
    parts = [f"{s.constraint} in {s.year} short by {_amount(s.shortfall)} {s.unit}" for s in shortfalls]
    msg = "infeasible: " + ("; ".join(parts) if parts else str(res.message))
    if pm is not None and any(s.constraint == "genomes_per_day" for s in shortfalls):
        why = why_no_genomes(pm, catalog, nodes + [a.name for a in fixed if a.kind == "node"],
                             core_share=design.utilisation_target * design.genomics_share,
                             rho_max=design.storage_utilisation_max, turnaround_limit_hours=design.turnaround_hours)
        msg += f" ({why})" if why else ""
    if budget_needed:
        msg += "; feasible with budgets " + ", ".join(f"{y}: ${v:,.0f}" for y, v in budget_needed.items())
    return OptimizationResult("infeasible", msg, None, None, [], None, shortfalls, budget_needed,
                              solve_seconds=time.perf_counter() - t0, n_variables=n_var, n_constraints=n_con)


def _nothing_to_buy(design: Design, catalog: Catalog, model: CostModel, pm: PipelineModel | None,
                    nodes: list[str], stores: list[str], t0: float) -> OptimizationResult:
    """No candidate is sold in any of the design's years (the catalog's first and last years): the plan is
    the design as given; when that falls short, the run says what could not be bought and when it could."""
    ev = evaluate_design(design, catalog, model, pm)
    if ev.feasible:
        return OptimizationResult("optimal", "nothing to buy: the design meets every constraint as given", 0.0,
                                  ev.npv_usd, [], ev, solve_seconds=time.perf_counter() - t0)
    sold = [f"{name} {it.first_year}-{it.last_year or 'on'}"
            for name, it in sorted([(n, catalog.node(n)) for n in catalog.node_types]
                                   + [(k, catalog.storage(k)) for k in catalog.storage_systems])
            if not nodes and not stores or name in nodes or name in stores]
    shortfalls = [Shortfall(c.name, c.year, c.shortfall, c.unit, c.required) for c in ev.failures]
    msg = (f"infeasible: no candidate node type or storage system in the catalog is sold in "
           f"{design.start_year}-{design.end_year} (sold: {', '.join(sold) or 'none'}); add one sold in those "
           "years to the catalog, or move the design's years")
    return OptimizationResult("infeasible", msg, None, None, [], None, shortfalls,
                              solve_seconds=time.perf_counter() - t0)


def _amount(value: float) -> str:
    """A shortfall as a planner reads it: '34,404', not '3.44e+04' (the old format); small ones to 4 figures."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:,.4g}"


def _purchases(var: dict[tuple[str, str, int], int], x: Any) -> list[Purchase]:
    return [
        Purchase(y, node_type=n if k == "node" else None, storage_system=n if k == "storage" else None,
                 count=int(round(x[j])))
        for (k, n, y), j in sorted(var.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1]))
        if round(x[j]) > 0
    ]


def _diagnose(
    design: Design, catalog: Catalog, model: CostModel, nodes: list[str], stores: list[str],
    fixed: list[Asset], max_count: int, time_limit_s: float, pm: PipelineModel | None = None,
) -> tuple[list[Shortfall], dict[int, float]]:
    shortfalls: list[Shortfall] = []
    m, _, tags, _ = _build(design, catalog, model, nodes, stores, fixed, max_count, "all", None, pm)
    res = m.solve(time_limit_s, 1e-6)
    if res.x is not None:
        for j, (name, year, unit, rhs) in tags:
            val = float(res.x[j])
            if val > 1e-6 * max(1.0, abs(rhs)):
                shortfalls.append(Shortfall(name, year, val, unit, rhs))
    budget_needed: dict[int, float] = {}
    if design.budgets_usd:
        m, _, tags, _ = _build(design, catalog, model, nodes, stores, fixed, max_count, "budget", None, pm)
        res = m.solve(time_limit_s, 1e-6)
        if res.x is not None:
            for j, (_, year, _, rhs) in tags:
                if res.x[j] > 1e-6:
                    budget_needed[year] = rhs + float(res.x[j])
    return shortfalls, budget_needed
