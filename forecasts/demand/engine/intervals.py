"""Conformal prediction intervals from backtest errors, and sample paths that keep them.

Intervals (working scale, symmetric about the point forecast), for each level p (0.80, 0.95):

1. Take the absolute working-scale errors |e_{o,j}| of the forecast being calibrated at every
   backtest origin o and step j.
2. At each step j with at least ``MIN_ERRORS`` errors, the half-width is their p-quantile taken
   at rank p (N + 1) (the Hyndman-Fan type 6 quantile: for exchangeable errors a new error falls
   inside with probability p).  When N is too small for that rank ((N + 1) p > N, e.g. 95% from
   fewer than 19 errors), the step's largest computable level is scaled as for Laplace errors,
   whose absolute values are exponential: w_p = w_base ln(1 - p) / ln(1 - base), e.g. x1.861 from
   80% to 95% (forecast errors have heavier tails than the normal's x1.53; on the M3 training
   parts the normal ratio gave 95% intervals holding 87% of the held-back points, this one 91%).
3. Steps with fewer errors, and steps past the backtest horizon, continue the last calibrated
   step as a random walk with an estimated drift grows: w_j = w_last * sqrt(g(j) / g(j_last)),
   g(j) = j (1 + j / T) for T values fitted (FPP3 5.5; before 2026-11-28 g(j) = j, which left the
   far steps of short histories too narrow: docs/forecasting.md).
4. Half-widths never shrink with the step (running maximum).

Sample paths: a Gaussian copula whose correlation between steps i < j is sqrt(i / j) (a random
walk, so a path that is high early stays high), mapped through each step's calibrated
distribution: |z| -> half-width piecewise linearly through (0, 0), (z_80, w_80), (z_95, w_95) and
beyond with the last slope.  The paths' p10/p90 and p2.5/p97.5 at each step are therefore the
calibrated intervals, and any sum or maximum over steps is taken path by path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from .scale import FloatArray

LEVELS = (0.80, 0.95)
MIN_ERRORS = 4


def growth(j: FloatArray, fitted: int | None) -> FloatArray:
    """How a forecast error's spread grows with the step j, squared: j (1 + j / T) for T values fitted (the
    random walk with drift's h (1 + h / T): the drift is estimated from T values, so its error adds one that
    grows with j; Hyndman & Athanasopoulos, FPP3 5.5); j when T is not given (a random walk)."""
    if fitted is None or fitted <= 0:
        return j
    return j * (1 + j / fitted)


@dataclass(frozen=True)
class Calibration:
    steps_calibrated: int  # steps with their own quantile; later steps grow as sqrt(growth(j))
    n_scores: int
    widths: dict[float, FloatArray]  # level -> half-width per calibrated step (may be empty)
    fitted: int | None = None  # T, the values the forecast is fitted on (growth)

    def half_widths(self, h: int) -> dict[float, FloatArray]:
        out: dict[float, FloatArray] = {}
        for lv, w in self.widths.items():
            if w.size == 0:
                out[lv] = np.full(h, math.nan)
                continue
            j = np.arange(1, max(h, w.size) + 1, dtype=float)
            g = growth(j, self.fitted)
            beyond = w[-1] * np.sqrt(g[w.size:] / g[w.size - 1])  # past the last calibrated step
            out[lv] = np.maximum.accumulate(np.concatenate([w, beyond]))[:h]
        return out


def _weibull_quantile(ordered: list[float], p: float) -> float:
    """``np.quantile(x, p, method="weibull")`` of the sorted values ``ordered``, the same float
    operations in the same order (so bit for bit the same), without numpy's per-call overhead:
    a panel calibrates every member at every step, about a hundred small quantiles a series."""
    n = len(ordered)
    v = n * p + p - 1  # numpy's virtual index for alpha = beta = 0
    if v >= n - 1:
        return ordered[-1]
    if v < 0:
        return ordered[0]
    lo = math.floor(v)
    t = v - lo
    a, b = ordered[lo], ordered[lo + 1]
    d = b - a
    return b - d * (1 - t) if t >= 0.5 else a + d * t


def _step_quantiles(errors: FloatArray, levels: tuple[float, ...]) -> dict[float, float]:
    n = errors.size
    reachable = [lv for lv in levels if (n + 1) * lv <= n]
    ordered = sorted(errors.tolist()) if reachable else []
    q: dict[float, float] = {lv: _weibull_quantile(ordered, lv) for lv in reachable}
    if len(q) < len(levels):
        base_lv = max(q) if q else n / (n + 1)
        base_q = q[base_lv] if q else float(np.max(errors))
        for lv in levels:
            if lv not in q:
                q[lv] = base_q * math.log(1 - lv) / math.log(1 - base_lv)
    return q


def calibrate(abs_err: FloatArray, levels: tuple[float, ...] = LEVELS, fitted: int | None = None) -> Calibration:
    """Calibration from a (origins x steps) array of absolute errors (NaN = no forecast); ``fitted``: the
    number of values the forecast is fitted on, for how widths grow past the calibrated steps."""
    if abs_err.ndim != 2:
        raise ValueError("abs_err must be origins x steps")
    fin = np.isfinite(abs_err)
    counts = fin.sum(axis=0)
    last = 0
    while last < counts.size and counts[last] >= MIN_ERRORS:
        last += 1
    if last == 0 and fin.any():
        # too few errors at every step: pool all steps, scaled back to step 1 by sqrt(j)
        steps = np.arange(1, abs_err.shape[1] + 1, dtype=float)
        g = growth(steps, fitted)
        q = _step_quantiles((abs_err / np.sqrt(g / g[0]))[fin], levels)
        return Calibration(1, int(fin.sum()), {lv: np.array([q[lv]]) for lv in levels}, fitted)
    widths = {lv: np.empty(last) for lv in levels}
    for j in range(last):
        q = _step_quantiles(abs_err[fin[:, j], j], levels)
        for lv in levels:
            widths[lv][j] = q[lv]
    return Calibration(last, int(fin.sum()), widths, fitted)


def sample_paths(center: FloatArray, half: dict[float, FloatArray], n_paths: int,
                 rng: np.random.Generator) -> FloatArray:
    """(n_paths x h) working-scale paths whose step quantiles are the calibrated intervals."""
    h = center.size
    levels = sorted(half)
    zk = np.array([0.0, *[norm.ppf(0.5 + lv / 2) for lv in levels]])
    wk = np.vstack([np.zeros(h), *[half[lv] for lv in levels]])  # (K+1, h)
    steps = rng.standard_normal((n_paths, h)).cumsum(axis=1) / np.sqrt(np.arange(1, h + 1))
    a = np.abs(steps)
    out = np.empty_like(steps)
    for j in range(h):
        w = np.interp(a[:, j], zk, wk[:, j])
        slope = (wk[-1, j] - wk[-2, j]) / (zk[-1] - zk[-2]) if zk.size > 1 else 0.0
        beyond = a[:, j] > zk[-1]
        w[beyond] = wk[-1, j] + (a[beyond, j] - zk[-1]) * max(slope, 0.0)
        out[:, j] = center[j] + np.sign(steps[:, j]) * w
    return out
