"""A site's own pipeline benchmarks, checked: what the cost model derives from them and how well (pure core).

The calibrated performance model (planner.hardware.calibration) is fitted to the benchmark file a catalog
names (fixtures/benchmarks/genomics.yaml), not to runs stored in the catalog. A pipeline benchmarked only in
the catalog (a site's own runs, e.g. nf-core/sarek) is served by the cost model (planner.hardware.costmodel):
CPU hours from the run on that node type, else scaled by clock x arch factor from the nearest benchmarked
node type; wall core-hours measured, else CPU hours / the storage's CPU efficiency. Nothing is fitted, so
this module says so and checks the rule by leave-one-out: each run with CPU hours is predicted from the
other runs, as the cost model would predict it had the run not been entered.
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Any

from planner.hardware.catalog import Catalog
from planner.hardware.costmodel import CostModel, NoBenchmarkError

MIN_RUNS = 3  # fewer: a leave-one-out predicts each run from one or two others, which tests nothing


def site_pipeline_checks(cat: Catalog, modelled: set[str]) -> list[dict[str, Any]]:
    """For each pipeline with CPU-hour runs in ``cat`` that the performance model does not serve: its runs,
    the leave-one-out of the cost model's rule (CPU and wall core-hours), and a warning when too few runs
    (or runs on one node type only) leave the rule untested."""
    names = sorted({b.pipeline for b in cat.benchmarks if b.cpu_hours_per_sample} - modelled)
    return [_check(cat, name) for name in names]


def _check(cat: Catalog, pipeline: str) -> dict[str, Any]:
    runs = [b for b in cat.benchmarks if b.pipeline == pipeline and b.cpu_hours_per_sample]
    node_types = sorted({b.node_type for b in runs})
    rows = []
    for run in runs:
        others = replace(cat, benchmarks=[b for b in cat.benchmarks if b is not run])
        model = CostModel(others)
        row: dict[str, Any] = {"run": run, "measured_cpu": run.cpu_hours_per_sample,
                               "measured_wall": run.wall_core_hours_per_sample}
        try:
            cpu = model.cpu_hours_per_sample(pipeline, run.node_type, run.storage_system)
        except NoBenchmarkError:
            row |= {"predicted_cpu": None, "cpu_error": None, "rule": "no other run of this pipeline"}
        else:
            row |= {"predicted_cpu": cpu.value, "cpu_error": cpu.value / float(run.cpu_hours_per_sample or 1) - 1,
                    "rule": cpu.rule}
        row["predicted_wall"] = row["wall_error"] = None
        if run.wall_core_hours_per_sample:
            try:
                wall = model.wall_core_hours_per_sample(pipeline, run.node_type, run.storage_system)
            except NoBenchmarkError:
                pass
            else:
                row["predicted_wall"] = wall.value
                row["wall_error"] = wall.value / run.wall_core_hours_per_sample - 1
        rows.append(row)
    # Held back by node type: every run on it at once, so its CPU hours come from another node type scaled by
    # clock x arch factor (the rule designs use for a node type nobody benchmarked); run by run, a node type
    # with repeat runs is only ever predicted from its own runs.
    by_node: list[dict[str, Any]] = []
    for node in node_types:
        own = [b for b in runs if b.node_type == node]
        others = replace(cat, benchmarks=[b for b in cat.benchmarks if not (b.pipeline == pipeline
                                                                            and b.node_type == node)])
        measured = statistics.mean(float(b.cpu_hours_per_sample or 0) for b in own)
        try:
            cpu = CostModel(others).cpu_hours_per_sample(pipeline, node, own[0].storage_system)
        except NoBenchmarkError:
            by_node.append({"node_type": node, "runs": len(own), "measured_cpu": measured, "predicted_cpu": None,
                            "error": None, "rule": "no run on another node type"})
            continue
        by_node.append({"node_type": node, "runs": len(own), "measured_cpu": measured, "predicted_cpu": cpu.value,
                        "error": cpu.value / measured - 1, "rule": cpu.rule})
    errors = [abs(e) for r in rows for e in (r["cpu_error"], r["wall_error"]) if e is not None]
    warning = ""
    if len(runs) < MIN_RUNS:
        warning = (f"only {len(runs)} run{'' if len(runs) == 1 else 's'} with CPU hours: a check needs at least "
                   f"{MIN_RUNS}, so no error is given; every figure below is a run itself or scaled from one, "
                   "untested")
    elif len(node_types) < 2:
        warning = (f"every run is on {node_types[0]}: the leave-one-out tests only repeat runs on it; the scaling "
                   "to other node types (clock x arch factor of the catalog) is untested")
    return {"pipeline": pipeline, "runs": len(runs), "node_types": node_types, "rows": rows, "by_node": by_node,
            "median_error": statistics.median(errors) if errors and len(runs) >= MIN_RUNS else None,
            "figures": len(errors), "warning": warning,
            "worst_node_error": max((abs(r["error"]) for r in by_node if r["error"] is not None), default=None)}
