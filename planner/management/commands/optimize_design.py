"""python manage.py optimize_design SCENARIO [--json] [--time-limit S] [--gap G] [--service-level A] [--paths N]"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from planner.designs.scenario import ScenarioError, optimize_scenario


class Command(BaseCommand):
    help = ("Find the cost-minimal purchase plan (net present capex + opex) meeting every constraint of a scenario "
            "each year (MILP, HiGHS). Reports optimal / gap / infeasible (with the constraint, year and shortfall). "
            "Last stdout line: a JSON summary (--json: with the plan's evaluation). Exit 0 unless the scenario is "
            "invalid; an infeasible scenario is a result, not an error.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("scenario", type=Path)
        parser.add_argument("--json", action="store_true", help="include the plan's full evaluation")
        parser.add_argument("--time-limit", type=float, default=None, metavar="S", help="HiGHS time limit, seconds")
        parser.add_argument("--gap", type=float, default=None, metavar="G", help="relative MIP gap (0.001 = 0.1%%)")
        parser.add_argument("--service-level", type=float, default=None, metavar="A",
                            help="buy for a service level: every year, capacity meets demand jointly on at least "
                                 "this share of the demand paths (e.g. 0.9); default: the scenario's "
                                 "optimize.service_level, else the single yearly figures")
        parser.add_argument("--paths", type=int, default=None, metavar="N",
                            help="demand paths to buy the service level on (default: the scenario's "
                                 "uncertainty.paths, 1000); the plan is then checked on N independent paths")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["scenario"]
        if not path.is_file():
            raise CommandError(f"{path}: file not found")
        if options["time_limit"] is not None and options["time_limit"] <= 0:
            raise CommandError("--time-limit: must be > 0 seconds")
        level = options["service_level"]
        if level is not None and not 0 < level <= 1:
            raise CommandError("--service-level: a share in (0, 1], e.g. 0.9")
        if options["paths"] is not None and not 1 <= options["paths"] <= 20_000:
            raise CommandError("--paths: a whole number from 1 to 20,000")
        print(f"  optimising {path} ...", file=sys.stderr)
        if level is not None or options["paths"] is not None or _scenario_level(path) is not None:
            self.stdout.write(json.dumps(_service_level(path, level, options), allow_nan=False))
            return
        try:
            from planner.designs.services_prices import stored_price_resolver

            res = optimize_scenario(path, time_limit_s=options["time_limit"], mip_rel_gap=options["gap"],
                                    price_resolver=stored_price_resolver)
        except ScenarioError as exc:
            raise CommandError(f"{path}: invalid scenario: {'; '.join(exc.errors)}") from exc
        except (OSError, ValueError) as exc:
            raise CommandError(f"{path}: cannot read: {str(exc).splitlines()[0]}") from exc
        print(f"  {res.status}: {res.message} ({res.solve_seconds:.2f} s, {res.n_variables} variables)",
              file=sys.stderr)
        for p in res.purchases:
            print(f"    {p.year}: {p.count} x {p.node_type or p.storage_system}", file=sys.stderr)
        out = res.to_dict()
        if not options["json"]:
            out.pop("evaluation", None)
        out["scenario"] = str(path)
        self.stdout.write(json.dumps(out, allow_nan=False))


def _scenario_level(path: Path) -> float | None:
    from planner.designs.scenario import read_scenario_file

    try:
        raw = read_scenario_file(path)
    except (OSError, ValueError):
        return None  # the normal path reports the reading error
    opt = raw.get("optimize") if isinstance(raw, dict) else None
    level = opt.get("service_level") if isinstance(opt, dict) else None
    return float(level) if isinstance(level, int | float) and not isinstance(level, bool) else None


def _service_level(path: Path, level: float | None, options: dict[str, Any]) -> dict[str, Any]:
    """Plan for a service level on the scenario's demand paths, checked on an independent set."""
    from forecasts.demand.paths import PathsError
    from planner.designs.confidence import chance_of, plan_for_service_level, scenario_paths
    from planner.designs.scenario import load_scenario
    from planner.designs.services_paths import stored_paths_resolver
    from planner.designs.services_prices import stored_price_resolver

    try:
        sc = load_scenario(path, price_resolver=stored_price_resolver)
        alpha = level if level is not None else (sc.optimize.service_level or 0.9)
        demand_in, demand_out = scenario_paths(sc, n_paths=options["paths"], resolver=stored_paths_resolver)
    except ScenarioError as exc:
        raise CommandError(f"{path}: invalid scenario: {'; '.join(exc.errors)}") from exc
    except PathsError as exc:
        raise CommandError(f"{path}: {exc}") from exc
    except (OSError, ValueError) as exc:
        raise CommandError(f"{path}: cannot read: {str(exc).splitlines()[0]}") from exc
    o = sc.optimize
    res, plan = plan_for_service_level(
        sc.design, sc.catalog, demand_in, alpha, node_types=o.node_types, storage_systems=o.storage_systems,
        max_count_per_year=o.max_count_per_year,
        time_limit_s=o.time_limit_s if options["time_limit"] is None else options["time_limit"],
        mip_rel_gap=o.mip_rel_gap if options["gap"] is None else options["gap"], keep_purchases=o.keep_purchases)
    print(f"  {res.status}: {res.message} ({res.solve_seconds:.2f} s, {res.n_variables} variables, "
          f"service level {alpha:.0%} on {demand_in.n_paths:,} paths)", file=sys.stderr)
    out = res.to_dict()
    if not options["json"]:
        out.pop("evaluation", None)
    out["scenario"] = str(path)
    out["service_level"] = alpha
    if res.evaluation is not None:
        inside, outside = chance_of(plan, sc.catalog, demand_in), chance_of(plan, sc.catalog, demand_out)
        for a, b in zip(inside.years, outside.years, strict=True):
            print(f"    {a.year}: holds on {a.all_constraints:.1%} of the paths it was bought on, "
                  f"{b.all_constraints:.1%} of {outside.n_paths:,} independent paths", file=sys.stderr)
        out["in_sample"] = {str(y.year): y.all_constraints for y in inside.years}
        out["out_of_sample"] = {str(y.year): y.all_constraints for y in outside.years}
        out["paths"] = demand_in.n_paths
        out["check_paths"] = demand_out.n_paths
    return out
