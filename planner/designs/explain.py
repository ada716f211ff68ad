"""Why a design's genomes run on the node types they do, in the performance model's terms (pure core).

For one year: every node type that can be bought (or is owned) that year, at the design's operating
storage utilisation, with its per-genome CPU hours, wall core-hours, turnaround, whether it meets the
turnaround limit, genomes/day per node and the yearly cost of one genome/day of capacity
(price / lifetime + power + support, per genome/day a node sustains). The break-even price ratio
says how far the chosen node type's price could move before a rival is cheaper per genome/day:
ratio k solves k x price (1 / lifetime + support share) + power cost = rival's cost x the chosen
node's genomes/day per node. It is a per-genome/day comparison at the operating point, the term the
genomes rows of the optimiser weigh, not a re-run of the optimiser (which also weighs core-hours,
storage, budgets and the years a node type is on sale). The card says that basis, and beside it the same
break-even on the optimiser's own basis for a node bought that year (whole price within the horizon + running
costs to its end, discounted), since with a horizon shorter than the service life the two differ (judge case
c3: 2.42x annualised, 2.23x on the optimiser's basis; the optimiser has flipped at 2.30x, not at 2.17x).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from planner.designs.capacity import purchase_cost, resolve_assets
from planner.designs.labels import binds
from planner.hardware.design_model import PipelineModel
from planner.hardware.performance import usable_cores

HOURS_PER_YEAR = 8760.0


@dataclass(frozen=True, slots=True)
class NodeOption:
    node: str
    cores: int
    clock_ghz: float
    arch_factor: float
    price_usd: float
    cpu_hours: float
    wall_core_hours: float
    turnaround_hours: float
    storage_bound_fraction: float
    genomes_per_day_per_node: float
    usd_per_genome_day_year: float  # yearly cost of one genome/day of capacity
    eligible: bool  # meets the turnaround limit
    price_source: str = ""
    memory_gb_per_core: float = 0.0
    usable_cores: int = 0  # cores a job can use after the pipeline's memory bound (shared mode)


@dataclass(frozen=True, slots=True)
class BreakEven:
    chosen: str
    rival: str | None
    ratio: float | None  # chosen price x ratio = rival's cost per genome/day (>1: chosen is cheaper)
    rival_eligible: bool
    sentence: str
    plan_ratio: float | None = None  # the same break-even on the optimiser's cost basis for a node bought that year


def node_options(design: Any, catalog: Any, pm: PipelineModel, year: int, rho: float,
                 owned: set[str] | None = None, candidates: list[str] | None = None) -> list[NodeOption]:
    c = design.costs
    energy = HOURS_PER_YEAR / 1000.0 * c.pue * c.power_usd_per_kwh  # $ per W-year
    share = design.utilisation_target * design.genomics_share
    out = []
    for name, item in catalog.node_types.items():
        on_sale = item.first_year <= year and (item.last_year is None or year <= item.last_year)
        if name not in (owned or set()) and (not on_sale or (candidates is not None and name not in candidates)):
            continue
        r = pm.option(name, rho, share)
        price = design.unit_price_usd(catalog, "node", name, year)
        pct = c.support_pct_per_year if c.support_pct_per_year is not None else item.support_pct_per_year
        yearly = price / item.lifetime_years + item.power_w * energy + price * pct / 100.0
        per_gpd = yearly / r.genomes_per_day_per_node if r.genomes_per_day_per_node > 0 else math.inf
        limit = design.turnaround_hours
        node = pm.node(name)
        out.append(NodeOption(name, node.cores, node.clock_ghz, node.arch_factor, price, r.cpu_hours,
                              r.wall_core_hours, r.turnaround_hours, r.storage_bound_fraction,
                              r.genomes_per_day_per_node, per_gpd,
                              limit is None or r.turnaround_hours <= limit + 1e-9,
                              getattr(item, "price_source", ""),
                              node.memory_gb / node.cores if node.cores else 0.0,
                              usable_cores(pm.pipeline, node)))
    return sorted(out, key=lambda o: (not o.eligible, o.usd_per_genome_day_year, o.node))


BASIS = "on annualised cost per unit of capacity: price / service life + running costs"


def _horizon_cost(design: Any, catalog: Any, name: str, price: float, year: int) -> tuple[float, float]:
    """(price term, running term) of one node bought in ``year`` as the optimiser weighs it
    (capacity.purchase_cost, affine in the price paid): the price term scales with a multiplier of the price."""
    item = catalog.node(name)
    running = purchase_cost(design, item, 0.0, year)
    return purchase_cost(design, item, price, year) - running, running


def plan_basis_note(design: Any, catalog: Any, ch: NodeOption, rival: NodeOption, year: int
                    ) -> tuple[float | None, str]:
    """The break-even on the optimiser's own cost basis for a node bought in ``year`` and why the plan's flip
    point can differ from the card's annualised figure: the optimiser pays a node's whole price within the
    horizon (all of it even when the horizon ends before its service life does), discounts running costs, buys
    whole nodes and weighs every year's purchases together. The ratio is exact for that basis at the card's
    operating point, not a re-run of the optimiser."""
    c_price, c_run = _horizon_cost(design, catalog, ch.node, ch.price_usd, year)
    r_price, r_run = _horizon_cost(design, catalog, rival.node, rival.price_usd, year)
    if c_price <= 0 or rival.genomes_per_day_per_node <= 0:
        return None, ""
    k = ((r_price + r_run) / rival.genomes_per_day_per_node * ch.genomes_per_day_per_node - c_run) / c_price
    left = design.end_year - year + 1
    life = catalog.node(ch.node).lifetime_years
    if left < life:
        why = (f"the optimiser pays each node's whole price within the horizon, which leaves {left} of "
               f"{ch.node}'s {life} years of service from {year} (to {design.end_year}), and buys whole nodes")
    else:
        why = "the optimiser pays each node's price when it buys it, discounts the running costs, and buys whole nodes"
    if k <= 0:
        at = f"{rival.node} is cheaper whatever {ch.node} costs"
    else:
        at = f"the break-even is {k:.2f}x (${ch.price_usd * k:,.0f})"
    return k, (f" This plan's own flip point can differ: {why}. On that basis, for a node bought in {year} "
               f"(whole price + running costs to {design.end_year}, discounted), {at}; whole nodes and the other "
               f"years' purchases can move the plan's own flip point (re-run the optimiser with "
               f"prices.nodes.{ch.node}.price_usd changed to find it).")


def break_even(design: Any, catalog: Any, options: list[NodeOption], chosen: str,
               year: int | None = None) -> BreakEven:
    by = {o.node: o for o in options}
    if chosen not in by:
        return BreakEven(chosen, None, None, False, f"{chosen} is not on sale that year")
    ch = by[chosen]
    rivals = [o for o in options if o.node != chosen and math.isfinite(o.usd_per_genome_day_year)]
    eligible = [o for o in rivals if o.eligible]
    pool = eligible or rivals
    if not pool:
        return BreakEven(chosen, None, None, False, f"no other node type to compare {chosen} with")
    rival = min(pool, key=lambda o: o.usd_per_genome_day_year)
    item = catalog.node(chosen)
    c = design.costs
    energy = HOURS_PER_YEAR / 1000.0 * c.pue * c.power_usd_per_kwh
    pct = c.support_pct_per_year if c.support_pct_per_year is not None else item.support_pct_per_year
    per_price = 1.0 / item.lifetime_years + pct / 100.0
    target = rival.usd_per_genome_day_year * ch.genomes_per_day_per_node
    ratio = (target - item.power_w * energy) / (ch.price_usd * per_price) if ch.price_usd > 0 else None
    a, b = ch.usd_per_genome_day_year, rival.usd_per_genome_day_year
    if ratio is None or ratio <= 0:
        sentence = (f"{rival.node} is cheaper per genome/day (${b:,.0f} vs ${a:,.0f} a year, {BASIS}) whatever "
                    f"{chosen} costs: {chosen}'s power alone costs more.")
    elif ratio >= 1:
        sentence = (f"{chosen} is the cheaper per genome/day (${a:,.0f} vs {rival.node}'s ${b:,.0f} a year, "
                    f"{BASIS}); on that basis the choice flips to {rival.node} if {chosen} cost more than "
                    f"{ratio:.2f}x its price (${ch.price_usd * ratio:,.0f} instead of ${ch.price_usd:,.0f}).")
    else:
        sentence = (f"{rival.node} is cheaper per genome/day (${b:,.0f} vs ${a:,.0f} a year, {BASIS}): {chosen} "
                    f"would have to cost {ratio:.2f}x its price (${ch.price_usd * ratio:,.0f} instead of "
                    f"${ch.price_usd:,.0f}) to match it.")
    plan_ratio = None
    if eligible and year is not None:  # a rival the optimiser could pick: say where its own basis puts the flip
        plan_ratio, note = plan_basis_note(design, catalog, ch, rival, year)
        sentence += note
    if not eligible and design.turnaround_hours is not None:
        sentence = (f"No other node type turns a genome around within {design.turnaround_hours:g} h, so no "
                    f"price makes the optimiser pick another for genomes. Without that limit: " + sentence)
    return BreakEven(chosen, rival.node, ratio, bool(eligible), sentence, plan_ratio)


def benchmarked_gb_per_core(pm: PipelineModel) -> float | None:
    """The least memory per core of the nodes this pipeline was benchmarked on: what the benchmarks show runs."""
    pid = pm.fitted.aliases.get(pm.pipeline_name, pm.pipeline_name)
    ratios = [n.memory_gb / n.cores for name in {o.node for o in pm.fitted.observations if o.pipeline == pid}
              if (n := pm.fitted.nodes.get(name)) is not None and n.cores > 0 and n.memory_gb > 0]
    return min(ratios) if ratios else None


def memory_note(pm: PipelineModel, options: list[NodeOption]) -> str:
    """Whether the pipeline's memory bounds the nodes, in words: with no figure for it in the benchmark file
    the model plans every node as if memory were no limit, which a director must be told, naming the node
    types with less memory per core than any node the pipeline was benchmarked on."""
    p = pm.pipeline
    if p.mode == "dedicated" and p.memory_gb_per_sample > 0:
        return f"Memory bounds the genomes a node runs at once: {p.memory_gb_per_sample:g} GB each."
    if p.mode != "dedicated" and p.memory_gb_per_slot > 0:
        return f"Memory bounds the cores a job can use: {p.memory_gb_per_slot:g} GB per job slot."
    per = "genome" if p.mode == "dedicated" else "job slot"
    head = (f"Memory is not checked: the pipeline's benchmark file gives no memory per {per} "
            f"(docs/performance-model.md)")
    floor = benchmarked_gb_per_core(pm)
    if floor is None:
        return head + "."
    below = [o for o in options if 0 < o.memory_gb_per_core < floor - 1e-9]
    if not below:
        return head + f"; every node type here has at least the {floor:.3g} GB a core of the benchmarked nodes."
    names = ", ".join(f"{o.node} ({o.memory_gb_per_core:.3g} GB a core)" for o in below)
    return (head + f". {names}: less memory per core than any node this pipeline was benchmarked on "
            f"({floor:.3g} GB a core), planned as if memory were no limit.")


def nodes_bought(purchases: Any, year: int) -> dict[str, int]:
    """The nodes a plan buys in ``year``, by node type (storage and flash lines left out)."""
    out: dict[str, int] = {}
    for p in purchases or []:
        if p.year == year and p.node_type and p.count > 0:
            out[p.node_type] = out.get(p.node_type, 0) + int(p.count)
    return out


def year_to_explain(purchases: Any, years: list[int]) -> tuple[int, str]:
    """The year the 'why these nodes' card speaks about, of ``years`` (those with genomes to serve), and why: the
    year the plan buys the most nodes in (the earliest of equals), else the last year. The first year, which a
    plan's existing nodes often serve alone, said nothing about the node types the plan buys."""
    counts = {y: sum(nodes_bought(purchases, y).values()) for y in years}
    most = max(counts.values(), default=0)
    if most > 0:
        year = min(y for y, n in counts.items() if n == most)
        what = ", ".join(f"{n:,} {t}" for t, n in sorted(nodes_bought(purchases, year).items(), key=lambda kv: -kv[1]))
        return year, f"the year this plan buys the most nodes ({what})"
    return max(years), "the last year (this plan buys no nodes for genomes)"


