"""Shared set-up for the design tests: the catalog in the database and the Minerva designs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "fixtures" / "scenarios"


def load_catalog_and_designs(with_run: bool = False) -> dict[str, Any]:
    """The demo step itself: catalog, the three Minerva designs evaluated, optionally one optimiser run."""
    from planner.designs.demo import load_hardware_and_designs
    from planner.models import Design, OptimizerRun

    if not with_run:
        from planner.designs import demo as demo_designs

        original = demo_designs.optimizer_run_execute
        demo_designs.optimizer_run_execute = lambda run_id, job_id=None: OptimizerRun.objects.get(pk=run_id)
        try:
            load_hardware_and_designs(lambda msg: None)
        finally:
            demo_designs.optimizer_run_execute = original
            OptimizerRun.objects.all().delete()
    else:
        load_hardware_and_designs(lambda msg: None)
    saved_plans = OptimizerRun.objects.exclude(result_design=None).values("result_design")
    by = {d.name: d for d in Design.objects.exclude(pk__in=saved_plans)}  # the scenarios, not saved plans
    return {
        "wide": next(d for n, d in by.items() if "wide AMD" in n),
        "narrow": next(d for n, d in by.items() if "narrow" in n),
        "optimised": next(d for n, d in by.items() if "to optimise" in n),
    }
