"""python manage.py forecast --cluster NAME --metric core_hours|storage_pb [--department D] --horizon-months N --json"""

from __future__ import annotations

import json
import sys
from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from forecasts.demand.series import (
    DEFAULT_ORIGINS,
    FAMILY_CHOICES,
    METRICS,
    SeriesError,
    forecast_fit_create,
    spec_from_names,
)


def _month(text: str) -> date:
    try:
        return date.fromisoformat(text + "-01" if len(text) == 7 else text).replace(day=1)
    except ValueError as exc:
        raise CommandError(f"--through: expected YYYY-MM, got {text!r}") from exc


class Command(BaseCommand):
    help = ("Forecast a monthly usage series with the combined engine forecast (members backtested at the "
            "asked horizon, calibrated intervals; a month the logs begin or end inside is left out) and store "
            "the fit. "
            "Prints the method, backtest errors and yearly median/p10/p90 (part years marked); last stdout "
            "line: JSON.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--cluster", default=None, help="cluster name (default: all clusters; not with storage_pb)")
        parser.add_argument("--metric", default="core_hours", choices=METRICS)
        parser.add_argument("--department", default=None, help="department code (default: all)")
        parser.add_argument("--exclude-department", default=None,
                            help="fit everything except this department (trend part of a combined projection)")
        parser.add_argument("--horizon-months", type=int, default=36)
        parser.add_argument("--through", default=None, help="use history up to this month (YYYY-MM)")
        parser.add_argument("--family", default=None, choices=FAMILY_CHOICES,
                            help="pin one model (an engine member or a growth curve) instead of the combination")
        parser.add_argument("--log", action="store_true", default=None, help="force the log scale")
        parser.add_argument("--no-log", dest="log", action="store_false", help="forbid the log scale")
        parser.add_argument("--backtest", type=int, default=DEFAULT_ORIGINS,
                            help=f"rolling origins (default {DEFAULT_ORIGINS})")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="print only the JSON summary")

    def handle(self, *args: Any, **o: Any) -> None:
        if o["horizon_months"] < 1:
            raise CommandError("--horizon-months must be at least 1")
        try:
            spec = spec_from_names(metric=o["metric"], cluster=o["cluster"], department=o["department"],
                                   exclude_department=o["exclude_department"])
            print(f"fitting {spec.label} ...", file=sys.stderr)
            fit = forecast_fit_create(
                spec, horizon_months=o["horizon_months"], through=_month(o["through"]) if o["through"] else None,
                family=o["family"], log=o["log"], backtest_origins=o["backtest"], seed=o["seed"],
            )
        except SeriesError as exc:
            raise CommandError(str(exc)) from exc
        summary = fit.summary()
        if not o["json"]:
            e = fit.errors
            self.stdout.write(f"{fit.series_label}: {fit.family} ({fit.reason})")
            self.stdout.write(f"  backtest MASE {e['mase']}, sMAPE {e['smape']}, 80% coverage {e['coverage80']}")
            for y in fit.yearly:
                part = "" if y.get("complete", True) else (
                    f"  (part year: {y['periods_observed'] + y['periods_forecast']} of 12 months)")
                self.stdout.write(f"  {y['year']}: median {y['median']:,.0f}  p10 {y['p10']:,.0f}  "
                                  f"p90 {y['p90']:,.0f}  {fit.yearly_units}{part}")
            partial = (fit.result or {}).get("partial_period")
            if partial:
                self.stdout.write(f"  {partial['month'][:7]} left out: the logs end {partial['logs_end'][:10]} "
                                  "inside it")
            for caveat in (fit.logs_caveat, fit.storage_caveat, fit.accuracy_caveat, fit.interval_caveat):
                if caveat:
                    self.stdout.write(f"  note: {caveat}")
        self.stdout.write(json.dumps(summary))
