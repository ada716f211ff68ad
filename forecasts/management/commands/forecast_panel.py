"""python manage.py forecast_panel PATH --frequency A|Q|M|S --horizon H --out FILE [--json] [--holdout H]"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from forecasts.demand.engine import ALL_MEMBERS
from forecasts.demand.engine.panel import DEFAULT_WEIGHTS, GLOBAL_ANCHORS, LEARNERS, PANEL_MEMBERS, Progress
from forecasts.demand.panels import PanelError, panel_run


class Command(BaseCommand):
    help = ("Forecast every series of a long CSV (series_id,timestamp,value; gzip allowed; timestamps 1989, "
            "1990-Q3, 1990-07 or ISO dates) in parallel over the cores and write FILE with "
            "series_id,timestamp,median,p10,p90,p2_5,p97_5 per future step in the input's timestamp style. "
            "--holdout H scores against each series' last H points instead (sMAPE, MASE, 80%/95% coverage, "
            "per member and combined).")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--frequency", required=True, choices=["A", "Q", "M", "S"])
        parser.add_argument("--horizon", type=int, required=True, help="future periods")
        parser.add_argument("--out", type=Path, required=True, help="CSV to write")
        parser.add_argument("--holdout", type=int, default=0, metavar="H",
                            help="score against each series' last H points (H replaces --horizon)")
        parser.add_argument("--jobs", type=int, default=None, help="processes (default: every core)")
        parser.add_argument("--pin", default=None, choices=ALL_MEMBERS, help="one member instead of the combination")
        parser.add_argument("--members", default=",".join(PANEL_MEMBERS),
                            help=f"comma-separated members (default {','.join(PANEL_MEMBERS)}; add arima for its "
                                 "scores: it is not in the default combination and doubles the time)")
        parser.add_argument("--global-weight", type=float, default=None, metavar="W",
                            help="share of the panel's pooled global model in each combination (default "
                                 f"{DEFAULT_WEIGHTS['lightgbm']} with the trees, {DEFAULT_WEIGHTS['linear']} "
                                 "with the linear model, for yearly and quarterly panels; other frequencies 0; "
                                 "0: local members only)")
        parser.add_argument("--global-learner", choices=LEARNERS, default=LEARNERS[0],
                            help="the pooled model: gradient-boosted trees (default) or a robust linear autoregression")
        parser.add_argument("--global-anchor", choices=GLOBAL_ANCHORS, default="auto",
                            help="the trees' targets: log changes from the window's level, its last value, or auto "
                                 "(default: the last value for yearly panels, the level for seasonal ones)")
        parser.add_argument("--json", action="store_true", help="print only the JSON summary")

    def handle(self, *args: Any, **o: Any) -> None:
        if o["horizon"] < 1:
            raise CommandError("--horizon must be at least 1")
        if o["holdout"] < 0:
            raise CommandError("--holdout must be at least 0")
        members = tuple(m.strip() for m in o["members"].split(",") if m.strip())
        unknown = [m for m in members if m not in ALL_MEMBERS]
        if unknown:
            raise CommandError(f"--members: unknown member {unknown[0]!r}; choose from {', '.join(ALL_MEMBERS)}")
        try:
            run = panel_run(o["path"], frequency=o["frequency"], horizon=o["horizon"], holdout=o["holdout"],
                            jobs=o["jobs"], pin=o["pin"], members=members, global_weight=o["global_weight"],
                            global_learner=o["global_learner"], global_anchor=o["global_anchor"],
                            progress=Progress(sys.stderr))
        except PanelError as exc:
            raise CommandError(str(exc)) from exc
        try:
            o["out"].write_text(run.csv(), encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{o['out']}: cannot write: {exc.strerror}") from exc
        s = run.summary
        s["out"] = str(o["out"])
        print(f"{s['forecast']} of {s['series']} series in {s['seconds']:.1f} s on {s['jobs']} processes "
              f"-> {o['out']}", file=sys.stderr)
        if not o["json"]:
            for method, sc in s.get("scores", {}).items():
                self.stdout.write(f"  {method:11s} sMAPE {sc['smape']:6.2f}  MASE {sc['mase']:.3f}  "
                                  f"80% {sc.get('coverage80', math.nan):.3f}  95% {sc.get('coverage95', math.nan):.3f}")
            if s.get("global_note"):
                self.stdout.write(f"  note: {s['global_note']}")
            for sid, err in list(s["failed"].items())[:10]:
                self.stdout.write(f"  {sid}: {err}")
        self.stdout.write(json.dumps(s))