def tier_use(design: Any, catalog: Any, pm: PipelineModel, year: int, tier: str | None, rho: float,
             genomes: float, working_set_tb: float) -> dict[str, Any]:
    """How full the pipeline tier runs at the operating point: its operations at ``rho`` (genomes/day it carries)
    and, when it holds working sets (flash, or a fitted cache), its fast TB: the days of ingest a flash tier keeps
    plus the working sets of the genomes in flight. The card said only 'flash holds 20 TB = 5.0 days of ingest', so
    a second flash unit bought for the working sets (8 TB of ingest + 8.7 TB in flight > one 10 TB unit) read as
    2.5x the ingest asked for. ``binds``: one unit fewer would not do (``labels.binds``, the year table's rule)."""
    if not tier:
        return {}
    units = sum(a.count for a in resolve_assets(design, catalog) if a.name == tier and a.active(year))
    terms = pm.tier(tier)
    ops = pm.tier_genomes_per_day_per_unit(tier, rho) * units
    per_unit = pm.tier_genomes_per_day_per_unit(tier, rho)
    # binds: one unit fewer (of two or more) would not carry the genomes served (labels.binds)
    ops_binds = math.isfinite(ops) and binds(genomes, ops, ops - per_unit, units)
    out: dict[str, Any] = {"tier": tier, "units": units, "rho": rho, "ops_genomes": ops, "genomes": genomes,
                           "working_set_tb": working_set_tb, "ops_binds": ops_binds}
    if terms.working_set_tb_per_unit is not None:
        demand = getattr(design, "demand", {}).get(year)
        ingest = float(getattr(demand, "ingest_tb_per_day", 0.0) or 0.0)
        reserve = design.flash_days * ingest if terms.holds_ingest else 0.0
        fast = terms.working_set_tb_per_unit * units
        used = reserve + working_set_tb
        fewer = fast - terms.working_set_tb_per_unit
        fast_binds = working_set_tb > 0 and binds(used, fast, fewer, units)
        out.update(fast_tb=fast, ingest_tb=reserve, flash_days=design.flash_days if terms.holds_ingest else 0.0,
                   used_tb=used, full=used / fast if fast > 0 else 0.0, fewer_tb=fewer, fast_binds=fast_binds)
    return out


