"""Genomes/day of a year's machine from the performance model (pure core; used by capacity and optimize).

For each storage system present as the pipeline tier and each storage utilisation level rho
(planner.hardware.design_model), the year's capacity is the largest genomes/day the node types can
serve (planner.hardware.rates.allocate: g_n <= rate_n x nodes_n, the tier's operations at rho, the
working sets of the genomes in flight on its fast tier, the turnaround limit). The capacity is the
best (tier, level); the operating point reported per genome (turnaround, core-hours, storage-bound
fraction) is the least busy level that still meets the year's demand. The optimiser builds the
same terms as linear rows (planner.designs.optimize), so its plans evaluate feasible and it finds
the cheapest one exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner.hardware.design_model import PipelineModel, utilisation_levels
from planner.hardware.performance import samples_per_node, usable_cores
from planner.hardware.rates import OptionRate, allocate

TOL = 1e-9


@dataclass(slots=True)
class GenomesResult:
    genomes_per_day: float  # capacity: the best tier and level
    tier: str | None
    storage_utilisation: float  # level at the operating point
    limit: str  # what bounds the capacity
    by_node: dict[str, float] = field(default_factory=dict)  # genomes/day each node type serves
    in_flight: float = 0.0
    working_set_tb: float = 0.0
    cpu_hours: float = 0.0  # per genome, mean over the node types serving (at the operating point)
    wall_core_hours: float = 0.0
    turnaround_hours: float = 0.0
    storage_bound_fraction: float = 0.0
    rules: dict[str, str] = field(default_factory=dict)


def tier_names(catalog: Any, storage_units: dict[str, int]) -> list[str]:
    return sorted(k for k, u in storage_units.items() if u > 0 and catalog.storage(k).kind != "archive")


def fast_tb_available(pm: PipelineModel, tier: str, units: float, reserved_tb: float) -> float | None:
    """Working-set capacity of ``units`` of the tier (None: unbounded); a flash tier first holds
    ``reserved_tb`` of ingest."""
    terms = pm.tier(tier)
    if terms.working_set_tb_per_unit is None:
        return None
    return max(0.0, terms.working_set_tb_per_unit * units - (reserved_tb if terms.holds_ingest else 0.0))


def rates_at(pm: PipelineModel, nodes: list[str], rho: float, core_share: float) -> dict[str, OptionRate]:
    return {n: pm.option(n, rho, core_share) for n in nodes}


def model_genomes(pm: PipelineModel, catalog: Any, node_counts: dict[str, int], storage_units: dict[str, int],
                  demand_gpd: float, *, core_share: float, rho_max: float, reserved_tb: float,
                  turnaround_limit_hours: float | None) -> GenomesResult:
    nodes = sorted(n for n, c in node_counts.items() if c > 0)
    best: tuple[float, str, float] | None = None
    meets: tuple[float, float, str] | None = None  # (rho, -capacity, tier): least busy, then largest
    for tier in tier_names(catalog, storage_units):
        fast = fast_tb_available(pm, tier, storage_units[tier], reserved_tb)
        for rho in utilisation_levels(rho_max):
            rates = rates_at(pm, nodes, rho, core_share)
            ops_cap = pm.tier_genomes_per_day_per_unit(tier, rho) * storage_units[tier]
            g = allocate(rates, node_counts, ops_cap, fast, pm.working_set_gb, turnaround_limit_hours).genomes_per_day
            if best is None or g > best[0] * (1 + TOL) + TOL:
                best = (g, tier, rho)
            if demand_gpd > 0 and g >= demand_gpd * (1 - TOL):
                cand = (rho, -g, tier)
                if meets is None or cand < meets:
                    meets = cand
    if best is None:
        return GenomesResult(0.0, None, 0.0, "no storage for the pipeline")
    capacity, cap_tier, cap_rho = best
    limit = allocate(rates_at(pm, nodes, cap_rho, core_share), node_counts,
                     pm.tier_genomes_per_day_per_unit(cap_tier, cap_rho) * storage_units[cap_tier],
                     fast_tb_available(pm, cap_tier, storage_units[cap_tier], reserved_tb),
                     pm.working_set_gb, turnaround_limit_hours).limit
    # the operating point: how the year's demand is served at the least busy level that meets it
    tier, rho = (meets[2], meets[0]) if meets else (cap_tier, cap_rho)
    rates = rates_at(pm, nodes, rho, core_share)
    ops_cap = pm.tier_genomes_per_day_per_unit(tier, rho) * storage_units[tier]
    serve = min(ops_cap, demand_gpd) if demand_gpd > 0 else ops_cap
    alloc = allocate(rates, node_counts, serve, fast_tb_available(pm, tier, storage_units[tier], reserved_tb),
                     pm.working_set_gb, turnaround_limit_hours)
    served = {n: g for n, g in alloc.by_node.items() if g > 0}
    weights = served or ({min(rates, key=lambda n: rates[n].turnaround_hours): 1.0} if rates else {})
    total = sum(weights.values()) or 1.0

    def mean(attr: str) -> float:
        return sum(getattr(rates[n], attr) * w for n, w in weights.items()) / total

    rules = {n: pm.arch_rule(n) for n in nodes}
    rules[f"tier:{tier}"] = pm.tier(tier).rule
    return GenomesResult(
        genomes_per_day=capacity, tier=tier, storage_utilisation=rho, limit=limit, by_node=served,
        in_flight=alloc.in_flight,
        working_set_tb=alloc.in_flight * pm.working_set_gb / 1000.0,
        cpu_hours=mean("cpu_hours") if weights else 0.0,
        wall_core_hours=mean("wall_core_hours") if weights else 0.0,
        turnaround_hours=mean("turnaround_hours") if weights else 0.0,
        storage_bound_fraction=mean("storage_bound_fraction") if weights else 0.0, rules=rules,
    )


def add_genome_rows(m: Any, pm: PipelineModel, catalog: Any, *, year: int, bound: float, nodes: list[str],
                    tiers: list[str], active: Any, fixed_count: Any, core_share: float, rho_max: float,
                    reserved_tb: float, turnaround_limit_hours: float | None,
                    share_levels: bool = True) -> dict[int, float]:
    """The optimiser's rows for one year (same terms as :func:`model_genomes`). Returns the genomes/day
    variables whose sum must reach the demand.

    One binary picks the pipeline tier (w_k) and one the utilisation level (z_l). g[n, l] is what node
    type n serves at level l (node rate at l, turnaround limit); h[k, l] and f[k, l] carry the level's
    genomes/day and genomes in flight to the chosen tier, where its operations at l and its fast
    capacity (less the ingest a flash tier keeps) bound them. With one tier and one level chosen this
    is exactly the evaluation's best (tier, level) allocation, in far fewer variables than one copy
    of every node per tier and level.

    Only the chosen level carries genomes, so a node's time, a tier's operations and its fast capacity
    are shared across the levels: sum_l g[n, l] / rate[n, l] <= nodes_n, sum_l h[k, l] / cap[k, l] <=
    units_k and sum_l f[k, l] + reserve w_k <= ws units_k. These rows (``_level_shares``) cut nothing
    with z whole; with z fractional (the LP, the second process's storage-only relaxation) they stop
    the same nodes and units counting once per level. On bench_service_level they raise the storage-only
    relaxation's bound by 0.03-0.15 % (path seed 141: to the bound the relaxation with every tier and
    level binary whole proves) and 13-14 of 21 path seeds meet the 0.5 % gap in 30 s, against 10
    (docs/performance.md). HiGHS alone on a single-demand plan is slower with them (bench_design:
    6.1-7.0 s against 5.1-5.3 s), so the optimiser asks for them (``share_levels``) with a service level.

    ``m``: the optimiser's model (``var``, ``row``); ``active(kind, name, year)``: purchase variables
    in service; ``fixed_count(kind, name, year)``: units owned before or fixed by the plan.
    """
    inf = float("inf")
    levels = utilisation_levels(rho_max)
    present = [n for n in nodes if active("node", n, year) or fixed_count("node", n, year) > 0]
    usable = [k for k in tiers if active("storage", k, year) or fixed_count("storage", k, year) > 0]
    if not present or not usable:
        return {}
    w = {k: m.var(0.0, 0, 1, True) for k in usable}
    z = {lv: m.var(0.0, 0, 1, True) for lv in levels}
    m.row(dict.fromkeys(w.values(), 1.0), -inf, 1.0)
    m.row(dict.fromkeys(z.values(), 1.0), -inf, 1.0)
    for k in usable:  # a tier can carry the pipeline only if it exists that year
        m.row({w[k]: 1.0} | {j: -1.0 for j in active("storage", k, year)}, -inf,
              float(fixed_count("storage", k, year)))
    g_all: dict[int, float] = {}
    # the level shares (above): per node type or tier, every level's term of the per-level row, and once the
    # row's level-independent rest and bound
    shared: dict[tuple[str, str], tuple[dict[int, float], dict[int, float], float]] = {}

    def share(key: tuple[str, str], term: dict[int, float], rest: dict[int, float], rhs: float) -> None:
        shared.setdefault(key, ({}, rest, rhs))[0].update(term)

    for lv in levels:
        gs: dict[int, float] = {}
        flight: dict[int, float] = {}
        for n in present:
            r = pm.option(n, lv, core_share)
            if turnaround_limit_hours is not None and r.turnaround_hours > turnaround_limit_hours + 1e-9:
                continue
            g = m.var(0.0, 0, bound, False)
            gs[g] = 1.0
            flight[g] = r.in_flight_per_genome_per_day * pm.working_set_gb / 1000.0  # TB per genome/day
            rate = r.genomes_per_day_per_node
            own, owned = active("node", n, year), float(fixed_count("node", n, year))
            m.row({g: 1.0} | {j: -rate for j in own}, -inf, rate * owned)
            if rate > 0:  # the same row over the rate
                share(("node", n), {g: 1.0 / rate}, dict.fromkeys(own, -1.0), owned)
        if not gs:
            m.row({z[lv]: 1.0}, -inf, 0.0)
            continue
        m.row(gs | {z[lv]: -bound}, -inf, 0.0)
        big_flight = bound * max(flight.values())
        h_sum: dict[int, float] = {}
        f_sum: dict[int, float] = {}
        for k in usable:
            terms = pm.tier(k)
            units = {j: 1.0 for j in active("storage", k, year)}
            units_fixed = float(fixed_count("storage", k, year))
            h = m.var(0.0, 0, bound, False)
            f = m.var(0.0, 0, big_flight, False)
            h_sum[h], f_sum[f] = -1.0, -1.0
            m.row({h: 1.0, w[k]: -bound}, -inf, 0.0)
            m.row({f: 1.0, w[k]: -big_flight}, -inf, 0.0)
            cap = terms.genomes_per_day_per_unit(pm.pipeline, lv)
            if cap != inf:
                m.row({h: 1.0} | {j: -cap for j in units}, -inf, cap * units_fixed)
                if cap > 0:
                    share(("ops", k), {h: 1.0 / cap}, dict.fromkeys(units, -1.0), units_fixed)
            ws = terms.working_set_tb_per_unit
            if ws is not None:
                reserve = reserved_tb if terms.holds_ingest else 0.0
                rest = {w[k]: reserve} | {j: -ws for j in units}
                m.row({f: 1.0} | rest, -inf, ws * units_fixed)
                share(("fast", k), {f: 1.0}, rest, ws * units_fixed)
        m.row(gs | h_sum, 0.0, 0.0)  # the level's genomes/day go to the chosen tier
        m.row(flight | f_sum, 0.0, 0.0)  # and so do their genomes in flight
        g_all |= gs
    if share_levels:
        _level_shares(m, [shared.get((kind, name)) for kind, names in (("node", present), ("ops", usable),
                                                                       ("fast", usable)) for name in names])
    return g_all


def _level_shares(m: Any, rows: list[tuple[dict[int, float], dict[int, float], float] | None]) -> None:
    """The rows sharing a node's time and a tier's operations and fast capacity across the levels
    (:func:`add_genome_rows`): each the sum over the levels of a per-level row, valid with one level chosen,
    tighter than the per-level rows without. ``rows``: (the levels' terms, the rest, the bound) or None."""
    for row in rows:
        if row is not None and len(row[0]) > 1:
            m.row(row[0] | row[1], -float("inf"), row[2])


def why_no_genomes(pm: PipelineModel, catalog: Any, nodes: list[str], *, core_share: float, rho_max: float,
                   turnaround_limit_hours: float | None) -> str:
    """Why none of ``nodes`` can serve a genome at any utilisation level ("" when one can): each node type's
    memory (genomes a node runs at once, or usable cores) or its shortest turnaround against the limit. The
    optimiser said only 'genomes_per_day short by 6 genomes/day' when no candidate met a 20 h turnaround."""
    if core_share <= 0:
        return "no candidate node type can serve a genome: constraints.genomics_share 0 leaves genomes no cores"
    reasons: list[str] = []
    least = min(utilisation_levels(rho_max))
    dedicated = pm.pipeline.mode == "dedicated"
    for n in sorted(set(nodes)):
        r = pm.option(n, least, core_share)
        fits = samples_per_node(pm.pipeline, pm.node(n)) if dedicated else usable_cores(pm.pipeline, pm.node(n))
        if fits <= 0:
            need = pm.pipeline.memory_gb_per_sample if dedicated else pm.pipeline.memory_gb_per_slot
            reasons.append(f"{n} has memory for no genome ({float(catalog.node(n).memory_gb):g} GB a node, "
                           f"{need:g} GB {'a genome' if dedicated else 'a job slot'})")
        elif turnaround_limit_hours is not None and r.turnaround_hours > turnaround_limit_hours + 1e-9:
            reasons.append(f"{n} turns a genome around in {r.turnaround_hours:.1f} h at best "
                           f"({least:.0%} storage busy), over the {turnaround_limit_hours:g} h limit")
        else:
            return ""
    return ("no candidate node type can serve a genome: " + "; ".join(reasons)) if reasons else ""
