"""Demo step: the catalog from the source documents, the three Minerva designs and one optimiser run.

Idempotent and quick the second time: the catalog is loaded only when the database has none (so a
planner's edits survive `make run`; `import_catalog fixtures/catalog.yaml` refreshes it on purpose),
designs are matched by name, evaluations by their inputs hash, and the run is made once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from planner.designs.models import Design, OptimizerRun
from planner.designs.services import (
    design_create,
    design_evaluate,
    optimizer_run_execute,
    optimizer_run_save_design,
    scenario_parse_text,
)
from planner.hardware.models import NodeType
from planner.hardware.services import catalog_load_yaml

SCENARIOS = Path(settings.BASE_DIR) / "fixtures" / "scenarios"
MINERVA = ("minerva_wide_amd_disk.yaml", "minerva_narrow_flash.yaml", "minerva_optimised.yaml")


def load_hardware_and_designs(log: Callable[[str], None]) -> None:
    if not NodeType.objects.exists():
        stats = catalog_load_yaml()
        rows = sum(v["created"] for v in stats.values() if isinstance(v, dict))
        log(f"catalog: {rows} rows from fixtures/catalog.yaml")
    designs = []
    for fname in MINERVA:
        text = (SCENARIOS / fname).read_text(encoding="utf-8")
        name = str(scenario_parse_text(text).get("name"))
        design = Design.objects.filter(name=name, revisions__isnull=True).order_by("-version").first()
        if design is None:
            design = design_create(text=text)
        design_evaluate(design=design)
        designs.append(design)
    optimised = designs[-1]
    run = optimised.optimizer_runs.filter(status__in=[OptimizerRun.Status.OPTIMAL, OptimizerRun.Status.GAP]).first()
    if run is None:
        run = optimizer_run_execute(OptimizerRun.objects.create(design=optimised, params={}).pk)
        log(f"optimiser run #{run.pk}: {run.status}")
    log(f"designs: {', '.join(d.name for d in designs)}")
    # the optimiser's plan as a design of its own, so the designs list shows what it bought (the
    # scenario itself only states the problem: no purchases, hence its shortfalls)
    if run.status in (OptimizerRun.Status.OPTIMAL, OptimizerRun.Status.GAP) and not run.result_design_id:
        saved = optimizer_run_save_design(run=run)
        log(f"optimised plan saved as {saved.name}")


PRICE_TREND = "minerva_optimised_price_trend.yaml"


def load_price_trend_design(log: Callable[[str], None]) -> None:
    """A fourth Minerva design whose disk prices follow the demo disk $/TB forecast, optimised once and its
    plan saved as a design of its own.  Runs after the forecasting demo step (it needs the fitted series)."""
    from forecasts.demand.demo import PRICE_SERIES
    from forecasts.demand.models import ExternalSeries

    if not ExternalSeries.objects.filter(name=PRICE_SERIES, fits__isnull=False).exists():
        log(f"price-trend design: skipped (no fitted series {PRICE_SERIES!r}; the forecasts demo step loads it)")
        return
    text = (SCENARIOS / PRICE_TREND).read_text(encoding="utf-8")
    name = str(scenario_parse_text(text).get("name"))
    design = Design.objects.filter(name=name, revisions__isnull=True).order_by("-version").first()
    if design is None:
        design = design_create(text=text)
    design_evaluate(design=design)
    run = design.optimizer_runs.filter(status__in=[OptimizerRun.Status.OPTIMAL, OptimizerRun.Status.GAP]).first()
    if run is None:
        run = optimizer_run_execute(OptimizerRun.objects.create(design=design, params={}).pk)
        log(f"price-trend optimiser run #{run.pk}: {run.status}")
    if run.status in (OptimizerRun.Status.OPTIMAL, OptimizerRun.Status.GAP) and not run.result_design_id:
        saved = optimizer_run_save_design(run=run)
        log(f"price-trend design: plan saved as {saved.name}")
    log(f"price-trend design: {design.name}")
