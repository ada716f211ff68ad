"""The engine's forecast in the stored-fit shape every consumer reads (``ForecastFit.result``).

Pages, commands, the API, the dashboard, the combined projection, designs and the grant report
read ``family``, ``fits``, ``steps`` (per-step ``median``, ``p10``, ``p90``, ``p2_5``,
``p97_5``), ``yearly`` and ``history_dates``; those keys keep their meaning.  ``family`` is
``"combined"`` (or the pinned member), ``fits`` lists the combination first and then every member
with its backtest errors and ``weight``; new keys: ``engine`` (method, members, calibration) and
``paths_summary``.  Yearly figures are taken path by path over the calibrated sample paths; a
year with fewer periods than a whole year (observed + forecast) has ``complete`` false and
``partial`` true.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np

from forecasts.demand.growth.calendar import PERIODS_PER_YEAR, period_dates

from .core import growth_rate_projection
from .results import EngineForecast, clean

COMBINED = "combined"


def _yearly(hist_dates: list[date], hist: np.ndarray, fut_dates: list[date], paths: np.ndarray,
            aggregate: str, frequency: str, steps: list[dict[str, Any]] | None = None,
            observed: np.ndarray | None = None) -> list[dict[str, Any]]:
    """Per calendar year: the quantiles of the year's aggregate over the sample paths (observed periods held).

    A year whose figure is one forecast period's value (a yearly series; a stock's year-end period) takes that
    period's own quantiles from ``steps``, so the year and the period never disagree by the paths' sampling.
    ``observed``: the history before gaps were filled; a filled period counts as filled, not observed."""
    full = int(PERIODS_PER_YEAR[frequency])
    hy = np.array([d.year for d in hist_dates])
    fy = np.array([d.year for d in fut_dates])
    seen = np.isfinite(hist) if observed is None else np.isfinite(observed)
    out = []
    for year in sorted(set(hy.tolist()) | set(fy.tolist())):
        hv = hist[hy == year]
        cols = np.flatnonzero(fy == year)
        block = np.concatenate([np.broadcast_to(hv, (paths.shape[0], hv.size)), paths[:, cols]], axis=1)
        if aggregate == "sum":
            per_path = block.sum(axis=1)
        elif aggregate == "last":
            per_path = block[:, -1]
        else:
            per_path = block.mean(axis=1)
        if steps is not None and cols.size and (aggregate == "last" or (hv.size == 0 and cols.size == 1)):
            step = steps[int(cols[-1])]
            q10, q50, q90 = step["p10"], step["median"], step["p90"]
        else:
            q10, q50, q90 = np.quantile(per_path, [0.1, 0.5, 0.9])
        complete = hv.size + cols.size >= full
        n_seen = int(seen[hy == year].sum())
        out.append({"year": int(year), "median": float(q50), "p10": float(q10), "p90": float(q90),
                    "mean": float(per_path.mean()), "periods_observed": n_seen,
                    "periods_filled": int(hv.size) - n_seen,
                    "periods_forecast": int(cols.size), "complete": bool(complete), "partial": not complete})
    return out


def _fill(history: np.ndarray) -> np.ndarray:
    ok = np.isfinite(history)
    if ok.all() or not ok.any():
        return np.nan_to_num(history)
    idx = np.arange(history.size)
    out = history.copy()
    out[~ok] = np.interp(idx[~ok], idx[ok], history[ok])
    return out


def legacy_result(fc: EngineForecast, *, history: list[float], start: date, frequency: str, aggregate: str,
                  seed: int) -> dict[str, Any]:
    """``fc`` (made with ``n_paths`` > 0) as the stored-fit result dict."""
    if fc.paths is None:
        raise ValueError("legacy_result needs a forecast made with sample paths")
    hist = np.asarray(history, dtype=float)
    hist_dates = period_dates(start, hist.size, frequency)
    fut_dates = period_dates(start, fc.horizon, frequency, offset=hist.size)
    paths = np.asarray(fc.paths, dtype=float)
    pad: list[float | None] = [None] * hist.size
    family = fc.pinned or COMBINED
    fits: list[dict[str, Any]] = []
    if fc.pinned is None:
        fits.append({
            "family": COMBINED, "params": {f"weight_{m.name}": m.weight for m in fc.members if m.weight > 0},
            "n_params": 0, "n_obs": fc.n_obs, "aicc": None, "sigma": None,
            "log": fc.log, "converged": True, "message": fc.method, "fitted": pad,
            "mase": fc.backtest_mase, "smape": fc.backtest_smape, "coverage80": fc.backtest_coverage80,
            "backtest_origins": fc.backtest_origins, "point_forecast": fc.column("median"),
            "weight": 1.0, "rank": 0, "members": list(fc.selected),
        })
    for m in fc.members:
        fits.append({
            "family": m.name, "params": {"weight": m.weight}, "n_params": 0, "n_obs": fc.n_obs, "aicc": None,
            "sigma": None, "log": fc.log if m.log is None else m.log, "converged": bool(m.median),
            "message": m.note, "fitted": pad,
            "mase": m.mase, "smape": m.smape, "coverage80": m.coverage80, "backtest_origins": fc.backtest_origins,
            "point_forecast": m.median, "weight": m.weight, "rank": m.rank,
            "p10": m.p10, "p90": m.p90, "p2_5": m.p2_5, "p97_5": m.p97_5,
        })
    steps = [{"date": d.isoformat(), "index": hist.size + i, "mean": float(paths[:, i].mean()),
              "median": s.median, "p2_5": s.p2_5, "p10": s.p10, "p90": s.p90, "p97_5": s.p97_5}
             for i, (d, s) in enumerate(zip(fut_dates, fc.steps, strict=True))]
    engine = fc.to_dict()
    engine.pop("paths", None)
    return clean({  # type: ignore[no-any-return]
        "family": family,
        "selection": "override" if fc.pinned else "combination",
        "reason": f"{fc.method}; intervals calibrated on {fc.interval_scores} backtest errors (conformal)",
        "log": fc.log, "log_reason": fc.log_reason, "frequency": frequency, "start": start.isoformat(),
        "horizon": fc.horizon, "n_boot": int(paths.shape[0]), "seed": seed, "aggregate": aggregate,
        "backtest_horizon": fc.backtest_horizon, "backtest_origins": fc.backtest_origins,
        "seasonal_period": fc.season_length, "history_dates": [d.isoformat() for d in hist_dates],
        "history": hist.tolist(), "fits": fits, "steps": steps,
        "yearly": _yearly(hist_dates, _fill(hist), fut_dates, paths, aggregate, frequency, steps, observed=hist),
        "skipped": {}, "paths": None, "engine": engine,
    })


def growth_rate_result(values: list[float], *, start: date, frequency: str, horizon: int, aggregate: str,
                       growth_pct_per_year: float, seed: int = 0) -> dict[str, Any]:
    """A projection at an entered growth rate, in the stored-fit shape (no intervals: the rate is
    the planner's, not estimated, so p10 = median = p90)."""
    finite = [v for v in values if np.isfinite(v)]
    if not finite:
        raise ValueError("no values to project from")
    per_year = int(PERIODS_PER_YEAR.get(frequency, 12))
    proj = growth_rate_projection(finite[-1], growth_pct_per_year, horizon, per_year)
    hist_dates = period_dates(start, len(values), frequency)
    fut = period_dates(start, horizon, frequency, offset=len(values))
    reason = f"entered growth rate {growth_pct_per_year:g}% per year from the last value (history too short)"
    fit = {"family": "growth_rate", "params": {"growth_pct_per_year": growth_pct_per_year}, "n_params": 0,
           "n_obs": len(finite), "aicc": None, "sigma": None, "log": False, "converged": True, "message": reason,
           "fitted": [None] * len(values), "mase": None, "smape": None, "coverage80": None, "backtest_origins": 0,
           "point_forecast": proj, "weight": 1.0, "rank": 1}
    years: dict[int, list[float]] = {}
    for d, v in zip(hist_dates + fut, [*values, *proj], strict=True):
        years.setdefault(d.year, []).append(0.0 if not np.isfinite(v) else float(v))
    fut_years = [d.year for d in fut]
    yearly = []
    for y, vs in sorted(years.items()):
        agg = sum(vs) if aggregate == "sum" else vs[-1] if aggregate == "last" else sum(vs) / len(vs)
        nf = fut_years.count(y)
        yearly.append({"year": y, "median": agg, "p10": agg, "p90": agg, "mean": agg, "periods_observed": len(vs) - nf,
                       "periods_forecast": nf, "complete": len(vs) >= per_year, "partial": len(vs) < per_year})
    return {"family": "growth_rate", "selection": "override", "reason": reason, "log": False,
            "log_reason": "not modelled: entered growth rate", "frequency": frequency, "start": start.isoformat(),
            "horizon": horizon, "n_boot": 0, "seed": seed, "aggregate": aggregate, "backtest_horizon": 0,
            "backtest_origins": 0, "seasonal_period": 1, "history_dates": [d.isoformat() for d in hist_dates],
            "history": [v if np.isfinite(v) else None for v in values], "fits": [fit],
            "steps": [{"date": d.isoformat(), "index": len(values) + i, "mean": v, "median": v, "p2_5": v, "p10": v,
                       "p90": v, "p97_5": v} for i, (d, v) in enumerate(zip(fut, proj, strict=True))],
            "yearly": yearly, "skipped": {}, "paths": None}
