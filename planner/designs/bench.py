"""Speed benchmark of design evaluation and optimisation; prints JSON (pure core).

``python -m planner.designs.bench`` measures
- evaluating the 6-year Minerva narrow design (target < 50 ms),
- optimising a 5-year horizon over 20 node types and 10 storage systems to 0.1 % (target < 5 s),
- optimising the Minerva scenario.
A Django management command can wrap :func:`main` / :func:`run`.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from dataclasses import replace
from typing import Any

from planner.designs.capacity import Design, YearDemand, evaluate_design
from planner.designs.optimize import optimize_design
from planner.designs.scenario import REPO_ROOT, load_scenario
from planner.hardware.catalog import Catalog, NodeType, StorageSystem
from planner.hardware.costmodel import CostModel


def synthetic_catalog(base: Catalog, n_nodes: int = 20, n_storage: int = 10) -> Catalog:
    """The fixture catalog widened to ``n_nodes`` node types and ``n_storage`` storage systems.

    Variants differ deterministically in cores, clock, price and power so no two are identical.
    """
    cat = Catalog(benchmarks=list(base.benchmarks), source_path="synthetic")
    cat.storage_systems = {k: s for k, s in base.storage_systems.items() if s.kind != "archive"}
    nodes = list(base.node_types.values())
    for i in range(n_nodes):
        src: NodeType = nodes[i % len(nodes)]
        if i < len(nodes):
            cat.node_types[src.name] = src
            continue
        f = 1.0 + 0.037 * i
        cat.node_types[f"{src.name}-v{i}"] = replace(
            src, name=f"{src.name}-v{i}", base_clock_ghz=round(src.base_clock_ghz * (0.9 + 0.02 * i), 3),
            price_usd=round(src.price_usd * f), power_w=round(src.power_w * (0.95 + 0.01 * i)),
            first_year=2014 + i % 3, last_year=None,
        )
    stores: list[StorageSystem] = list(cat.storage_systems.values())
    i = 0
    while len(cat.storage_systems) < n_storage:
        src_s = stores[i % len(stores)]
        f = 1.0 + 0.05 * (i + 1)
        cat.storage_systems[f"{src_s.name}-v{i}"] = replace(
            src_s, name=f"{src_s.name}-v{i}", usable_tb=src_s.usable_tb * f, raw_tb=src_s.raw_tb * f,
            price_usd=round(src_s.price_usd * (f + 0.02)), first_year=2014, last_year=None,
        )
        i += 1
    return cat


def _timeit(fn: Any, repeat: int) -> dict[str, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    return {"median_ms": round(statistics.median(times), 3), "max_ms": round(max(times), 3), "runs": repeat}


def run(repeat: int = 20) -> dict[str, Any]:
    scen = REPO_ROOT / "fixtures" / "scenarios"
    narrow = load_scenario(scen / "minerva_narrow_flash.yaml")
    out: dict[str, Any] = {"cpus": os.cpu_count()}
    out["evaluate_minerva_6y_cold"] = _timeit(lambda: evaluate_design(narrow.design, narrow.catalog), repeat)
    model = CostModel(narrow.catalog)
    out["evaluate_minerva_6y_warm_cache"] = _timeit(
        lambda: evaluate_design(narrow.design, narrow.catalog, model), repeat
    )
    big = synthetic_catalog(narrow.catalog)
    five = Design(
        name="synthetic 5-year", start_year=2015, end_year=2019, existing=narrow.design.existing,
        demand={y: replace(d, year=y) for y, d in narrow.design.demand.items() if 2015 <= y <= 2019},
        budgets_usd={y: 6e6 for y in range(2015, 2020)}, costs=narrow.design.costs,
    )
    five.demand.setdefault(2015, YearDemand(2015))
    results = []
    for _ in range(3):
        res = optimize_design(five, big, time_limit_s=30.0, mip_rel_gap=1e-3)
        results.append(res)
    best = results[-1]
    out["optimise_5y_20_nodes_10_storage"] = {
        "node_types": len(big.node_types), "storage_systems": len(big.storage_systems),
        "seconds": [round(r.solve_seconds, 3) for r in results], "status": best.status,
        "mip_gap": best.mip_gap, "variables": best.n_variables, "constraints": best.n_constraints,
        "npv_usd": best.npv_usd,
    }
    opt = load_scenario(scen / "minerva_optimised.yaml")
    t0 = time.perf_counter()
    res = optimize_design(opt.design, opt.catalog, time_limit_s=30.0, mip_rel_gap=1e-3)
    out["optimise_minerva_6y"] = {"seconds": round(time.perf_counter() - t0, 3), "status": res.status,
                                  "mip_gap": res.mip_gap, "npv_usd": res.npv_usd}
    return out


def main() -> None:
    print(json.dumps(run(), indent=2))


if __name__ == "__main__":
    main()
