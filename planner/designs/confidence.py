"""The cost of confidence: plans bought for service levels, checked on paths they never saw (pure core).

For each service level alpha the plan is optimised on one set of demand paths (in sample) and
then judged on a fresh, independent set (out of sample): the in-sample share is >= alpha by
construction, the out-of-sample share says whether that holds for demand the plan was not fitted
to. The curve of plan cost against alpha is what each extra point of certainty costs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from planner.designs.capacity import Design, YearDemand, evaluate_design
from planner.designs.chance import ChanceReport, available_from_evaluation, chances
from planner.designs.optimize import OptimizationResult, optimize_design
from planner.designs.service_level import CONFIDENCE, ServiceLevel, in_sample_level, requirement_paths
from planner.hardware.catalog import Catalog

DEFAULT_LEVELS = (0.5, 0.8, 0.9, 0.95)


@dataclass(slots=True)
class LevelPlan:
    alpha: float
    status: str
    npv_usd: float | None
    purchases: list[dict[str, Any]]
    in_sample_level: float | None  # share of the fitting paths the plan was bought to cover (alpha + margin)
    in_sample: dict[int, float]  # per year, share of the fitting paths where every constraint holds
    out_of_sample: dict[int, float]  # the same on the independent paths
    out_of_sample_every_year: float
    solve_seconds: float
    message: str = ""


@dataclass(slots=True)
class ConfidenceCurve:
    n_paths_in: int
    n_paths_out: int
    levels: list[LevelPlan] = field(default_factory=list)
    note: str = ("bought to cover alpha plus a binomial sampling margin of the in-sample paths (exact for "
                 "those paths: scenario MILP, HiGHS); out-of-sample shares are direct counts on an independent "
                 "set of paths")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


PATH_QUANTITIES = ("core_hours", "storage_tb", "genomes_per_day", "ingest_tb_per_day")


def design_on_paths(design: Design, demand: Any) -> Design:
    """The design for a plan's single-figure checks: each year keeps the figures the design types in, and takes
    the paths' median for a quantity it gives none for (demand that comes from a forecast or plan only).

    The typed-in figures are the centre the paths are drawn around (the forecast's median plus the plan's
    central figures, or the figures a random walk spreads), so the run page's "required" is the design page's;
    the median of a finite draw differs from it by sampling noise (2,000,000 core-hours read 1,982,703) and,
    under a plan's skewed spread, by the skew. The path-dependent constraints of a service-level plan are bought
    on the paths themselves, whatever these figures are."""
    med = {name: np.median(np.asarray(getattr(demand, name), dtype=float), axis=0) for name in PATH_QUANTITIES}
    years = {}
    for j, y in enumerate(demand.years):
        old = design.demand.get(y, YearDemand(y))

        def figure(name: str, j: int = j, old: YearDemand = old) -> float:
            return float(getattr(old, name) or med[name][j])

        years[y] = replace(old, core_hours=figure("core_hours"), storage_tb=figure("storage_tb"),
                           genomes_per_day=figure("genomes_per_day"), ingest_tb_per_day=figure("ingest_tb_per_day"))
    return replace(design, demand=years)


def chance_of(design: Design, catalog: Catalog, demand: Any) -> ChanceReport:
    ev = evaluate_design(design, catalog)
    years = [y for y in design.years if y in demand.years]
    return chances(years=years, available=available_from_evaluation(ev), demand=demand,
                   flash_days=design.flash_days)


def plan_for_service_level(design: Design, catalog: Catalog, demand_in: Any, alpha: float, *,
                           confidence: float | None = CONFIDENCE, **options: Any) -> tuple[OptimizationResult, Design]:
    """The cost-minimal plan for service level alpha on ``demand_in``'s paths, every year, jointly.

    The plan covers ``in_sample_level(alpha, n, confidence)`` of the paths (alpha plus the binomial
    sampling margin; docs/uncertainty.md), exactly for those paths; ``confidence=None`` covers alpha
    itself (the sample-average problem at alpha).
    """
    base = design_on_paths(design, demand_in)
    level = in_sample_level(alpha, int(demand_in.n_paths), confidence)
    sla = ServiceLevel(alpha=level, years=list(demand_in.years),
                       required=requirement_paths(demand_in, flash_days=design.flash_days))
    result = optimize_design(base, catalog, service_level=sla, **options)
    result.in_sample_level = level
    kept = list(base.purchases) if options.get("keep_purchases") else []
    plan = replace(base, purchases=kept + list(result.purchases))
    return result, plan


def cost_of_confidence(design: Design, catalog: Catalog, demand_in: Any, demand_out: Any,
                       levels: tuple[float, ...] = DEFAULT_LEVELS, **options: Any) -> ConfidenceCurve:
    """Plan cost at each service level, with its in-sample and out-of-sample probabilities."""
    curve = ConfidenceCurve(n_paths_in=int(demand_in.n_paths), n_paths_out=int(demand_out.n_paths))
    for alpha in levels:
        result, plan = plan_for_service_level(design, catalog, demand_in, alpha, **options)
        if result.evaluation is None:
            curve.levels.append(LevelPlan(alpha, result.status, None, [], result.in_sample_level, {}, {}, 0.0,
                                          result.solve_seconds, result.message))
            continue
        inside = chance_of(plan, catalog, demand_in)
        outside = chance_of(plan, catalog, demand_out)
        curve.levels.append(LevelPlan(
            alpha=alpha, status=result.status, npv_usd=result.npv_usd,
            purchases=[asdict(p) for p in result.purchases], in_sample_level=result.in_sample_level,
            in_sample={y.year: y.all_constraints for y in inside.years},
            out_of_sample={y.year: y.all_constraints for y in outside.years},
            out_of_sample_every_year=outside.every_year, solve_seconds=result.solve_seconds,
            message=result.message,
        ))
    return curve


@dataclass(slots=True)
class ScenarioChance:
    """A scenario's plan judged on its demand paths, and (with a service level) the plan bought for it."""

    in_sample: ChanceReport
    out_of_sample: ChanceReport | None = None
    service_level: float | None = None
    result: OptimizationResult | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"service_level": self.service_level, "in_sample": self.in_sample.to_dict(),
                "out_of_sample": self.out_of_sample.to_dict() if self.out_of_sample else None}


def scenario_paths(sc: Any, *, n_paths: int | None = None, resolver: Any = None) -> tuple[Any, Any]:
    """In-sample and independent out-of-sample demand paths of a scenario (its ``uncertainty:`` block)."""
    from planner.designs.uncertainty import Uncertainty, demand_paths

    spec = sc.uncertainty or Uncertainty()
    return (demand_paths(sc.design, spec, n_paths=n_paths, resolver=resolver),
            demand_paths(sc.design, spec, n_paths=n_paths, seed_offset=1, resolver=resolver))