def explain_year(design: Any, catalog: Any, pm: PipelineModel, year_eval: Any,
                 candidates: list[str] | None = None) -> dict[str, Any]:
    """The design page's 'why these nodes' card for one evaluated year (a YearEvaluation or its dict).

    ``chosen`` (the row marked and the break-even price) is the node type the plan buys most that year when it
    serves genomes, else the one serving the most; ``top`` is the one serving the most (existing nodes too)."""
    def get(key: str) -> Any:
        return year_eval.get(key) if isinstance(year_eval, dict) else getattr(year_eval, key, None)

    year = int(get("year"))
    rho = float(get("storage_utilisation") or 0.0)
    if rho <= 0:
        return {}
    by_node: dict[str, float] = {n: g for n, g in dict(get("genomes_by_node") or {}).items() if g > 0}
    owned = set(by_node)
    options = node_options(design, catalog, pm, year, rho, owned, candidates)
    bought = nodes_bought(getattr(design, "purchases", None), year)
    # serving nothing (no node type the design has meets the turnaround limit, say), the card names the node
    # type that would serve cheapest instead: the first eligible option
    top = max(by_node, key=lambda n: by_node[n]) if by_node else (options[0].node if options else "")
    serving_bought = [n for n in sorted(bought, key=lambda n: -bought[n]) if n in by_node]
    chosen = serving_bought[0] if serving_bought else top
    be = break_even(design, catalog, options, chosen, year) if chosen else None
    return {
        "top": top, "bought": bought,
        "bought_genomes": sum(by_node.get(n, 0.0) for n in bought), "genomes": sum(by_node.values()),
        "year": year, "tier": get("pipeline_storage"), "storage_utilisation": rho,
        "storage_bound_fraction": get("storage_bound_fraction"), "turnaround_hours": get("turnaround_hours"),
        "wall_core_hours": get("wall_core_hours_per_genome"), "cpu_hours": get("cpu_hours_per_genome"),
        "in_flight": get("genomes_in_flight"), "working_set_tb": get("working_set_tb"),
        "flash_tb": get("flash_tb"), "flash_days": get("flash_days_of_ingest"),
        "by_node": by_node, "chosen": chosen, "options": options, "break_even": be, "served": bool(by_node),
        "chosen_eligible": any(o.node == chosen and o.eligible for o in options),
        "turnaround_limit": design.turnaround_hours, "memory_note": memory_note(pm, options),
        "tier_use": tier_use(design, catalog, pm, year, get("pipeline_storage"), rho, sum(by_node.values()),
                             float(get("working_set_tb") or 0.0)),
    }
