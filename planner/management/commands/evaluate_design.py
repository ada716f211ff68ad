"""python manage.py evaluate_design SCENARIO [--json] [--save] [--paths N]"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from planner.designs.scenario import ScenarioError, load_scenario
from planner.hardware.services import CatalogImportError


class Command(BaseCommand):
    help = ("Evaluate a scenario file (YAML/JSON, docs/scenario-format.md) year by year: capacity vs demand, every "
            "constraint pass/fail with its shortfall, costs. Last stdout line: a JSON summary (--json: the whole "
            "evaluation). --save also stores it as a design, evaluated on the database catalog.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("scenario", type=Path)
        parser.add_argument("--json", action="store_true", help="print the full evaluation as the JSON line")
        parser.add_argument("--save", action="store_true", help="store as a design (shown under /designs/)")
        parser.add_argument("--paths", type=int, default=None, metavar="N",
                            help="judge the design on N joint demand paths (the scenario's uncertainty: block): "
                                 "the probability each constraint holds each year")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["scenario"]
        if not path.is_file():
            raise CommandError(f"{path}: file not found")
        t0 = time.perf_counter()
        try:
            from planner.designs.services_prices import stored_price_resolver

            sc = load_scenario(path, price_resolver=stored_price_resolver)
        except ScenarioError as exc:
            raise CommandError(f"{path}: invalid scenario: {'; '.join(exc.errors)}") from exc
        except (OSError, ValueError) as exc:  # YAML / JSON syntax
            raise CommandError(f"{path}: cannot read: {str(exc).splitlines()[0]}") from exc
        from planner.designs.capacity import evaluate_design
        from planner.designs.labels import check_label

        ev = evaluate_design(sc.design, sc.catalog)
        ms = (time.perf_counter() - t0) * 1000
        for src in sc.price_sources:
            span = ", ".join(f"{y['year']}: x{y['multiplier']:.3f}" for y in src.years)
            print(f"  price {src.label}: {span}", file=sys.stderr)
        for y in ev.years:
            short = [_short(check_label(c.name), c.shortfall, c.unit) for c in y.checks if not c.passed]
            print(f"  {y.year}: {y.cores:,} cores, {y.genomes_per_day_capacity:,.1f} genomes/day, "
                  f"{y.plannable_tb:,.0f} TB plannable; " + ("all constraints met" if not short else
                                                             "short: " + ", ".join(short)), file=sys.stderr)
        summary: dict[str, Any] = {
            "scenario": str(path), "name": ev.name, "feasible": ev.feasible, "npv_usd": round(ev.npv_usd, 2),
            "capex_usd": round(ev.capex_usd, 2), "opex_usd": round(ev.opex_usd, 2),
            "failures": [{"constraint": f.name, "year": f.year, "shortfall": f.shortfall, "unit": f.unit}
                         for f in ev.failures],
            "elapsed_ms": round(ms, 1),
            "price_sources": [{"target": s.target, "items": s.items, "series": s.series, "series_id": s.series_id,
                               "fit_id": s.fit_id, "percentile": s.percentile, "base_year": s.base_year,
                               "multipliers": {str(y["year"]): round(y["multiplier"], 6) for y in s.years}}
                              for s in sc.price_sources],
        }
        if options["save"]:
            from planner.designs.services import design_create, design_evaluate

            try:
                design = design_create(text=path.read_text(encoding="utf-8"))
                stored = design_evaluate(design=design)
            except (ScenarioError, CatalogImportError) as exc:
                raise CommandError(f"{path}: cannot save against the database catalog: {exc}") from exc
            summary |= {"design_id": design.pk, "evaluation_id": stored.pk, "url": f"/designs/{design.pk}/"}
        if options["paths"] is not None:
            summary["chance"] = _chance(sc, options["paths"], path)
        if options["json"]:
            summary["evaluation"] = ev.to_dict()
        self.stdout.write(json.dumps(summary, allow_nan=False))


def _chance(sc: Any, n_paths: int, path: Path) -> dict[str, Any]:
    from forecasts.demand.paths import PathsError
    from planner.designs.confidence import chance_of, scenario_paths
    from planner.designs.services_paths import stored_paths_resolver

    if not 1 <= n_paths <= 20_000:
        raise CommandError("--paths: a whole number from 1 to 20,000")
    try:
        demand, _ = scenario_paths(sc, n_paths=n_paths, resolver=stored_paths_resolver)
    except PathsError as exc:
        raise CommandError(f"{path}: {exc}") from exc
    report = chance_of(sc.design, sc.catalog, demand)
    for y in report.years:
        parts = ", ".join(f"{c.constraint} {c.probability:.0%}" for c in y.constraints)
        print(f"  {y.year}: P(all constraints hold) {y.all_constraints:.1%} ({parts})", file=sys.stderr)
    return report.to_dict()


def _short(label: str, shortfall: float, unit: str) -> str:
    """'Genomes per day by 0.4 genomes/day': the pages' label, the figure as the pages write figures (whole
    units from 100, three significant figures below), the unit unless the label already names it."""
    amount = f"{shortfall:,.0f}" if abs(shortfall) >= 100 else f"{shortfall:.3g}"
    return f"{label} by {amount}" + ("" if f"({unit}" in label else f" {unit}")
