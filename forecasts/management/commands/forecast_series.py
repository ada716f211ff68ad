"""python manage.py forecast_series PATH --frequency M|Q|S|A --horizon N [--log] [--backtest K] --json"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from forecasts.demand.external import (
    ExternalSeriesError,
    describe_gaps,
    external_series_create,
    forecast_rows,
    parse_csv,
)
from forecasts.demand.growth import series_from_points
from forecasts.demand.series import DEFAULT_ORIGINS, FAMILY_CHOICES, SeriesError, external_fit_create, run_forecast


class Command(BaseCommand):
    help = ("Forecast any series from a CSV (date or period, value) with the combined engine forecast: per "
            "future step the median and calibrated 80%/95% bounds in the series' units, each member with its "
            "rolling-origin backtest MASE, sMAPE and weight (--backtest K origins at the asked horizon). "
            "--family pins one model; --save NAME also stores the series and the fit.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--frequency", required=True, choices=["M", "Q", "S", "A"])
        parser.add_argument("--horizon", type=int, required=True, help="future periods")
        parser.add_argument("--log", action="store_true", default=None, help="force the log transform")
        parser.add_argument("--no-log", dest="log", action="store_false", help="forbid the log transform")
        parser.add_argument("--backtest", type=int, default=DEFAULT_ORIGINS, metavar="K",
                            help=f"rolling-origin backtest over the last K origins (default {DEFAULT_ORIGINS})")
        parser.add_argument("--family", default=None, choices=FAMILY_CHOICES,
                            help="pin one model (an engine member or a growth curve) instead of the combination")
        parser.add_argument("--growth-rate", type=float, default=None, metavar="PCT",
                            help="for a history too short to forecast: project at PCT %% per year instead")
        parser.add_argument("--aggregate", default="mean", choices=["sum", "mean", "last"],
                            help="how periods make a calendar year (default mean: prices, rates)")
        parser.add_argument("--units", default="", help="the series' units, e.g. USD/TB")
        parser.add_argument("--save", default=None, metavar="NAME", help="store the series and the fit")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="print only the JSON summary")

    def handle(self, *args: Any, **o: Any) -> None:
        path: Path = o["path"]
        if o["horizon"] < 1:
            raise CommandError("--horizon must be at least 1")
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{path}: cannot read: {exc.strerror}") from exc
        try:
            gaps: list[int] = []
            points = parse_csv(text, o["frequency"], name=str(path), gaps=gaps)
            if o["save"]:
                series = external_series_create(
                    name=o["save"], units=o["units"] or "units", frequency=o["frequency"], text=text,
                    aggregate=o["aggregate"], source_name=path.name, replace=True,
                )
                fit = external_fit_create(series, horizon=o["horizon"], family=o["family"], log=o["log"],
                                          backtest_origins=o["backtest"], seed=o["seed"])
                result, seconds, fit_id = fit.result, fit.seconds, fit.pk
            else:
                start, values = series_from_points([d for d, _ in points], [v for _, v in points], o["frequency"])
                result, seconds = run_forecast(
                    list(values), start=start, frequency=o["frequency"], horizon=o["horizon"],
                    aggregate=o["aggregate"], family=o["family"], log=o["log"], backtest_origins=o["backtest"],
                    seed=o["seed"], growth_rate=o["growth_rate"],
                )
                fit_id = None
        except (ExternalSeriesError, SeriesError) as exc:
            raise CommandError(str(exc)) from exc
        chosen = next(f for f in result["fits"] if f["family"] == result["family"])
        summary = {
            "file": str(path),
            "units": o["units"] or None,
            "frequency": o["frequency"],
            "points": len(points),
            "gap_lines": gaps,
            "history_from": result["history_dates"][0],
            "history_through": result["history_dates"][-1],
            "family": result["family"],
            "selection": result["selection"],
            "reason": result["reason"],
            "log": result["log"],
            "log_reason": result["log_reason"],
            "parameters": chosen["params"],
            "aicc": chosen["aicc"],
            "backtest": {
                "origins_requested": o["backtest"],
                "origins": chosen["backtest_origins"],
                "horizon": result["backtest_horizon"],
                "mase": chosen["mase"],
                "smape": chosen["smape"],
                "coverage80": chosen["coverage80"],
            },
            "families": [
                {k: f.get(k) for k in ("family", "aicc", "mase", "smape", "coverage80", "n_params", "weight", "rank")}
                for f in result["fits"]
            ],
            "method": (result.get("engine") or {}).get("method", result["reason"]),
            "members": [
                {k: f.get(k) for k in ("family", "mase", "smape", "weight", "rank", "message")}
                for f in result["fits"] if f["family"] != "combined"
            ],
            "intervals": "conformal: calibrated on the backtest errors of the forecast itself, per step"
            if result.get("engine") else "entered growth rate: no interval",
            "forecast": forecast_rows(result),
            "fit": fit_id,
            "seconds": round(seconds, 3),
        }
        holes = f", {describe_gaps(gaps)} kept as gaps" if gaps else ""
        self.stderr.write(f"{path.name}: {len(points)} points{holes}, chose {result['family']} in {seconds:.2f} s")
        if not o["json"]:
            for r in summary["forecast"]:
                self.stdout.write(f"  {r['period']}: {r['median']:.6g}  80% [{r['p10']:.6g}, {r['p90']:.6g}]  "
                                  f"95% [{r['p2_5']:.6g}, {r['p97_5']:.6g}]")
        self.stdout.write(json.dumps(summary))

