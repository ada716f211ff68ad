"""python manage.py bench_design [--repeat N]: the speed figures behind docs/performance.md (issue 6)."""

from __future__ import annotations

import json
import platform
import sys
from typing import Any

from django.core.management.base import BaseCommand

from planner.designs.bench import run


class Command(BaseCommand):
    help = ("Measure design evaluation (target < 50 ms for 5 years) and optimisation (5 years, 20 node types, "
            "10 storage systems, within 0.1 %: target < 5 s on 2 cores). Last stdout line: JSON.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--repeat", type=int, default=20, help="evaluation repetitions (median reported)")

    def handle(self, *args: Any, **options: Any) -> None:
        print("  measuring evaluation and optimisation (about 10 s) ...", file=sys.stderr)
        out = run(repeat=options["repeat"])
        out["machine"] = {"python": platform.python_version(), "platform": platform.platform(),
                          "processor": platform.processor() or platform.machine()}
        ev = out["evaluate_minerva_6y_cold"]["median_ms"]
        opt = max(out["optimise_5y_20_nodes_10_storage"]["seconds"])
        out["targets"] = {"evaluate_under_50_ms": ev < 50.0, "optimise_under_5_s": opt < 5.0}
        self.stdout.write(json.dumps(out))
