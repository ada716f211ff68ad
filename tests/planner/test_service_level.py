"""Plans bought for a service level: exact on the given paths (checked by enumeration), honest out of sample."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom

from forecasts.demand.paths import DemandPaths
from planner.designs.capacity import CostParams, Design, Purchase, YearDemand, evaluate_design
from planner.designs.confidence import chance_of, cost_of_confidence, design_on_paths, plan_for_service_level
from planner.designs.optimize import optimize_design
from planner.designs.service_level import ServiceLevel, ServiceLevelError, in_sample_level, requirement_paths
from planner.designs.warm_start import balanced_box
from planner.hardware.catalog import Catalog, load_catalog

ROOT = Path(__file__).resolve().parents[2]
NON_PATH = ("metadata_files", "bandwidth_gbps")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(ROOT / "fixtures" / "catalog.yaml")


def _paths(years: list[int], n: int, seed: int, core: float, tb: float, genomes: float = 0.0) -> DemandPaths:
    rng = np.random.default_rng(seed)
    growth = np.cumprod(rng.lognormal(0.0, 0.25, size=(n, len(years))), axis=1)  # correlated over years
    fleet = rng.triangular(0.7, 1.0, 1.4, size=n)[:, None] * np.ones((1, len(years)))
    return DemandPaths(years=years, core_hours=core * growth, storage_tb=tb * growth * rng.uniform(0.8, 1.2, (n, 1)),
                       genomes_per_day=genomes * fleet, ingest_tb_per_day=np.zeros((n, len(years))))


def _design(years: list[int]) -> Design:
    return Design(name="sla", start_year=years[0], end_year=years[-1], flash_days=0,
                  demand={y: YearDemand(y, files=1e7) for y in years}, costs=CostParams(discount_rate=0.05))


def _enumerate(design: Design, catalog: Catalog, demand: DemandPaths, alpha: float,
               choices: dict[tuple[str, str, int], int]) -> float:
    """Cheapest plan whose joint coverage of the paths is >= alpha every year, by trying every plan."""
    base = design_on_paths(design, demand)
    keys, best = list(choices), math.inf
    for combo in itertools.product(*(range(choices[k] + 1) for k in keys)):
        purchases = [Purchase(y, node_type=n if kind == "node" else None,
                              storage_system=n if kind == "storage" else None, count=c)
                     for (kind, n, y), c in zip(keys, combo, strict=True) if c]
        plan = replace(base, purchases=purchases)
        ev = evaluate_design(plan, catalog)
        if any(not c.passed for y in ev.years for c in y.checks if c.name in NON_PATH):
            continue
        report = chance_of(plan, catalog, demand)
        if all(y.all_constraints >= alpha - 1e-12 for y in report.years):
            best = min(best, ev.npv_usd)
    return best


@pytest.fixture(params=["corners", "levels"])
def formulation(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both exact formulations: one corner per year, and the per-level binaries (no corners allowed)."""
    import planner.designs.service_level as sl

    if request.param == "levels":
        monkeypatch.setattr(sl, "MAX_CORNERS", 0)
    return str(request.param)


@pytest.mark.parametrize("alpha", [0.5, 0.75, 0.9])
def test_the_plan_is_the_cheapest_that_covers_alpha_of_the_paths_jointly(catalog: Catalog, alpha: float,
                                                                         formulation: str) -> None:
    demand = _paths([2015], n=12, seed=7, core=4.0e5, tb=900)
    design = _design([2015])
    result, plan = plan_for_service_level(design, catalog, demand, alpha, node_types=["haswell", "ivy-bridge"],
                                          storage_systems=["ibm-gss26"], mip_rel_gap=0.0, confidence=None)
    assert result.status == "optimal"
    choices = {("node", "haswell", 2015): 8, ("node", "ivy-bridge", 2015): 8, ("storage", "ibm-gss26", 2015): 3}
    for p in result.purchases:
        key = ("node", p.node_type, p.year) if p.node_type else ("storage", p.storage_system, p.year)
        assert p.count < choices[key]
    assert result.npv_usd == pytest.approx(_enumerate(design, catalog, demand, alpha, choices), rel=1e-9)
    assert chance_of(plan, catalog, demand).year(2015).all_constraints >= alpha
    assert result.paths_covered is not None and result.paths_covered[2015] >= alpha


