"""A global (cross-learned) member for panels: one model learned on the windows of every series
of the panel — gradient-boosted trees (``gbm.py``, the default) or the robust linear
autoregression of this module (Montero-Manso & Hyndman 2021, "Principles and algorithms for
forecasting groups of time series: locality and globality").

Windows.  A positive series is taken on the log scale, x = ln y.  A window ending at period t
holds the last ``LAGS`` values x[t-L+1..t] (a series shorter than that is padded on the left with
its first value) and is normalised by its level: the mean m of its real (unpadded) values is
subtracted from the window and from the targets x[t+j], j = 1..H, so every series is on one
relative scale (log-ratios to its recent level).  A training window needs ``MIN_CONTEXT`` real
values.

Model.  Direct multi-horizon: for each step j, a robust ridge regression of the step-j target on
the L features plus an intercept, over every window of every series whose step-j target exists:
Huber weights (``HUBER`` times the residuals' MAD-scale, ``IRLS_ROUNDS`` reweightings) so that a
few erratic series do not steer the model, and a small penalty (``RIDGE`` times the mean feature
sum of squares, scale-free; the intercept is not penalised).  A series with a value <= 0 or a
gap contributes no windows and gets no pooled forecast (NaN).  L = 8, window-mean normalisation,
Huber weighting and 4 real values per window were chosen on the M3 validation sets
(docs/forecasting.md).

No leakage.  The rolling-origin backtest (``backtest.py``) forecasts series i from origin
o = n_i - c (c = 1, 2, ... periods before its end).  The model used there is the one trained
with the last c periods of *every* series cut off (``cutoff`` c): no period at or after the
origin of series i, nor the last c of any other series, is in its training windows.  Series of
one panel that end in the same period (usage series, a planner's upload of one calendar) are
thereby cut at the same date; M3's series are aligned by their ends, as the competition's
holdout is.  The whole-series forecast uses cutoff 0.  Training is a few least-squares solves
per cutoff and step, so every backtest origin gets its own model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .scale import FloatArray, Scale

NAME = "global"
LAGS = 8  # values per window (validation: 6, 8, 12 tried yearly; 8, 12 quarterly)
MIN_CONTEXT = 4  # real values in a training window
RIDGE = 1e-3  # penalty, relative to the mean sum of squares of a feature column
HUBER = 1.0  # residuals beyond HUBER x 1.4826 x their median |residual| are down-weighted
IRLS_ROUNDS = 5


@dataclass(frozen=True)
class Windows:
    """Every training window of a panel: features (rows x L), targets (rows x H, NaN past the
    series' end) and ``room``, the periods of its series after the window's last one."""

    lags: int
    feats: FloatArray
    targets: FloatArray
    room: np.ndarray
    levels: FloatArray  # each window's level (the mean of its real log values)
    anchors: FloatArray  # what the targets are relative to: the level, or the window's last value


ANCHORS = ("level", "last")  # the value a model's targets (log changes) are measured from


def _check_anchor(anchor: str) -> None:
    if anchor not in ANCHORS:
        raise ValueError(f"anchor must be one of {', '.join(ANCHORS)}")


def _anchor(anchor: str, level: FloatArray | float, last: FloatArray | float) -> FloatArray:
    """The window's ``level`` or its ``last`` log value, as ``anchor`` says."""
    _check_anchor(anchor)
    return np.asarray(last if anchor == "last" else level, dtype=float)


def _log_history(y: FloatArray) -> FloatArray | None:
    y = np.asarray(y, dtype=float)
    finite = np.flatnonzero(np.isfinite(y))
    if finite.size == 0:
        return None
    y = y[finite[0]:]
    if not np.all(np.isfinite(y)) or np.any(y <= 0):
        return None
    return np.log(y)


def _last_window(x: FloatArray, lags: int) -> tuple[FloatArray, float]:
    """``_features`` of the window ending at the last period only (forecasting needs no other)."""
    tail = x[-lags:]
    level = float(tail.mean())
    win = np.concatenate([np.full(lags - tail.size, x[0]), tail])
    return win - level, level


def _features(x: FloatArray, lags: int) -> tuple[FloatArray, FloatArray]:
    """Features (n x L) of the windows ending at each period of log history ``x``, and each
    window's level (the mean of its real values)."""
    xp = np.concatenate([np.full(lags - 1, x[0]), x])
    win = sliding_window_view(xp, lags)  # row k: x[k-L+1 .. k]
    k = np.arange(x.size)
    cs = np.concatenate([[0.0], np.cumsum(x)])
    level = (cs[k + 1] - cs[np.maximum(k + 1 - lags, 0)]) / np.minimum(k + 1, lags)
    return win - level[:, None], level


def _trainable(y: FloatArray) -> FloatArray | None:
    """The log history of ``y`` if it gives the pooled model windows (positive, gap-free, long enough)."""
    x = _log_history(y)
    return x if x is not None and x.size >= MIN_CONTEXT + 1 else None


def learnable(histories: Iterable[FloatArray]) -> int:
    """How many of ``histories`` give the pooled model windows (the ones ``build_windows`` learns from)."""
    return sum(1 for y in histories if _trainable(y) is not None)


def build_windows(histories: Iterable[FloatArray], lags: int, horizon: int, anchor: str = "level") -> Windows:
    """The windows of every positive, gap-free history (original units, leading NaNs dropped);
    targets are log changes from each window's ``anchor`` (``ANCHORS``)."""
    if lags < 1 or horizon < 1:
        raise ValueError("lags and horizon must be at least 1")
    _check_anchor(anchor)
    feats, targets, room, levels, anchors = [], [], [], [], []
    for y in histories:
        x = _trainable(y)
        if x is None:
            continue
        n = x.size
        k = np.arange(MIN_CONTEXT - 1, n - 1)  # window ends with a target at least one step on
        f, level = _features(x, lags)
        xt = np.concatenate([x, np.full(horizon, np.nan)])
        idx = k[:, None] + np.arange(1, horizon + 1)[None, :]
        base = _anchor(anchor, level[k], x[k])
        feats.append(f[k])
        targets.append(xt[idx] - base[:, None])
        room.append(n - 1 - k)
        levels.append(level[k])
        anchors.append(base)
    if not feats:
        empty = np.empty(0)
        return Windows(lags, np.empty((0, lags)), np.empty((0, horizon)), np.empty(0, dtype=int), empty, empty)
    return Windows(lags, np.vstack(feats), np.vstack(targets), np.concatenate(room), np.concatenate(levels),
                   np.concatenate(anchors))


def _ridge(At: FloatArray, t: FloatArray, w: FloatArray | None = None) -> FloatArray:
    """Weighted ridge coefficients; ``At`` is (features + 1) x rows, its last row the
    (unpenalised) intercept's ones."""
    Aw = At if w is None else At * w
    G = np.einsum("in,jn->ij", Aw, At)  # about 3x faster than Aw @ At.T for these shapes
    p = At.shape[0] - 1
    G[np.arange(p), np.arange(p)] += RIDGE * max(float(np.trace(G[:p, :p])) / max(p, 1), 1e-12)
    return np.asarray(np.linalg.solve(G, Aw @ t), dtype=float)


def fit_step(X: FloatArray, t: FloatArray) -> FloatArray | None:
    """Huber-weighted ridge coefficients (features..., intercept) of one step's regression, by
    iteratively reweighted least squares; None with too few windows."""
    if X.shape[0] < X.shape[1] + 2:
        return None
    At = np.vstack([X.T, np.ones(X.shape[0])])
    try:
        b = _ridge(At, t)
        for _ in range(IRLS_ROUNDS):
            res = np.abs(t - b @ At)
            s = HUBER * 1.4826 * float(np.median(res))
            if s <= 0:
                break
            b = _ridge(At, t, np.minimum(1.0, s / np.maximum(res, 1e-12)))
    except np.linalg.LinAlgError:
        return None
    return b


@dataclass(frozen=True)
class PooledAR:
    """Per cutoff (periods cut from the end of every series): (L + 1 x H) coefficients, the last
    row the intercept; a step with too few windows to fit is NaN, and so is every step past c at
    cutoff c > 0 (a backtest origin c periods before the end forecasts at most c steps)."""

    lags: int
    horizon: int
    coefs: dict[int, FloatArray] = field(default_factory=dict)
    anchor: str = "level"  # the linear model's targets are always from the level

    @property
    def cutoffs(self) -> list[int]:
        return sorted(self.coefs)

    def design(self, feats: FloatArray, levels: FloatArray) -> FloatArray:
        """The model's inputs for windows ``feats`` (rows x L) of levels ``levels``: the window only."""
        return feats

    def predict_steps(self, feats: FloatArray, cutoff: int, h: int) -> FloatArray:
        """Step 1..h log-ratios to the window level for rows of window features (rows x L)."""
        beta = self.coefs[cutoff]
        return np.asarray(feats @ beta[:-1, :h] + beta[-1, :h], dtype=float)

    def predict(self, y: FloatArray, h: int, cutoff: int = 0) -> FloatArray:
        """``h`` forecasts (original units) past history ``y`` with the model of ``cutoff``."""
        return predict_one(self, y, h, cutoff)


class PooledModel(Protocol):
    """A model learned across a panel's windows: linear (``PooledAR``) or trees (``gbm.py``)."""

    @property
    def lags(self) -> int: ...

    @property
    def horizon(self) -> int: ...

    @property
    def cutoffs(self) -> list[int]: ...

    @property
    def anchor(self) -> str: ...

    def design(self, feats: FloatArray, levels: FloatArray) -> FloatArray: ...

    def predict_steps(self, feats: FloatArray, cutoff: int, h: int) -> FloatArray: ...


def predict_one(model: PooledModel, y: FloatArray, h: int, cutoff: int = 0) -> FloatArray:
    """``h`` forecasts (original units) past history ``y`` with ``model``'s ``cutoff``."""
    x = _log_history(y)
    if cutoff not in model.cutoffs or x is None or h > model.horizon or x.size < MIN_CONTEXT:
        return np.full(h, np.nan)
    f, level = _last_window(x, model.lags)
    steps = model.predict_steps(model.design(f[None, :], np.array([level])), cutoff, h)[0]
    return np.exp(np.clip(_anchor(model.anchor, level, x[-1]) + steps, -700.0, 700.0))


def forecast_table(model: PooledModel, histories: Sequence[FloatArray]) -> list[dict[int, FloatArray]]:
    """Every forecast the backtest and the forecast will ask of ``model``, made at once: for each
    history (original units) and each cutoff c, the forecasts (original units, up to
    ``model.horizon`` steps, NaN where the model has none) from the history less its last c
    periods.  One batched prediction per cutoff instead of one per series, origin and step."""
    out: list[dict[int, FloatArray]] = [{} for _ in histories]
    logs = [_log_history(y) for y in histories]
    for c in model.cutoffs:
        rows, feats, levels, lasts = [], [], [], []
        for i, x in enumerate(logs):
            if x is None or x.size - c < MIN_CONTEXT:
                continue
            f, level = _last_window(x[: x.size - c], model.lags)
            rows.append(i)
            feats.append(f)
            levels.append(level)
            lasts.append(x[x.size - c - 1])
        if not rows:
            continue
        steps = model.predict_steps(model.design(np.vstack(feats), np.asarray(levels)), c, model.horizon)
        base = _anchor(model.anchor, np.asarray(levels), np.asarray(lasts))
        values = np.exp(np.clip(base[:, None] + steps, -700.0, 700.0))
        for i, v in zip(rows, values, strict=True):
            out[i][c] = v
    return out


def steps_at(cutoff: int, horizon: int) -> range:
    """The steps a model of ``cutoff`` forecasts: all at 0; at c > 0 at most c (an origin c periods
    before the end has c periods left to score)."""
    return range(1, (horizon if cutoff == 0 else min(cutoff, horizon)) + 1)


def train(histories: Sequence[FloatArray], horizon: int, lags: int = LAGS,
          cutoffs: Iterable[int] = (0,)) -> PooledAR:
    """A pooled model per cutoff: cutoff c is trained as if every series ended c periods earlier
    (``histories`` in original units, one per series, leading NaNs allowed)."""
    w = build_windows(histories, lags, horizon)
    coefs: dict[int, FloatArray] = {}
    for c in cutoffs:
        beta = np.full((lags + 1, horizon), np.nan)
        for j in steps_at(c, horizon):
            rows = w.room - c >= j
            b = fit_step(w.feats[rows], w.targets[rows, j - 1])
            if b is not None:
                beta[:, j - 1] = b
        coefs[c] = beta
    return PooledAR(lags, horizon, coefs)


@dataclass
class PooledMember:
    """The pooled model as a member of one series' combination (``core.forecast(extra_members=
    ...)``).  ``forecasts``: the series' row of ``forecast_table`` (cutoff -> forecasts in
    original units); ``n`` is the series' length (from its first value): a history of n - c
    periods (a backtest origin) gets the forecasts of cutoff c, made by the model trained without
    the last c periods of any series.  Forecasts on the series' working scale like every member."""

    forecasts: Mapping[int, FloatArray]
    n: int
    name: str = NAME

    @classmethod
    def of(cls, model: PooledModel, y: FloatArray) -> PooledMember:
        """The member for history ``y`` (original units, leading NaNs allowed)."""
        finite = np.flatnonzero(np.isfinite(y))
        return cls(forecast_table(model, [y])[0], int(y.size - finite[0]) if finite.size else 0)

    def forecast(self, z: FloatArray, h: int, scale: Scale) -> FloatArray:
        table = self.forecasts.get(self.n - z.size)
        if table is None or table.size < h:
            return np.full(h, np.nan)
        with np.errstate(all="ignore"):
            out = scale.forward(table[:h])
        return out if out.shape == (h,) and np.all(np.isfinite(out)) else np.full(h, np.nan)

    def for_backtest(self) -> PooledMember:
        return self
