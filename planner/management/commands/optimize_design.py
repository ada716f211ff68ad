"""python manage.py optimize_design SCENARIO [--json] [--time-limit S] [--gap G]"""

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

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["scenario"]
        if not path.is_file():
            raise CommandError(f"{path}: file not found")
        if options["time_limit"] is not None and options["time_limit"] <= 0:
            raise CommandError("--time-limit: must be > 0 seconds")
        print(f"  optimising {path} ...", file=sys.stderr)
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