def test_two_years_with_genomes_match_enumeration(catalog: Catalog, formulation: str) -> None:
    demand = _paths([2015, 2016], n=8, seed=11, core=2.0e5, tb=500, genomes=1.5)
    design = _design([2015, 2016])
    result, _ = plan_for_service_level(design, catalog, demand, 0.75, node_types=["haswell"],
                                       storage_systems=["ibm-gss26"], mip_rel_gap=0.0, confidence=None)
    choices = {("node", "haswell", 2015): 13, ("node", "haswell", 2016): 4,
               ("storage", "ibm-gss26", 2015): 2, ("storage", "ibm-gss26", 2016): 1}
    assert result.status == "optimal"
    for p in result.purchases:
        key = ("node", p.node_type, p.year) if p.node_type else ("storage", p.storage_system, p.year)
        assert p.count < choices[key]
    assert result.npv_usd == pytest.approx(_enumerate(design, catalog, demand, 0.75, choices), rel=1e-9)


def test_alpha_one_is_the_deterministic_plan_for_the_largest_path_on_each_constraint(catalog: Catalog) -> None:
    demand = _paths([2015, 2016], n=30, seed=3, core=5.0e5, tb=800)
    design = _design([2015, 2016])
    result, _ = plan_for_service_level(design, catalog, demand, 1.0, mip_rel_gap=0.0)
    worst = replace(design_on_paths(design, demand), demand={
        y: YearDemand(y, core_hours=float(demand.core_hours[:, j].max()),
                      storage_tb=float(demand.storage_tb[:, j].max()), files=1e7)
        for j, y in enumerate(demand.years)})
    direct = optimize_design(worst, catalog, mip_rel_gap=0.0)
    assert result.npv_usd == pytest.approx(direct.npv_usd, rel=1e-9)


def test_a_higher_service_level_never_costs_less(catalog: Catalog) -> None:
    d_in = _paths([2015, 2016], n=200, seed=1, core=5.0e5, tb=800)
    d_out = _paths([2015, 2016], n=200, seed=2, core=5.0e5, tb=800)
    curve = cost_of_confidence(_design([2015, 2016]), catalog, d_in, d_out, levels=(0.5, 0.8, 0.95),
                               mip_rel_gap=0.0)
    costs = [lvl.npv_usd for lvl in curve.levels]
    assert all(c is not None for c in costs) and costs == sorted(costs)
    for lvl in curve.levels:
        assert min(lvl.in_sample.values()) >= lvl.alpha
        assert set(lvl.out_of_sample) == {2015, 2016}


def test_bad_service_levels_are_refused() -> None:
    with pytest.raises(ServiceLevelError, match=r"\(0, 1\]"):
        ServiceLevel(alpha=1.5, years=[2015], required={"core_hours": np.ones((3, 1))})
    with pytest.raises(ServiceLevelError, match="no paths for constraint 'files'"):
        ServiceLevel(alpha=0.9, years=[2015], required={"files": np.ones((3, 1))})


def test_requirement_paths_drop_constraints_without_demand() -> None:
    demand = _paths([2015], n=4, seed=0, core=1.0, tb=0.0)
    assert set(requirement_paths(demand, flash_days=7)) == {"core_hours"}


