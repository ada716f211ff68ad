"""Rolling-origin backtest and accuracy measures (pure numpy).

From each of K past origins o (the last K that leave a full horizon h after them and at least
``min_train`` periods before), the family is refitted on periods < o and forecast h steps;
errors are measured in the series' own units (after undoing the log transform):

- MASE: absolute error divided by the in-sample MAE of the naive (lag ``m``, seasonal when
  m > 1) forecast on that origin's training data, averaged over all forecast points;
- sMAPE: mean of 200 |y - f| / (|y| + |f|), in percent;
- coverage80: share of actuals inside the simulated 80% interval (p10-p90).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .families import FloatArray

BACKTEST_HORIZON = 12


@dataclass(frozen=True)
class BacktestPlan:
    """Which origins and horizon a series of length n supports."""

    horizon: int
    origins: tuple[int, ...]  # period indices: training uses periods [0, origin)


def plan_backtest(values: FloatArray, max_origins: int, max_horizon: int = BACKTEST_HORIZON) -> BacktestPlan:
    """Choose h = min(max_horizon, (n - min_train) // 2) with min_train = max(6, n // 2) finite
    values, and the last ``max_origins`` origins that keep a full horizon after them."""
    n = values.size
    finite_before = np.concatenate([[0], np.cumsum(np.isfinite(values))])  # finite count in [0, i)
    min_train = max(6, math.ceil(np.isfinite(values).sum() / 2))
    first = int(np.searchsorted(finite_before, min_train))  # earliest origin with min_train points
    if max_origins <= 0 or first >= n:
        return BacktestPlan(0, ())
    h = min(max_horizon, max(1, (n - first) // 2))
    last = n - h
    origins = tuple(o for o in range(last, max(first, last - max_origins + 1) - 1, -1))[::-1]
    return BacktestPlan(h if origins else 0, origins)


def naive_scale(values: FloatArray, m: int = 1) -> float:
    """In-sample MAE of the lag-m naive forecast (pairs with a gap are skipped)."""
    if values.size <= m:
        return math.nan
    d = np.abs(values[m:] - values[:-m])
    d = d[np.isfinite(d)]
    if d.size == 0:
        return math.nan
    scale = float(d.mean())
    if scale <= 0:
        finite = values[np.isfinite(values)]
        scale = max(1e-9 * float(np.abs(finite).mean()) if finite.size else 0.0, 1e-12)
    return scale


@dataclass
class BacktestAccumulator:
    """Collects scaled errors, sMAPE terms and interval hits over origins."""

    scaled_errors: list[float]
    smape_terms: list[float]
    hits80: list[bool]
    origins_used: int = 0

    @classmethod
    def empty(cls) -> BacktestAccumulator:
        return cls([], [], [])

    def add(
        self, actual: FloatArray, point: FloatArray, p10: FloatArray, p90: FloatArray, scale: float
    ) -> None:
        ok = np.isfinite(actual) & np.isfinite(point)
        if not ok.any():
            return
        a, f = actual[ok], point[ok]
        self.origins_used += 1
        if math.isfinite(scale) and scale > 0:
            self.scaled_errors.extend((np.abs(a - f) / scale).tolist())
        denom = np.abs(a) + np.abs(f)
        terms = np.where(denom > 0, 200 * np.abs(a - f) / np.where(denom > 0, denom, 1), 0.0)
        self.smape_terms.extend(terms.tolist())
        self.hits80.extend(((a >= p10[ok]) & (a <= p90[ok])).tolist())

    @property
    def mase(self) -> float:
        return float(np.mean(self.scaled_errors)) if self.scaled_errors else math.nan

    @property
    def smape(self) -> float:
        return float(np.mean(self.smape_terms)) if self.smape_terms else math.nan

    @property
    def coverage80(self) -> float:
        return float(np.mean(self.hits80)) if self.hits80 else math.nan
