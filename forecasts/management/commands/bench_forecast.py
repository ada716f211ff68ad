"""python manage.py bench_forecast [--series 100] [--workers 2]"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand

from forecasts.demand import bench as bench_growth


class Command(BaseCommand):
    help = ("Speed of the forecasting engine: one 60-month series with every member, the rolling-origin "
            "backtest, calibrated intervals and 1,000 paths, then N such series on W worker processes. "
            "Last stdout line: JSON.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--series", type=int, default=100)
        parser.add_argument("--workers", type=int, default=2)

    def handle(self, *args: Any, **o: Any) -> None:
        print(f"benchmarking: 5 single series, then {o['series']} series on {o['workers']} workers",
              file=sys.stderr)
        real_stdout = sys.stdout
        sys.stdout = sys.stderr  # bench_growth.main prints its JSON; ours must be the last stdout line
        try:
            result = bench_growth.main(n_series=o["series"], workers=o["workers"])
        finally:
            sys.stdout = real_stdout
        self.stdout.write(json.dumps(result))
