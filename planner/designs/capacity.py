"""Design evaluation per year: capacity vs demand, every constraint pass/fail, and costs (pure core).

Conventions (documented in docs/scenario-format.md):
- Schedulable hours per year = 24 x (365 - maintenance_days_per_year). The default, 9 days, is the
  Minerva study's convention, taken from the one site we have a figure for (Table 3: 12,864 cores x 24
  x 356 = 109.9 M ~ "110 million core-hours available per year"; 12,864 x 8,760 = 112.7 M would be the
  raw figure), not a property of other sites: a site sets its own, and the design page says which one
  a design uses (labels.compute_capacity_rule).
- Core-hours at the target = schedulable core-hours x utilisation target (default 0.85).
- Normalised core-hours: each core weighted by clock x arch / (reference clock x reference arch),
  the paper's strict linear clock comparison, so they compare with demand on the reference core.
- Online storage = usable TB of every non-archive system; plannable TB = usable x fullness limit
  (default 0.80: GPFS degrades above 80 % full).
- Genomes/day capacity (issue 16): from the calibrated performance model when the pipeline has one
  (planner.designs.genomes: node rates per storage utilisation level, the tier's operations, working
  sets on its fast tier, the turnaround limit; docs/performance-model.md). Otherwise, as before: for
  each non-archive storage system present, sum over node types of nodes x 24 x cores x utilisation x
  genomics share / wall core-hours per genome on that storage, capped by the storage's genomes/day
  ceiling; the best storage is the pipeline tier.
- genomics_share < 1 splits the cores: genomes/day gets that share, the core_hours check the rest.
- Metadata capacity (files) = metadata IOPS x scan window (s) / metadata ops per file: a full
  policy scan (ILM) must finish inside the window.
- Capex counts purchases in the year bought; existing inventory is sunk. Opex = power x 8,760 h x
  PUE x $/kWh + support % x price, for every active item. Annualised cost = price / lifetime + opex;
  cost per core-hour and per genome divide the annualised cost by the capacity at the target.
- Prices per year: a purchase in year y pays the catalog price x ``design.prices`` multiplier for y
  (1 when none is given: today's constant prices). Support and the annualised cost of that item use
  the price it was bought at. Existing (sunk) inventory keeps the catalog price.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from forecasts.units import DAYS_PER_YEAR, HOURS_PER_DAY, HOURS_PER_YEAR, SECONDS_PER_HOUR
from planner.designs.genomes import model_genomes
from planner.hardware.catalog import Catalog
from planner.hardware.costmodel import CostModel
from planner.hardware.design_model import DEFAULT_RHO_MAX, PipelineModel

DEFAULT_PIPELINE = "GATK 3.1.1 WGS"
# constraint check -> the demand field it needs (a design may turn a check off: Design.checks_off)
CHECK_FIELD = {"core_hours": "core_hours", "genomes_per_day": "genomes_per_day", "storage_tb": "storage_tb",
               "flash_tb": "ingest_tb_per_day", "ingest_gbps": "ingest_tb_per_day", "metadata_files": "files"}
GB_PER_TB = 1000.0  # decimal, as vendors quote throughput (forecasts/units.py: 1 TB = 10**12 bytes)


def ingest_gbps(ingest_tb_per_day: float) -> float:
    """The ingest as a write rate, GB/s: the floor the online storage's throughput must sustain (the data
    is written at least once; a pipeline's own traffic is ``bandwidth_gbps``, when a scenario gives it)."""
    return ingest_tb_per_day * GB_PER_TB / (HOURS_PER_DAY * SECONDS_PER_HOUR)


@dataclass(slots=True)
class InventoryItem:
    """Equipment owned before the horizon starts (its capex is sunk)."""

    purchase_year: int
    node_type: str | None = None
    storage_system: str | None = None
    count: int = 0  # nodes, or storage units
    lifetime_years: int | None = None  # None: the catalog's lifetime


@dataclass(slots=True)
class Purchase:
    """One line of a purchase plan: nodes, storage units, or flash TB (rounded up to whole units)."""

    year: int
    node_type: str | None = None
    storage_system: str | None = None
    count: int = 0
    flash_tb: float = 0.0


@dataclass(slots=True)
class YearDemand:
    year: int
    core_hours: float = 0.0  # per year, normalised to the design's reference core
    storage_tb: float = 0.0  # cumulative online TB to hold
    genomes_per_day: float = 0.0  # peak of the sequencer plan
    ingest_tb_per_day: float = 0.0
    files: float = 0.0
    bandwidth_gbps: float = 0.0  # 0: not checked


