"""Rolling-origin backtest at the requested horizon, and its scale-free scores.

Origins: the last ``max_origins`` periods o with at least ``min_train = max(MIN_TRAIN, ceil(n/4))``
periods before them.  From each origin every member is refitted on periods [0, o) and forecasts
``min(h_b, n - o)`` steps, where the backtest horizon ``h_b = min(h, n - min_train)`` is the
requested horizon capped by the series' length.  So the last origins forecast one or a few
steps (the most recent behaviour is scored) and the earlier ones the whole backtest horizon.

Scores, per member over every (origin, step) forecast:

- ``mase``: |error| on the working scale (log or original, the scale the member was fitted on)
  divided by that origin's in-sample MAE of the naive forecast on the same scale (seasonal naive
  for seasonal series), averaged;
- ``smape``: mean of 200 |y - f| / (|y| + |f|) on the original scale, in percent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .members import Member
from .scale import FloatArray, Scale

MIN_TRAIN = 5
MAX_ORIGINS = 12  # 16 before the scale ensemble; on the M3 validation sets 12 scored the same (docs)
MIN_CELL_SHARE = 0.8  # a member scored on fewer than 80% of the backtest forecasts ranks last


@dataclass(frozen=True)
class Plan:
    origins: tuple[int, ...]
    horizon: int
    min_train: int


def plan_origins(n: int, h: int, max_origins: int = MAX_ORIGINS) -> Plan:
    min_train = max(MIN_TRAIN, math.ceil(n / 4))
    hb = max(0, min(h, n - min_train))
    if hb == 0 or max_origins <= 0:
        return Plan((), 0, min_train)
    first = max(min_train, n - max_origins)
    return Plan(tuple(range(first, n)), hb, min_train)


def naive_mae(z: FloatArray, m: int) -> float:
    """In-sample MAE of the lag-m naive forecast (lag 1 when the history is under 2m + 1)."""
    lag = m if m > 1 and z.size > 2 * m else 1
    if z.size <= lag:
        return math.nan
    d = np.abs(z[lag:] - z[:-lag])
    scale = float(np.mean(d))
    if scale <= 0:
        scale = max(1e-9 * float(np.mean(np.abs(z))), 1e-12)
    return scale


@dataclass
class Backtest:
    """Working-scale forecasts of each member at each origin (NaN past the series' end or where
    the member could not fit), the actuals and the naive scale of each origin."""

    plan: Plan
    actual: FloatArray  # (W, h_b) working scale
    naive: FloatArray  # (W,)
    forecasts: dict[str, FloatArray]  # name -> (W, h_b)

    @property
    def cells(self) -> int:
        return int(np.isfinite(self.actual).sum())


def run_backtest(z: FloatArray, members: list[Member], scale: Scale, h: int, season_length: int,
                 max_origins: int = MAX_ORIGINS) -> Backtest:
    n = z.size
    plan = plan_origins(n, h, max_origins)
    W, hb = len(plan.origins), plan.horizon
    actual = np.full((W, hb), np.nan)
    naive = np.full(W, np.nan)
    fcs = {m.name: np.full((W, hb), np.nan) for m in members}
    bt_members = [m.for_backtest() for m in members]
    for i, o in enumerate(plan.origins):
        steps = min(hb, n - o)
        actual[i, :steps] = z[o : o + steps]
        naive[i] = naive_mae(z[:o], season_length)
        for m in bt_members:
            fcs[m.name][i, :steps] = m.forecast(z[:o], steps, scale)
    return Backtest(plan, actual, naive, fcs)


@dataclass(frozen=True)
class Scores:
    mase: float
    smape: float
    cells: int  # backtest forecasts scored
    share: float  # of all backtest forecasts


def score(bt: Backtest, fc: FloatArray, scale: Scale) -> Scores:
    """MASE (working scale) and sMAPE (original scale) of working-scale forecasts ``fc``."""
    ok = np.isfinite(bt.actual) & np.isfinite(fc)
    total = bt.cells
    if not ok.any():
        return Scores(math.nan, math.nan, 0, 0.0)
    err = np.abs(bt.actual - fc)
    scaled = (err / bt.naive[:, None])[ok]
    y, f = scale.back(bt.actual[ok]), scale.back(fc[ok])
    denom = np.abs(y) + np.abs(f)
    sm = np.where(denom > 0, 200 * np.abs(y - f) / np.where(denom > 0, denom, 1.0), 0.0)
    return Scores(float(np.mean(scaled)), float(np.mean(sm)), int(ok.sum()), float(ok.sum() / max(total, 1)))


def rank_key(s: Scores) -> tuple[int, float]:
    usable = s.share >= MIN_CELL_SHARE and math.isfinite(s.mase)
    return (0 if usable else 1, s.mase if usable else math.inf)


@dataclass(frozen=True)
class SignTest:
    """One-step backtest forecasts of a member against the best one's: at how many origins it was
    worse, and better (ties left out), and the one-sided sign test's p-value of "worse"."""

    worse: int
    better: int
    p: float


def one_step_sign_test(bt: Backtest, member: str, best: str) -> SignTest:
    """Is ``member`` worse than ``best`` one step ahead more often than chance would make it?  Each
    origin gives one pair of one-step errors (distinct target periods, unlike the overlapping longer
    steps); the p-value is the binomial tail P(X >= worse) for X ~ Binomial(worse + better, 1/2)."""
    if bt.actual.ndim != 2 or bt.actual.shape[1] == 0:
        return SignTest(0, 0, 1.0)
    a = bt.actual[:, 0]
    d = np.abs(a - bt.forecasts[member][:, 0]) - np.abs(a - bt.forecasts[best][:, 0])
    d = d[np.isfinite(d)]
    worse, better = int((d > 1e-12).sum()), int((d < -1e-12).sum())
    n = worse + better
    p = sum(math.comb(n, i) for i in range(worse, n + 1)) / 2.0**n if n else 1.0
    return SignTest(worse, better, float(p))
