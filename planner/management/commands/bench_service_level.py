"""python manage.py bench_service_level [--paths N]: the figures behind docs/performance.md (uncertainty)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand

from planner.designs.bench_service_level import parse_seeds, run, run_seeds


class Command(BaseCommand):
    help = ("Time judging a design on joint demand paths and buying a plan for a 90% service level on the 5-year x "
            "20 node types x 10 storage systems instance; prints one JSON line.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--paths", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=1, help="in-sample paths seed (1: as documented)")
        parser.add_argument("--time-limit", type=float, default=60.0, help="seconds the solver may take")
        parser.add_argument("--seeds", default="",
                            help="comma-separated in-sample path seeds, or 'documented' for the 21 of "
                                 "docs/performance.md: each is solved in turn, then how many met the target")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["seeds"]:
            out = run_seeds(parse_seeds(options["seeds"]), options["paths"], options["time_limit"],
                            progress=self.stderr.write)
        else:
            out = run(n_paths=options["paths"], seed=options["seed"], time_limit_s=options["time_limit"])
        self.stdout.write(json.dumps(out))