@dataclass(slots=True)
class CostParams:
    power_usd_per_kwh: float = 0.10
    pue: float = 1.5
    support_pct_per_year: float | None = None  # None: each item's catalog value
    discount_rate: float = 0.05
    maintenance_days_per_year: float = 9.0


@dataclass(slots=True)
class PriceIndex:
    """Per-year price multipliers relative to the catalog price, per node type and storage system.

    Price paid in year y = catalog ``price_usd`` x multiplier(y). A year missing from an item's table
    takes the nearest earlier year's multiplier (the first year's, before the table starts); an item
    with no table costs its catalog price every year.
    """

    nodes: dict[str, dict[int, float]] = field(default_factory=dict)
    storage: dict[str, dict[int, float]] = field(default_factory=dict)

    def table(self, kind: str, name: str) -> dict[int, float] | None:
        return (self.nodes if kind == "node" else self.storage).get(name)

    def multiplier(self, kind: str, name: str, year: int) -> float:
        table = self.table(kind, name)
        if not table:
            return 1.0
        if year in table:
            return table[year]
        earlier = [y for y in table if y <= year]
        return table[max(earlier)] if earlier else table[min(table)]

    def __bool__(self) -> bool:
        return bool(self.nodes or self.storage)


@dataclass(slots=True)
class Design:
    name: str
    start_year: int
    end_year: int
    reference_clock_ghz: float = 3.5
    reference_arch_factor: float = 1.0
    existing: list[InventoryItem] = field(default_factory=list)
    purchases: list[Purchase] = field(default_factory=list)
    demand: dict[int, YearDemand] = field(default_factory=dict)
    utilisation_target: float = 0.85
    fullness_limit: float | None = None  # None: each storage system's own limit
    flash_days: float = 7.0
    flash_system: str = "flash-gss"  # the system flash_tb purchases are made of
    budgets_usd: dict[int, float] = field(default_factory=dict)
    costs: CostParams = field(default_factory=CostParams)
    pipeline: str = DEFAULT_PIPELINE
    genomics_share: float = 1.0  # fraction of cores the genomes/day capacity may use
    metadata_scan_hours: float = 24.0
    metadata_ops_per_file: float = 1.0
    prices: PriceIndex = field(default_factory=PriceIndex)  # empty: catalog prices every year
    turnaround_hours: float | None = None  # sample in to VCF out limit (e.g. clinical 24 h); None: off
    storage_utilisation_max: float = DEFAULT_RHO_MAX  # busiest the pipeline tier may run (levels up to it)
    checks_off: frozenset[str] = frozenset()  # demand checks the design turns off

    @property
    def years(self) -> list[int]:
        return list(range(self.start_year, self.end_year + 1))

    def unit_price_usd(self, catalog: Catalog, kind: str, name: str, year: int) -> float:
        """Price of one node / storage unit bought in ``year`` (catalog price x the year's multiplier)."""
        item = catalog.node(name) if kind == "node" else catalog.storage(name)
        return float(item.price_usd) * self.prices.multiplier(kind, name, year)

    def price_multipliers(self) -> dict[str, dict[str, dict[int, float]]]:
        """The multipliers in force each horizon year, for items that have a table (for the record)."""
        return {
            group: {name: {t: self.prices.multiplier(kind, name, t) for t in self.years} for name in tables}
            for group, kind, tables in (("nodes", "node", self.prices.nodes),
                                        ("storage", "storage", self.prices.storage))
        }


@dataclass(slots=True)
class ConstraintCheck:
    name: str
    year: int
    required: float
    available: float
    unit: str
    passed: bool
    shortfall: float  # in ``unit``; 0 when passed