def test_the_in_sample_level_is_alpha_plus_the_binomial_margin() -> None:
    for alpha, n in [(0.9, 1000), (0.5, 200), (0.8, 5000), (0.95, 1000)]:
        k = round(in_sample_level(alpha, n) * n)
        # the least count a plan covering only alpha of all demand reaches with probability <= 5%
        assert binom.sf(k - 1, n, alpha) <= 0.05 < binom.sf(k - 2, n, alpha)
    assert in_sample_level(0.9, 1000) == pytest.approx(0.916)
    assert in_sample_level(0.9, 12) == 1.0  # too few paths: every one of them
    assert in_sample_level(1.0, 1000) == 1.0
    assert in_sample_level(0.9, 1000, confidence=None) == 0.9
    levels = [in_sample_level(a, 400) for a in (0.5, 0.8, 0.9, 0.95)]
    assert levels == sorted(levels)


def test_a_plan_is_bought_with_the_margin_unless_asked_for_the_sample_level(catalog: Catalog) -> None:
    demand = _paths([2015, 2016], n=200, seed=5, core=5.0e5, tb=800)
    design = _design([2015, 2016])
    honest, plan = plan_for_service_level(design, catalog, demand, 0.8, mip_rel_gap=0.0)
    sample, _ = plan_for_service_level(design, catalog, demand, 0.8, mip_rel_gap=0.0, confidence=None)
    assert honest.in_sample_level == in_sample_level(0.8, 200) > 0.8 and sample.in_sample_level == 0.8
    assert min(y.all_constraints for y in chance_of(plan, catalog, demand).years) >= honest.in_sample_level
    assert honest.npv_usd is not None and sample.npv_usd is not None and honest.npv_usd >= sample.npv_usd


def test_the_balanced_box_covers_k_paths_at_the_least_common_rank() -> None:
    rng = np.random.default_rng(4)
    cols = rng.lognormal(0.0, 0.3, size=(300, 4))
    for k in (1, 150, 270, 300):
        box = balanced_box(cols, k)
        ordered = np.sort(cols, axis=0)
        rank = int(np.searchsorted(ordered[:, 0], box[0]) + 1)
        assert np.array_equal(box, ordered[rank - 1])
        assert np.all(cols <= box, axis=1).sum() >= k
        if rank > k:
            assert np.all(cols <= ordered[rank - 2], axis=1).sum() < k


