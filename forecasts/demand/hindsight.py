"""'What we would have predicted a year ago, and what happened': a stored fit's method re-run on its history
without the last year, against what came."""

from __future__ import annotations

from typing import Any

import numpy as np

from forecasts.demand.models import ForecastFit
from forecasts.demand.series import FAMILY_CHOICES, SeriesError, run_forecast


def year_ago_backtest(fit: ForecastFit, months: int | None = None) -> dict[str, Any] | None:
    """'What we would have predicted a year ago, and what happened': the same method (the
    combination, or the pinned model) on the history without its last 12 periods (4 quarters,
    2 halves, 3 years), forecast over them with its calibrated intervals."""
    per_year = {"M": 12, "Q": 4, "S": 2, "A": 3}.get(fit.frequency, 12)
    hold = months or per_year
    values = [np.nan if v is None else float(v) for v in fit.values]
    if sum(np.isfinite(values[:-hold])) < 6:
        return None
    pin = fit.family if fit.family in FAMILY_CHOICES else None
    try:
        fc, _ = run_forecast(values[:-hold], start=fit.start, frequency=fit.frequency, horizon=hold,
                             aggregate=fit.result.get("aggregate", "sum"), family=pin, log=fit.result.get("log"),
                             seed=fit.options.get("seed", 0))
    except SeriesError:
        return None
    actual = values[-hold:]
    steps = fc["steps"]
    # a float's last digit is no miss: an exact forecast of a flat year came out 400,000.00000000006 and counted out
    inside = [s["p10"] - 1e-9 * abs(a) <= a <= s["p90"] + 1e-9 * abs(a)
              for s, a in zip(steps, actual, strict=True) if np.isfinite(a)]
    return {
        "origin": fc["history_dates"][-1],
        "dates": [s["date"] for s in steps],
        "median": [s["median"] for s in steps],
        "p10": [s["p10"] for s in steps],
        "p90": [s["p90"] for s in steps],
        "p2_5": [s["p2_5"] for s in steps],
        "p97_5": [s["p97_5"] for s in steps],
        "actual": [None if not np.isfinite(a) else a for a in actual],
        "coverage80": (sum(inside) / len(inside)) if inside else None,
    }