@dataclass(slots=True)
class YearEvaluation:
    year: int
    nodes: int
    cores: int
    memory_tb: float
    peak_tf: float
    core_hours_available: float  # schedulable, before the utilisation target
    core_hours_at_target: float
    normalised_core_hours_at_target: float  # on the reference core
    demand_core_hours: float
    headroom_core_hours: float
    genomes_per_day_capacity: float
    genomes_per_day_demand: float
    pipeline_storage: str | None
    wall_core_hours_per_genome: float  # core-weighted mean over node types on the pipeline tier
    raw_tb: float
    usable_tb: float
    plannable_tb: float  # usable x fullness limit
    demand_tb: float
    archive_tb: float
    flash_tb: float
    flash_days_of_ingest: float
    metadata_files_capacity: float
    files: float
    bandwidth_gbps: float
    capex_usd: float
    power_usd: float
    support_usd: float
    opex_usd: float
    tco_usd: float  # capex + opex this year
    annualised_cost_usd: float  # price / lifetime of active items + opex
    cost_per_core_hour_usd: float
    cost_per_genome_usd: float
    checks: list[ConstraintCheck] = field(default_factory=list)
    # performance model at the operating point (planner.designs.genomes); zeros for the typed-in cost model
    genomes_limit: str = ""
    storage_utilisation: float = 0.0
    storage_bound_fraction: float = 0.0
    turnaround_hours: float = 0.0
    cpu_hours_per_genome: float = 0.0
    genomes_in_flight: float = 0.0
    working_set_tb: float = 0.0
    genomes_by_node: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class DesignEvaluation:
    name: str
    years: list[YearEvaluation]
    capex_usd: float
    opex_usd: float
    tco_usd: float
    npv_usd: float  # capex + opex discounted to the first year
    feasible: bool
    failures: list[ConstraintCheck]
    derivations: dict[str, str]  # how each per-genome number was obtained
    # multipliers on catalog prices per year, for items whose price varies: {"nodes"|"storage": {name: {year: x}}}
    price_index: dict[str, dict[str, dict[int, float]]] = field(default_factory=dict)

    def year(self, year: int) -> YearEvaluation:
        return next(y for y in self.years if y.year == year)

    def to_dict(self) -> dict[str, Any]:
        return json_safe(asdict(self))


def json_safe(obj: Any) -> Any:
    """Replace inf / nan floats (e.g. flash days with no ingest) by None so json.dumps is strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


@dataclass(slots=True)
class Asset:
    """A resolved inventory line: what is active when, and what it costs."""

    kind: str  # "node" or "storage"
    name: str
    count: int
    year: int
    lifetime_years: int
    sunk: bool

    def active(self, year: int) -> bool:
        return self.year <= year < self.year + self.lifetime_years


def resolve_assets(design: Design, catalog: Catalog) -> list[Asset]:
    """Existing inventory and purchases as assets; flash TB become whole units of ``flash_system``."""
    out: list[Asset] = []
    for item in design.existing:
        if item.node_type:
            life = item.lifetime_years or catalog.node(item.node_type).lifetime_years
            out.append(Asset("node", item.node_type, item.count, item.purchase_year, life, True))
        elif item.storage_system:
            life = item.lifetime_years or catalog.storage(item.storage_system).lifetime_years
            out.append(Asset("storage", item.storage_system, item.count, item.purchase_year, life, True))
    for p in design.purchases:
        if p.node_type and p.count:
            node = catalog.node(p.node_type)
            out.append(Asset("node", p.node_type, p.count, p.year, node.lifetime_years, False))
        if p.storage_system and p.count:
            st = catalog.storage(p.storage_system)
            out.append(Asset("storage", p.storage_system, p.count, p.year, st.lifetime_years, False))
        if p.flash_tb > 0:
            st = catalog.storage(design.flash_system)
            units = math.ceil(p.flash_tb / st.usable_tb - 1e-9)
            out.append(Asset("storage", st.name, units, p.year, st.lifetime_years, False))
    return out


def purchase_cost(design: Design, item: Any, paid: float, year: int) -> float:
    """What the optimiser's objective charges for one unit of ``item`` bought in ``year`` at ``paid`` dollars: the
    price that year plus power and support for each year of its service life within the horizon, all discounted
    to the horizon's start (affine in ``paid``: planner.designs.explain reads its break-even off it)."""
    c = design.costs
    energy = HOURS_PER_YEAR / 1000.0 * c.pue * c.power_usd_per_kwh
    pct = c.support_pct_per_year
    pct = item.support_pct_per_year if pct is None else pct

    def df(t: int) -> float:
        return 1.0 / (1.0 + c.discount_rate) ** (t - design.start_year)

    life = range(year, min(design.end_year, year + item.lifetime_years - 1) + 1)
    return paid * df(year) + sum((item.power_w * energy + paid * pct / 100.0) * df(t) for t in life)


def schedulable_hours_per_year(maintenance_days_per_year: float) -> float:
    return HOURS_PER_DAY * (DAYS_PER_YEAR - maintenance_days_per_year)


def _check(name: str, year: int, required: float, available: float, unit: str) -> ConstraintCheck:
    short = max(0.0, required - available)
    tol = 1e-9 * max(1.0, abs(required))
    return ConstraintCheck(name, year, required, available, unit, short <= tol, short if short > tol else 0.0)