def test_the_warm_start_changes_where_highs_starts_not_the_optimum(catalog: Catalog,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Four independent requirement paths (no corners: the first plan is the balanced box)."""
    import planner.designs.optimize as opt

    base = _paths([2015, 2016], n=40, seed=9, core=3.0e5, tb=600, genomes=1.0)
    rng = np.random.default_rng(10)
    demand = replace(base, ingest_tb_per_day=rng.uniform(0.5, 2.0, size=(40, 1)) * np.ones((1, 2)))
    design = replace(_design([2015, 2016]), flash_days=7, flash_system="flash-gss")
    kw: dict[str, object] = {"node_types": ["haswell"], "storage_systems": ["ibm-gss26", "flash-gss"],
                             "mip_rel_gap": 0.0, "confidence": None}
    started, plan = plan_for_service_level(design, catalog, demand, 0.75, **kw)  # type: ignore[arg-type]
    monkeypatch.setattr(opt, "start_plans", lambda *a, **k: [])
    cold, _ = plan_for_service_level(design, catalog, demand, 0.75, **kw)  # type: ignore[arg-type]
    assert started.status == cold.status == "optimal"
    assert started.npv_usd == pytest.approx(cold.npv_usd, rel=1e-9)
    assert min(y.all_constraints for y in chance_of(plan, catalog, demand).years) >= 0.75


def test_comonotone_genomes_and_flash_share_one_staircase_and_stay_exact(catalog: Catalog, formulation: str) -> None:
    """Genomes/day and flash (days of ingest) both scale with the fleet draw: one ordering of the paths."""
    base = _paths([2015], n=10, seed=13, core=2.0e5, tb=500, genomes=1.5)
    demand = replace(base, ingest_tb_per_day=base.genomes_per_day * 2.5)
    design = replace(_design([2015]), flash_days=7, flash_system="flash-gss")
    result, _ = plan_for_service_level(design, catalog, demand, 0.7, node_types=["haswell"],
                                       storage_systems=["ibm-gss26", "flash-gss"], mip_rel_gap=0.0, confidence=None)
    choices = {("node", "haswell", 2015): 14, ("storage", "ibm-gss26", 2015): 2, ("storage", "flash-gss", 2015): 3}
    assert result.status == "optimal"
    for p in result.purchases:
        key = ("node", p.node_type, p.year) if p.node_type else ("storage", p.storage_system, p.year)
        assert p.count < choices[key]
    assert result.npv_usd == pytest.approx(_enumerate(design, catalog, demand, 0.7, choices), rel=1e-9)



def test_pair_hulls_tighten_the_relaxation_and_keep_the_optimum(catalog: Catalog,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The pair hulls are valid inequalities: with them the levels' LP relaxation is at least as high
    (here strictly higher: the LP can no longer cover different paths on core-hours and on storage),
    the integer optimum is the same, and the optimum plan completed with hull weights satisfies them."""
    import planner.designs.hull_cuts as hc
    import planner.designs.service_level as sl
    from planner.designs.highs import highs_for
    from planner.designs.optimize import _build, resolve_assets
    from planner.designs.second_core import Relaxation
    from planner.hardware.costmodel import CostModel

    monkeypatch.setattr(sl, "MAX_CORNERS", 0)  # the level formulation
    monkeypatch.setattr(hc, "FACETS", False)  # with the corner hull's facets the relaxation needs no pair hulls
    demand = _paths([2015, 2016], n=40, seed=5, core=4.0e5, tb=900)
    design = replace(design_on_paths(_design([2015, 2016]), demand), purchases=[])
    sla = ServiceLevel(alpha=0.8, years=[2015, 2016], required=requirement_paths(demand, flash_days=0))
    m, _, _, _ = _build(design, catalog, CostModel(catalog), ["haswell", "ivy-bridge"], ["ibm-gss26", "ddn-sfa12k"],
                        resolve_assets(design, catalog), 5000, "", sla)
    hulls = sla.pair_hulls()
    assert hulls and all(len(h.r_cols) == 2 and h.year in (2015, 2016) for h in hulls)
    plain = m.arrays()
    relax = Relaxation.of(plain, hulls)
    assert len(relax.arrays.cost) == len(plain.cost) + sum(len(h.pts) for h in hulls)

    def solved(arr: object, lp: bool) -> tuple[float, np.ndarray]:
        h = highs_for(arr, 60, 0.0, integer=np.zeros(len(arr.cost), dtype=bool) if lp else None)  # type: ignore[attr-defined]
        h.run()
        return h.getInfo().objective_function_value, np.asarray(h.getSolution().col_value)

    lp_without, _ = solved(plain, True)
    lp_with, _ = solved(relax.arrays, True)
    opt_without, x = solved(plain, False)
    opt_with, _ = solved(relax.arrays, False)
    assert lp_with > lp_without * (1 + 1e-6)
    assert opt_with == pytest.approx(opt_without, rel=1e-9)
    full = relax.complete(x)
    a = relax.arrays
    from scipy.sparse import csc_array

    act = csc_array((a.value, a.index, a.start), shape=(len(a.rlb), len(a.cost))) @ full
    tol = 1e-6 * np.maximum(1.0, np.abs(act))
    assert np.all(act >= a.rlb - tol) and np.all(act <= a.rub + tol)


def test_without_pair_hulls_there_are_none(monkeypatch: pytest.MonkeyPatch) -> None:
    import planner.designs.service_level as sl

    monkeypatch.setattr(sl, "PAIR_HULLS", False)
    sla = ServiceLevel(alpha=0.8, years=[2015], required={"core_hours": np.ones((5, 1)), "storage_tb": np.ones((5, 1))})
    sla.hull_years.append((2015, ["core_hours", "storage_tb"], np.random.default_rng(0).uniform(size=(5, 2))))
    assert sla.pair_hulls() == []
