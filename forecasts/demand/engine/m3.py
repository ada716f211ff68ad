"""The M3 competition's published forecasts, scored the way the panel scores the engine.

    python -m forecasts.demand.engine.m3 [DIR] [--json]

DIR (default ../shared/data/series/m3 beside the project) holds ``M3_{yearly,quarterly}_TSTS``
(series with their test points), ``M3_yearly_FTS`` (every entrant's point forecasts) and
``M3_{yearly,quarterly}_PIs_FTS`` (ETS and ARIMA forecasts with 80%/90% intervals).  For each
method: sMAPE over all series and horizons (mean of 200 |y - f| / (|y| + |f|)), and for the
interval files the share of test points inside the 80% interval.  The test points are each
series' last 6 (yearly) or 8 (quarterly) values, as in the competition.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import math
from pathlib import Path
from typing import Any

DEFAULT_DIR = Path(__file__).resolve().parents[4] / "shared" / "data" / "series" / "m3"
HOLDOUT = {"yearly": 6, "quarterly": 8}


def _rows(path: Path) -> list[dict[str, str]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def score_file(tsts: Path, fts: Path, holdout: int) -> dict[str, dict[str, Any]]:
    """Per method: sMAPE and (when the file has lo80/hi80) 80% coverage on the test points."""
    series: dict[str, dict[str, float]] = {}
    for r in _rows(tsts):
        series.setdefault(r["series_id"], {})[r["timestamp"]] = float(r["value"])
    test: dict[tuple[str, str], float] = {}
    for sid, pts in series.items():
        for ts in sorted(pts, key=lambda t: (len(t), t))[-holdout:]:
            test[(sid, ts)] = pts[ts]
    acc: dict[str, dict[str, list[float]]] = {}
    for r in _rows(fts):
        key = (r["series_id"], str(r["timestamp"]))
        if key not in test:
            continue
        a, f = test[key], float(r["forecast"])
        d = abs(a) + abs(f)
        m = acc.setdefault(r["method_id"], {"smape": [], "in80": []})
        m["smape"].append(200 * abs(a - f) / d if d > 0 else 0.0)
        if r.get("lo80") not in (None, ""):
            m["in80"].append(float(float(r["lo80"]) <= a <= float(r["hi80"])))
    out = {}
    for method, m in acc.items():
        out[method] = {
            "smape": sum(m["smape"]) / len(m["smape"]),
            "points": len(m["smape"]),
            "coverage80": sum(m["in80"]) / len(m["in80"]) if m["in80"] else math.nan,
        }
    return out


def m3_reference(directory: Path = DEFAULT_DIR) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for freq, h in HOLDOUT.items():
        tsts = directory / f"M3_{freq}_TSTS.csv.gz"
        methods: dict[str, dict[str, Any]] = {}
        for name in (f"M3_{freq}_FTS.csv.gz", f"M3_{freq}_PIs_FTS.csv.gz"):
            if (directory / name).exists():
                for method, sc in score_file(tsts, directory / name, h).items():
                    methods.setdefault(method, {}).update({k: v for k, v in sc.items()
                                                          if not (k == "coverage80" and math.isnan(v))})
        out[freq] = methods
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m forecasts.demand.engine.m3", description=__doc__.split("\n\n")[0])
    p.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    if not (a.directory / "M3_yearly_TSTS.csv.gz").exists():
        print(f"error: {a.directory}: no M3_yearly_TSTS.csv.gz here")
        return 2
    ref = m3_reference(a.directory)
    if a.json:
        print(json.dumps(ref, indent=1))
        return 0
    for freq, methods in ref.items():
        print(f"{freq}:")
        for method, sc in sorted(methods.items(), key=lambda kv: kv[1]["smape"]):
            cov = f"  80% coverage {sc['coverage80']:.3f}" if "coverage80" in sc else ""
            print(f"  {method:14s} sMAPE {sc['smape']:6.2f}  ({sc['points']} points){cov}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