def genomes_capacity(
    design: Design, catalog: Catalog, model: CostModel, node_counts: dict[str, int],
    storage_units: dict[str, int],
) -> tuple[float, str | None, float]:
    """Best genomes/day over the storage present: (genomes/day, pipeline storage, wall core-h/genome)."""
    best: tuple[float, str | None, float] = (0.0, None, 0.0)
    share = design.utilisation_target * design.genomics_share
    for st_name, units in storage_units.items():
        st = catalog.storage(st_name)
        if units <= 0 or st.kind == "archive":
            continue
        gpd, cores_w, cores = 0.0, 0.0, 0
        for n_name, count in node_counts.items():
            if count <= 0:
                continue
            wall = model.wall_core_hours_per_sample(design.pipeline, n_name, st_name).value
            n_cores = count * catalog.node(n_name).cores_per_node
            gpd += HOURS_PER_DAY * n_cores * share / wall
            cores_w += wall * n_cores
            cores += n_cores
        if st.ceiling_genomes_per_day:
            gpd = min(gpd, st.ceiling_genomes_per_day * units)
        if gpd > best[0] or best[1] is None:
            best = (gpd, st_name, cores_w / cores if cores else 0.0)
    return best


def core_hours_share(design: Design) -> float:
    """Share of the cores the core_hours demand is checked on: with genomics_share < 1 the cores are
    split (the genomes/day capacity gets genomics_share, core-hours the rest); at 1 both see all cores."""
    return 1.0 - design.genomics_share if design.genomics_share < 1.0 else 1.0


def pipeline_model(design: Design, catalog: Catalog) -> PipelineModel | None:
    """The calibrated performance model of the design's pipeline, or None (the typed-in cost model)."""
    if not PipelineModel.supports(catalog, design.pipeline):
        return None
    return PipelineModel(catalog, design.pipeline)


