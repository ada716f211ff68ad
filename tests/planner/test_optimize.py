"""The MILP optimiser: optimality against exhaustive enumeration and infeasibility diagnosis.

Speed is measured by `manage.py bench_design` (docs/performance.md), not asserted here.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from planner.designs.capacity import CostParams, Design, Purchase, YearDemand, evaluate_design, pipeline_model
from planner.designs.genomes import add_genome_rows
from planner.designs.optimize import _Model, optimize_design, rate_row_implied
from planner.designs.scenario import optimize_scenario
from planner.hardware.catalog import Catalog, load_catalog
from planner.hardware.costmodel import CostModel
from planner.hardware.design_model import utilisation_levels

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(ROOT / "fixtures" / "catalog.yaml")


def _enumerate(design: Design, catalog: Catalog, choices: dict[tuple[str, str, int], int]) -> float:
    """Cheapest feasible NPV by trying every integer combination up to the given bounds."""
    model = CostModel(catalog)
    keys = list(choices)
    best = math.inf
    for combo in itertools.product(*(range(choices[k] + 1) for k in keys)):
        purchases = [
            Purchase(y, node_type=n if kind == "node" else None,
                     storage_system=n if kind == "storage" else None, count=c)
            for (kind, n, y), c in zip(keys, combo, strict=True) if c
        ]
        ev = evaluate_design(replace(design, purchases=purchases), catalog, model)
        if ev.feasible:
            best = min(best, ev.npv_usd)
    return best


def test_one_year_matches_enumeration(catalog: Catalog) -> None:
    design = Design(
        name="small", start_year=2015, end_year=2015,
        demand={2015: YearDemand(2015, core_hours=5.0e5, storage_tb=1500, genomes_per_day=2,
                                 ingest_tb_per_day=2, files=1e8)},
        costs=CostParams(discount_rate=0.05),
    )
    nodes, stores = ["amd-interlagos", "haswell", "ivy-bridge"], ["flash-gss", "ibm-gss26"]
    res = optimize_design(design, catalog, node_types=nodes, storage_systems=stores, mip_rel_gap=0.0)
    assert res.status == "optimal"
    choices = {("node", n, 2015): 6 for n in nodes} | {("node", "ivy-bridge", 2015): 8,
                                                          ("storage", "ibm-gss26", 2015): 3,
                                                          ("storage", "flash-gss", 2015): 2}
    for p in res.purchases:
        key = ("node", p.node_type, p.year) if p.node_type else ("storage", p.storage_system, p.year)
        assert p.count < choices[key]  # optimum strictly inside the enumerated box
    assert res.npv_usd == pytest.approx(_enumerate(design, catalog, choices), rel=1e-9)
    assert res.evaluation is not None and res.evaluation.feasible
    assert res.evaluation.npv_usd == pytest.approx(res.npv_usd, rel=1e-9)


def test_two_years_with_budget_matches_enumeration(catalog: Catalog) -> None:
    design = Design(
        name="two-year", start_year=2015, end_year=2016, flash_days=0,
        demand={2015: YearDemand(2015, core_hours=3.0e5, storage_tb=700, genomes_per_day=1, files=1e8),
                2016: YearDemand(2016, core_hours=9.0e5, storage_tb=1500, genomes_per_day=3, files=1e8)},
        budgets_usd={2015: 700_000},
        costs=CostParams(discount_rate=0.08),
    )
    nodes, stores = ["amd-interlagos", "haswell"], ["ibm-gss26"]
    res = optimize_design(design, catalog, node_types=nodes, storage_systems=stores, mip_rel_gap=0.0)
    assert res.status == "optimal"
    choices = {("node", "amd-interlagos", 2015): 6, ("node", "haswell", 2015): 3,
               ("node", "haswell", 2016): 15, ("storage", "ibm-gss26", 2015): 2,
               ("storage", "ibm-gss26", 2016): 2}
    for p in res.purchases:
        key = ("node", p.node_type, p.year) if p.node_type else ("storage", p.storage_system, p.year)
        assert p.count < choices[key]
    assert res.npv_usd == pytest.approx(_enumerate(design, catalog, choices), rel=1e-9)


def test_infeasible_budget_reports_shortfall_and_budget_needed(catalog: Catalog) -> None:
    design = Design(
        name="poor", start_year=2015, end_year=2015,
        demand={2015: YearDemand(2015, core_hours=5.0e6, storage_tb=3000, ingest_tb_per_day=5, files=1e8)},
        budgets_usd={2015: 100_000},
    )
    res = optimize_design(design, catalog)
    assert res.status == "infeasible"
    assert res.shortfalls
    assert {s.year for s in res.shortfalls} == {2015}
    assert res.budget_needed_usd[2015] > 100_000
    # the budget found is enough
    rich = replace(design, budgets_usd={2015: res.budget_needed_usd[2015] * (1 + 1e-9)})
    assert optimize_design(rich, catalog).status in ("optimal", "gap")
    json.dumps(res.to_dict(), allow_nan=False)


def test_infeasible_without_budget_names_constraint(catalog: Catalog) -> None:
    # Only ivy-bridge allowed, but it is not sold after 2015: no way to meet 2017 compute.
    design = Design(name="no-nodes", start_year=2017, end_year=2017,
                    demand={2017: YearDemand(2017, core_hours=1e6)})
    res = optimize_design(design, catalog, node_types=["ivy-bridge"])
    assert res.status == "infeasible"
    assert [(s.constraint, s.year) for s in res.shortfalls] == [("core_hours", 2017)]
    assert res.shortfalls[0].shortfall == pytest.approx(1e6)
    assert "core_hours in 2017 short by" in res.message


def test_minerva_optimised(catalog: Catalog) -> None:
    res = optimize_scenario(ROOT / "fixtures" / "scenarios" / "minerva_optimised.yaml", time_limit_s=20)
    assert res.status in ("optimal", "gap")
    assert res.mip_gap is not None and res.mip_gap <= 1e-3
    assert res.evaluation is not None and res.evaluation.feasible
    assert res.evaluation.npv_usd == pytest.approx(res.npv_usd, rel=1e-9)
    json.dumps(res.to_dict(), allow_nan=False)


def test_minerva_2013_problem_chooses_narrow_high_clock_nodes_and_about_a_week_of_flash(catalog: Catalog) -> None:
    """Issue 16's done-when: 2013 candidates, the study's demand and its 24 h turnaround aim."""
    from planner.designs.capacity import pipeline_model
    from planner.designs.explain import explain_year
    from planner.designs.scenario import load_scenario

    path = ROOT / "fixtures" / "scenarios" / "minerva_optimised.yaml"
    res = optimize_scenario(path, time_limit_s=20)
    assert res.status in ("optimal", "gap") and res.evaluation is not None and res.evaluation.feasible
    bought: dict[str, int] = {}
    for p in res.purchases:
        if p.node_type:
            bought[p.node_type] = bought.get(p.node_type, 0) + p.count
    assert max(bought, key=lambda n: bought[n]) == "ivy-bridge"  # 12 cores at 3.5 GHz
    for y in res.evaluation.years:
        assert set(y.genomes_by_node) == {"ivy-bridge"}
        assert y.turnaround_hours <= 24
        assert 6.5 <= y.flash_days_of_ingest <= 11  # about a week of ingest on flash
    sc = load_scenario(path)
    why = explain_year(sc.design, sc.catalog, pipeline_model(sc.design, sc.catalog), res.evaluation.year(2014),
                       sc.optimize.node_types)
    assert why["chosen"] == "ivy-bridge" and why["storage_bound_fraction"] <= 0.4
    amd = next(o for o in why["options"] if o.node == "amd-interlagos")
    assert not amd.eligible and amd.turnaround_hours > 2 * why["turnaround_hours"]
    assert why["break_even"].sentence.startswith("No other node type turns a genome around within 24 h")
    assert why["break_even"].ratio is not None and why["break_even"].rival == "amd-interlagos"


def test_minerva_with_a_72_hour_turnaround_buys_the_wide_amd_nodes_the_24_hour_aim_rules_out() -> None:
    """The node choice comes from the performance model and the constraint, not from the catalog: relax the
    study's 24 h aim to 72 h and the wide AMD nodes (49.6 h a genome, cheaper per genome/day) become eligible,
    so the optimiser buys them for the genomes instead of the narrow Ivy Bridge nodes, for less."""
    from planner.designs.scenario import load_scenario

    sc = load_scenario(ROOT / "fixtures" / "scenarios" / "minerva_optimised.yaml")
    o = sc.optimize

    def bought(turnaround: float) -> tuple[dict[str, int], float]:
        res = optimize_design(replace(sc.design, turnaround_hours=turnaround), sc.catalog, node_types=o.node_types,
                              storage_systems=o.storage_systems, max_count_per_year=o.max_count_per_year,
                              time_limit_s=20, mip_rel_gap=o.mip_rel_gap)
        assert res.status in ("optimal", "gap") and res.evaluation is not None and res.evaluation.feasible
        counts: dict[str, int] = {}
        for p in res.purchases:
            if p.node_type:
                counts[p.node_type] = counts.get(p.node_type, 0) + p.count
        return counts, res.npv_usd

    strict, strict_cost = bought(24.0)
    relaxed, relaxed_cost = bought(72.0)
    assert max(strict, key=lambda n: strict[n]) == "ivy-bridge"
    assert max(relaxed, key=lambda n: relaxed[n]) == "amd-interlagos"
    assert relaxed_cost < 0.9 * strict_cost  # a looser aim is worth about $1.8 M here


def test_speed_20_node_types_10_storage() -> None:
    from planner.designs.bench import synthetic_catalog
    from planner.designs.scenario import load_scenario

    sc = load_scenario(ROOT / "fixtures" / "scenarios" / "minerva_optimised.yaml")
    big = synthetic_catalog(sc.catalog)
    assert (len(big.node_types), len(big.storage_systems)) == (20, 10)
    five = replace(sc.design, start_year=2015, end_year=2019)
    res = optimize_design(five, big, time_limit_s=30, mip_rel_gap=1e-3)
    assert res.status in ("optimal", "gap")


def test_genomes_with_turnaround_levels_and_flash_working_sets_match_enumeration(catalog: Catalog) -> None:
    """The performance-model rows (node rates per storage utilisation level, the tier's operations,
    working sets on flash next to a week of ingest, a turnaround limit) are exact: same plan cost as
    trying every purchase, and the plan found evaluates feasible."""
    design = Design(
        name="genomes", start_year=2015, end_year=2015, flash_days=7, turnaround_hours=36.0,
        demand={2015: YearDemand(2015, core_hours=1.0e5, storage_tb=100, genomes_per_day=3,
                                 ingest_tb_per_day=2, files=1e6)},
        costs=CostParams(discount_rate=0.05),
    )
    nodes, stores = ["amd-interlagos", "haswell", "ivy-bridge"], ["flash-gss", "ddn-sfa12k"]
    res = optimize_design(design, catalog, node_types=nodes, storage_systems=stores, mip_rel_gap=0.0)
    assert res.status == "optimal" and res.evaluation is not None and res.evaluation.feasible
    y = res.evaluation.year(2015)
    assert y.turnaround_hours <= 36.0
    assert "amd-interlagos" not in y.genomes_by_node  # 45 h of compute alone: never within 36 h
    choices = {("node", "amd-interlagos", 2015): 2, ("node", "haswell", 2015): 13,
               ("node", "ivy-bridge", 2015): 10, ("storage", "flash-gss", 2015): 3,
               ("storage", "ddn-sfa12k", 2015): 2}
    for p in res.purchases:
        key = ("node", p.node_type, p.year) if p.node_type else ("storage", p.storage_system, p.year)
        assert p.count < choices[key]
    assert res.npv_usd == pytest.approx(_enumerate(design, catalog, choices), rel=1e-9)


def test_the_lp_relaxation_counts_a_node_at_one_utilisation_level_only(catalog: Catalog) -> None:
    """With the level binaries fractional, the per-level rows alone let the same nodes serve at every
    level at once; the rows sharing a node's time across the levels (genomes.add_genome_rows) hold the
    LP to what the nodes serve at their best level: at least demand / best rate nodes."""
    design = Design(name="levels", start_year=2015, end_year=2015, flash_days=7,
                    demand={2015: YearDemand(2015, core_hours=0, storage_tb=0, genomes_per_day=3,
                                             ingest_tb_per_day=2, files=0)},
                    costs=CostParams(discount_rate=0.05))
    pm = pipeline_model(design, catalog)
    assert pm is not None
    m = _Model()
    node = m.var(1.0, 0, 100, True)
    unit = m.var(0.0, 0, 100, True)  # free storage: only the nodes cost

    def active(kind: str, name: str, _year: int) -> list[int]:
        own = {("node", "haswell"): [node], ("storage", "flash-gss"): [unit]}
        return own.get((kind, name), [])

    served = add_genome_rows(m, pm, catalog, year=2015, bound=10.0, nodes=["haswell"], tiers=["flash-gss"],
                             active=active, fixed_count=lambda *_: 0.0, core_share=1.0,
                             rho_max=design.storage_utilisation_max, reserved_tb=14.0, turnaround_limit_hours=None)
    m.row(served, 3.0, math.inf)
    levels = utilisation_levels(design.storage_utilisation_max)
    assert len(levels) > 1
    best_rate = max(pm.option("haswell", lv, 1.0).genomes_per_day_per_node for lv in levels)
    lp = m.solve(10.0, 0.0, lp_only=True)
    assert lp.x is not None
    assert lp.x[node] >= 3.0 / best_rate * (1 - 1e-9)


def test_the_ingest_throughput_row_is_left_out_only_where_the_storage_row_implies_it() -> None:
    """Exact presolve: 0.2 GB/s of ingest with 5,000 TB to buy on systems of 10 GB/s per 600 TB is implied (any
    purchase meeting the TB writes far more); a 0.01 GB/s per 800 TB system breaks it, so the row stays."""
    fast = [(10.0, 600.0), (2.5, 16.0)]
    assert rate_row_implied(0.2, 5000.0, fast)
    assert not rate_row_implied(0.2, 5000.0, [*fast, (0.01, 800.0)])
    assert rate_row_implied(0.0, 0.0, fast)  # nothing to write: no row
    assert not rate_row_implied(0.2, 0.0, fast)  # storage already owned covers the TB: the row must stay

