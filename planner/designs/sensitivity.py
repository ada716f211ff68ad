"""Sensitivity of a design's total cost to its uncertain inputs: the tornado chart (pure core).

A fixed purchase plan costs the same whatever the demand; what moves is what it takes to *meet*
demand. So the cost measured here is the **cost to meet demand**: the net present capex + opex of the
design's own purchases plus the cheapest top-up (planner.designs.optimize with ``keep_purchases=True``) that
makes every constraint hold every year. Each input is moved by -delta and +delta (default 20 %):

- ``sequencers``: genomes/day and ingest TB/day demand scale with the sequencer count;
- ``per_genome_hours``: every benchmark's CPU, wall core-hours and batch run time (genomes/day down), and
  the performance model's per-genome work and I/O (``Catalog.performance_scale``);
- ``growth_rate``: each year's increase over the first year, for every demand series;
- ``prices``: the price of every node type and storage system; where prices are forecast (a scenario's
  ``price_trends``) the forecast's P10 and P90 price indices replace -delta / +delta for those items.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from planner.designs.capacity import Design, PriceIndex, YearDemand
from planner.designs.optimize import optimize_design
from planner.hardware.catalog import Catalog

FACTORS: dict[str, str] = {
    "sequencers": "Sequencer count (genomes/day, ingest)",
    "per_genome_hours": "Per-genome hours (CPU and wall)",
    "growth_rate": "Demand growth rate",
    "prices": "Hardware prices",
}
_DEMAND_SERIES = ("core_hours", "storage_tb", "genomes_per_day", "ingest_tb_per_day", "files", "bandwidth_gbps")


@dataclass(slots=True)
class TornadoBar:
    factor: str
    label: str
    low_multiplier: float
    high_multiplier: float
    low_usd: float | None  # None: no plan meets demand at this setting
    high_usd: float | None
    low_status: str
    high_status: str

    @property
    def swing_usd(self) -> float:
        vals = [v for v in (self.low_usd, self.high_usd) if v is not None]
        return max(vals) - min(vals) if len(vals) == 2 else float("inf")


@dataclass(slots=True)
class Tornado:
    design: str
    base_usd: float | None
    base_status: str
    delta: float
    measure: str = "net present cost to meet demand (design purchases + cheapest top-up)"
    bars: list[TornadoBar] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for bar, raw in zip(self.bars, out["bars"], strict=True):
            raw["swing_usd"] = bar.swing_usd if bar.swing_usd != float("inf") else None
        return out


PriceBounds = tuple[PriceIndex, PriceIndex]  # P10 and P90 price indices of the forecast items


def perturb(design: Design, catalog: Catalog, factor: str, multiplier: float,
            forecast_prices: PriceIndex | None = None) -> tuple[Design, Catalog]:
    """The design and catalog with one input scaled by ``multiplier``.

    For ``prices``, ``forecast_prices`` (a P10 or P90 index) replaces the multipliers of the items it
    covers, and only the other items' catalog prices are scaled.
    """
    m = multiplier
    if factor == "sequencers":
        demand = {y: replace(d, genomes_per_day=d.genomes_per_day * m, ingest_tb_per_day=d.ingest_tb_per_day * m)
                  for y, d in design.demand.items()}
        return replace(design, demand=demand), catalog
    if factor == "growth_rate":
        first = design.demand.get(design.start_year, YearDemand(design.start_year))
        demand = {
            y: replace(d, **{k: getattr(first, k) + (getattr(d, k) - getattr(first, k)) * m for k in _DEMAND_SERIES})
            for y, d in design.demand.items()
        }
        return replace(design, demand=demand), catalog
    if factor == "per_genome_hours":
        def scale(v: float | None) -> float | None:
            return None if v is None else v * m

        benches = [
            replace(b, cpu_hours_per_sample=scale(b.cpu_hours_per_sample),
                    wall_core_hours_per_sample=scale(b.wall_core_hours_per_sample),
                    wall_hours_per_batch=scale(b.wall_hours_per_batch),
                    genomes_per_day=None if b.genomes_per_day is None else b.genomes_per_day / m)
            for b in catalog.benchmarks
        ]
        return design, Catalog(dict(catalog.node_types), dict(catalog.storage_systems), benches, catalog.source_path,
                               catalog.performance_path, catalog.performance_scale * m)
    if factor == "prices":
        fp = forecast_prices or PriceIndex()
        nodes = {k: n if k in fp.nodes else replace(n, price_usd=n.price_usd * m)
                 for k, n in catalog.node_types.items()}
        stores = {k: s if k in fp.storage else replace(s, price_usd=s.price_usd * m)
                  for k, s in catalog.storage_systems.items()}
        if forecast_prices:
            prices = PriceIndex(design.prices.nodes | fp.nodes, design.prices.storage | fp.storage)
            design = replace(design, prices=prices)
        return design, Catalog(nodes, stores, list(catalog.benchmarks), catalog.source_path,
                               catalog.performance_path, catalog.performance_scale)
    raise ValueError(f"unknown factor {factor!r} (known: {', '.join(FACTORS)})")


CostFn = Callable[[Design, Catalog], tuple[float | None, str]]


def cost_to_meet_demand(node_types: list[str] | None = None, storage_systems: list[str] | None = None,
                        time_limit_s: float = 5.0, mip_rel_gap: float = 1e-3) -> CostFn:
    """A cost function: NPV of the design's purchases plus the cheapest top-up, and the solver status."""

    def cost(design: Design, catalog: Catalog) -> tuple[float | None, str]:
        res = optimize_design(design, catalog, node_types=node_types, storage_systems=storage_systems,
                              time_limit_s=time_limit_s, mip_rel_gap=mip_rel_gap, keep_purchases=True)
        return res.npv_usd, res.status

    return cost


def tornado(design: Design, catalog: Catalog, *, delta: float = 0.2, cost: CostFn | None = None,
            factors: tuple[str, ...] = tuple(FACTORS), price_bounds: PriceBounds | None = None,
            price_label: str | None = None) -> Tornado:
    """Cost to meet demand at the base inputs and with each factor at 1 - delta and 1 + delta.

    ``price_bounds``: the P10 / P90 price indices of forecast prices (Scenario.price_bounds); the
    "prices" bar then moves those items along their forecast interval, the others by +-delta.
    """
    cost = cost or cost_to_meet_demand()
    base, status = cost(design, catalog)
    out = Tornado(design.name, base, status, delta)
    for f in factors:
        lo_fp, hi_fp = price_bounds if f == "prices" and price_bounds else (None, None)
        lo_val, lo_status = cost(*perturb(design, catalog, f, 1.0 - delta, lo_fp))
        hi_val, hi_status = cost(*perturb(design, catalog, f, 1.0 + delta, hi_fp))
        label = FACTORS[f]
        if f == "prices" and price_bounds:
            label = price_label or f"Hardware prices (forecast P10-P90; others ±{round(delta * 100)}%)"
        out.bars.append(TornadoBar(f, label, 1.0 - delta, 1.0 + delta, lo_val, hi_val, lo_status, hi_status))
    out.bars.sort(key=lambda b: -b.swing_usd if b.swing_usd != float("inf") else float("-inf"))
    return out