def evaluate_design(design: Design, catalog: Catalog, model: CostModel | None = None,
                    perf: PipelineModel | None | bool = True) -> DesignEvaluation:
    """``perf``: the performance model to use (True: the calibrated one when the pipeline has one;
    False/None: the typed-in cost model)."""
    model = model or CostModel(catalog)
    pm = pipeline_model(design, catalog) if perf is True else (perf or None)
    assets = resolve_assets(design, catalog)
    c = design.costs
    hours = schedulable_hours_per_year(c.maintenance_days_per_year)
    ref_ghz = design.reference_clock_ghz * design.reference_arch_factor
    energy = HOURS_PER_YEAR / 1000.0 * c.pue * c.power_usd_per_kwh  # $ per W-year
    years: list[YearEvaluation] = []
    derivations: dict[str, str] = {}
    for t in design.years:
        d = design.demand.get(t, YearDemand(t))
        node_counts: dict[str, int] = {}
        storage_units: dict[str, int] = {}
        capex = power = support = annualised = 0.0
        for a in assets:
            item = catalog.node(a.name) if a.kind == "node" else catalog.storage(a.name)
            paid = item.price_usd if a.sunk else design.unit_price_usd(catalog, a.kind, a.name, a.year)
            if a.year == t and not a.sunk:
                capex += paid * a.count
            if not a.active(t):
                continue
            bucket = node_counts if a.kind == "node" else storage_units
            bucket[a.name] = bucket.get(a.name, 0) + a.count
            pct = c.support_pct_per_year if c.support_pct_per_year is not None else item.support_pct_per_year
            power += item.power_w * a.count * energy
            support += paid * a.count * pct / 100.0
            annualised += paid * a.count / a.lifetime_years
        nodes = sum(node_counts.values())
        cores = memory_gb = peak_gf = norm_cores = 0.0
        for n_name, count in node_counts.items():
            node = catalog.node(n_name)
            cores += count * node.cores_per_node
            memory_gb += count * node.memory_gb
            peak_gf += count * node.peak_gflops
            norm_cores += count * node.cores_per_node * node.core_ghz / ref_ghz
        raw_tb = usable_tb = plannable_tb = archive_tb = flash_tb = iops = gbps = 0.0
        for s_name, units in storage_units.items():
            st = catalog.storage(s_name)
            if st.kind == "archive":
                archive_tb += st.usable_tb * units
                continue
            limit = design.fullness_limit if design.fullness_limit is not None else st.fullness_limit
            raw_tb += st.raw_tb * units
            usable_tb += st.usable_tb * units
            plannable_tb += st.usable_tb * units * limit
            iops += st.metadata_iops * units
            gbps += st.throughput_gbps * units
            if st.kind == "flash":
                flash_tb += st.usable_tb * units
        extra: dict[str, Any] = {}
        if pm is not None:
            gr = model_genomes(pm, catalog, node_counts, storage_units, d.genomes_per_day,
                               core_share=design.utilisation_target * design.genomics_share,
                               rho_max=design.storage_utilisation_max,
                               reserved_tb=design.flash_days * d.ingest_tb_per_day,
                               turnaround_limit_hours=design.turnaround_hours)
            gpd, pipe_st, wall = gr.genomes_per_day, gr.tier, gr.wall_core_hours
            extra = dict(genomes_limit=gr.limit, storage_utilisation=gr.storage_utilisation,
                         storage_bound_fraction=gr.storage_bound_fraction, turnaround_hours=gr.turnaround_hours,
                         cpu_hours_per_genome=gr.cpu_hours, genomes_in_flight=gr.in_flight,
                         working_set_tb=gr.working_set_tb, genomes_by_node=gr.by_node)
            for key, rule in gr.rules.items():
                derivations.setdefault(key, rule)
        else:
            gpd, pipe_st, wall = genomes_capacity(design, catalog, model, node_counts, storage_units)
        if pipe_st and pm is None:
            for n_name in node_counts:
                key = f"{n_name}/{pipe_st}"
                if key not in derivations:
                    derivations[key] = model.wall_core_hours_per_sample(design.pipeline, n_name, pipe_st).rule
        ch_avail = cores * hours
        ch_target = ch_avail * design.utilisation_target
        norm_target = norm_cores * hours * design.utilisation_target * core_hours_share(design)
        opex = power + support
        files_cap = iops * design.metadata_scan_hours * SECONDS_PER_HOUR / design.metadata_ops_per_file
        flash_days = flash_tb / d.ingest_tb_per_day if d.ingest_tb_per_day > 0 else math.inf
        checks = [c for c in (
            _check("core_hours", t, d.core_hours, norm_target, "core-hours"),
            _check("genomes_per_day", t, d.genomes_per_day, gpd, "genomes/day"),
            _check("storage_tb", t, d.storage_tb, plannable_tb, "TB"),
            _check("flash_tb", t, design.flash_days * d.ingest_tb_per_day, flash_tb, "TB"),
            _check("ingest_gbps", t, ingest_gbps(d.ingest_tb_per_day), gbps, "GB/s"),
            _check("metadata_files", t, d.files, files_cap, "files"),
        ) if CHECK_FIELD[c.name] not in design.checks_off]
        if d.bandwidth_gbps > 0:
            checks.append(_check("bandwidth_gbps", t, d.bandwidth_gbps, gbps, "GB/s"))
        if t in design.budgets_usd:
            budget = design.budgets_usd[t]
            over = max(0.0, capex - budget)
            checks.append(ConstraintCheck("budget_usd", t, capex, budget, "USD", over <= 1e-6, over))
        years.append(YearEvaluation(
            year=t, nodes=nodes, cores=int(cores), memory_tb=memory_gb / 1000.0, peak_tf=peak_gf / 1000.0,
            core_hours_available=ch_avail, core_hours_at_target=ch_target,
            normalised_core_hours_at_target=norm_target, demand_core_hours=d.core_hours,
            headroom_core_hours=norm_target - d.core_hours, genomes_per_day_capacity=gpd,
            genomes_per_day_demand=d.genomes_per_day, pipeline_storage=pipe_st,
            wall_core_hours_per_genome=wall, raw_tb=raw_tb, usable_tb=usable_tb,
            plannable_tb=plannable_tb, demand_tb=d.storage_tb, archive_tb=archive_tb, flash_tb=flash_tb,
            flash_days_of_ingest=flash_days, metadata_files_capacity=files_cap, files=d.files,
            bandwidth_gbps=gbps, capex_usd=capex, power_usd=power, support_usd=support, opex_usd=opex,
            tco_usd=capex + opex, annualised_cost_usd=annualised + opex,
            cost_per_core_hour_usd=(annualised + opex) / ch_target if ch_target else math.inf,
            cost_per_genome_usd=(annualised + opex) / (gpd * DAYS_PER_YEAR) if gpd else math.inf,
            checks=checks, **extra,
        ))
    r = design.costs.discount_rate
    npv = sum(y.tco_usd / (1.0 + r) ** (y.year - design.start_year) for y in years)
    failures = [ch for y in years for ch in y.checks if not ch.passed]
    return DesignEvaluation(
        name=design.name, years=years, capex_usd=sum(y.capex_usd for y in years),
        opex_usd=sum(y.opex_usd for y in years), tco_usd=sum(y.tco_usd for y in years), npv_usd=npv,
        feasible=not failures, failures=failures, derivations=derivations,
        price_index=design.price_multipliers() if design.prices else {},
    )
