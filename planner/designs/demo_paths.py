"""Demo steps: the Minerva narrow-flash design judged on demand paths, and a plan bought for 90%; a design
for the demo cluster started from its own core-hours forecast and the storage forecast (owning nexus-gpfs's
recorded capacity), with its 90% plan bought and saved as a design.

A new version of the narrow-flash design gains an ``uncertainty:`` block: the study's yearly
figures with a lognormal spread that widens by year, and the sequencer fleet's spread (docs/
uncertainty.md). Its page then shows the chance each year holds; a 90% service-level run (with
the cost of confidence at 50-95%) is queued for the worker `make run` starts.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml

from forecasts.demand.models import ForecastFit
from planner.designs.models import Design, OptimizerRun
from planner.designs.services import design_create, design_evaluate, optimizer_run_save_design
from planner.designs.services_paths import (
    design_from_forecast,
    guess_node_type,
    service_level_run_create,
    service_level_run_execute,
    service_level_run_start,
    whole_future_years,
)

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


DEMO_STORAGE_SYSTEM = "ddn-sfa10k"  # the demo's assumption of what nexus-gpfs is: a disk system of the catalog


def _storage_for(years: tuple[int, int]) -> tuple[ForecastFit | None, str | None]:
    """The newest storage forecast covering ``years`` whole, and the catalog system the demo's file systems are
    (when the catalog holds it and a file system has a recorded capacity); (None, None) otherwise."""
    from forecasts.storage.models import FileSystem
    from planner.hardware.models import StorageSystem

    for fit in ForecastFit.objects.filter(metric=ForecastFit.Metric.STORAGE_PB, frequency="M").order_by("-pk"):
        if set(range(years[0], years[1] + 1)) <= set(whole_future_years(fit)):
            owned = (StorageSystem.objects.filter(name=DEMO_STORAGE_SYSTEM).exists()
                     and FileSystem.objects.exclude(capacity_tb=None).exists())
            return fit, DEMO_STORAGE_SYSTEM if owned else None
    return None, None


def load_design_from_forecast(log: Callable[[str], None]) -> None:
    """What a planner does from a forecast page: the demo cluster's next three whole years from its newest
    core-hours forecast (all departments), owning the cluster's recorded nodes (64-core: the catalog's
    amd-interlagos, the only node type that wide), the design judged on the forecast's paths, and its 90% plan
    bought and saved as a design (the grant report on the cluster is written on it: planner.reports.demo)."""
    from forecasts.accounting.demo import CLUSTER

    fits = ForecastFit.objects.filter(metric=ForecastFit.Metric.CORE_HOURS, cluster__isnull=False,
                                      department__isnull=True, exclude_department__isnull=True).order_by("-created_at")
    # the demo cluster's first: with clusters of a site's own loaded beside it, the newest fit may be theirs
    fit = fits.filter(cluster__name=CLUSTER).first() or fits.first()
    if fit is None:
        log("design from a forecast: skipped (no cluster core-hours forecast; the forecasts step fits them)")
        return
    existing = Design.objects.filter(scenario__uncertainty__forecast__core_fit=fit.pk).order_by("-version").first()
    whole = whole_future_years(fit)
    if existing is None and not whole:
        log(f"design from a forecast: skipped (forecast #{fit.pk} has no whole future year)")
        return
    years = (whole[0], whole[min(len(whole), 3) - 1]) if whole else (0, 0)
    storage, system = _storage_for(years) if existing is None else (None, None)
    design = existing or design_from_forecast(fit=fit, start_year=years[0], end_year=years[1],
                                              node_type=guess_node_type(fit), storage=storage, storage_system=system)
    design_evaluate(design=design)
    horizon = design.scenario.get("horizon") or {}
    links = (design.scenario.get("uncertainty") or {}).get("forecast") or {}
    log(f"design from a forecast: {design.name} ({horizon.get('start_year')}-{horizon.get('end_year')})"
        + (f", storage from forecast #{links['storage_fit']}" if "storage_fit" in links else ""))
    # bought here, not queued: the cluster's own plan is a small model (one node type wide enough, and storage),
    # solved in a few seconds, and the demo's grant report on the cluster is written on it
    run = OptimizerRun.objects.filter(design=design, params__kind="service_level").order_by("pk").first()
    if run is None:
        run = service_level_run_execute(service_level_run_create(design=design, alpha=0.9).pk)
        log(f"  90% service-level plan: optimiser run #{run.pk}, {run.message}")
    if run.result_design_id is None and run.status in (OptimizerRun.Status.OPTIMAL, OptimizerRun.Status.GAP):
        saved = optimizer_run_save_design(run=run)
        log(f"  saved as design #{saved.pk}: {saved.name}")
