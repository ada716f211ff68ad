"""Demo step: the Minerva narrow-flash design judged on demand paths, and a plan bought for 90%.

A new version of the narrow-flash design gains an ``uncertainty:`` block: the study's yearly
figures with a lognormal spread that widens by year, and the sequencer fleet's spread (docs/
uncertainty.md). Its page then shows the chance each year holds; a 90% service-level run (with
the cost of confidence at 50-95%) is queued for the worker `make run` starts.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml

from planner.designs.models import Design, OptimizerRun
from planner.designs.services import design_create, design_evaluate
from planner.designs.services_paths import service_level_run_start

UNCERTAINTY = {
    "paths": 500, "seed": 0,
    "sigma_per_year": {"core_hours": 0.12, "storage_tb": 0.08},
    "plan": {"instruments": [0.8, 1.25], "samples_per_instrument": [0.9, 1.1]},
    "note": "demo: the study's figures with a widening spread (assumed, not from the paper)",
}


def load_design_on_paths(log: Callable[[str], None]) -> None:
    base = Design.objects.filter(name__icontains="narrow", revisions__isnull=True).order_by("-version").first()
    if base is None:
        log("design on demand paths: skipped (no narrow-flash design; the hardware step loads it)")
        return
    if base.scenario.get("uncertainty"):
        design = base
    else:
        data = dict(base.scenario)
        data["uncertainty"] = UNCERTAINTY
        data["optimize"] = dict(data.get("optimize") or {}) | {"service_level": 0.9, "time_limit_s": 30}
        text = (f"# v{base.version + 1}: judged on 500 joint demand paths (docs/uncertainty.md)\n"
                + yaml.safe_dump(data, sort_keys=False))
        design = design_create(text=text, parent=base)
    design_evaluate(design=design)
    log(f"design on demand paths: {design.name} v{design.version}")
    if not OptimizerRun.objects.filter(design=design, params__kind="service_level").exists():
        run = service_level_run_start(design=design, alpha=0.9)
        log(f"  90% service-level plan queued as optimiser run #{run.pk} (the worker solves it)")
