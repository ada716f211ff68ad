"""The pooled member's nonlinear learner: gradient-boosted regression trees (LightGBM) on the same
windows as the linear one (``pooled.py``), one model per backtest cutoff and forecast step
("direct"), so no backtest origin sees its future.

Inputs: the window's L log values minus its level (as the linear model's) **and the level
itself** (the mean of the window's log values, i.e. the log of the series' recent size).  The
level lets the trees tell series of different kinds apart — in a panel the size of a series says
something about what it is (a country's exports against one firm's sales) and so about how it
moves — the series-level information a global model can use and a local one cannot
(Montero-Manso & Hyndman 2021, "locality and globality"; the level-scale features of M4's
global entrants).  It is a value of the history only, so the leakage argument is unchanged.

Montero-Manso & Hyndman (2021) found that a global model needs nonlinearity to beat local models
on short series.  On the M3 validation sets (each series' test points removed, the 6 / 8 before
them held back) the trees on the window alone, blended 0.2 into the median of the local members,
scored sMAPE 18.44 / 8.63 (yearly / quarterly) against the linear model's 18.51 / 8.70; with the
level as a feature the trees alone scored 18.10 / 8.88 (from 19.48 / 9.16) and blended 0.5
17.72 / 8.45 (docs/forecasting.md).  Settings as compared there, not tuned further: L1 loss (the
median of a log-ratio, robust like the linear model's Huber weights), 50 rounds at learning rate
0.1, 15 leaves, 63 histogram bins, LightGBM's other defaults; one thread, seed 0 and LightGBM's
deterministic mode, so a panel gives the same numbers on every run and machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .pooled import LAGS, FloatArray, build_windows, steps_at

PARAMS: dict[str, Any] = {
    "objective": "l1",
    "learning_rate": 0.1,
    "num_leaves": 15,
    "max_bin": 63,
    "num_threads": 1,
    "seed": 0,
    "deterministic": True,
    "force_col_wise": True,
    "verbosity": -1,
}
ROUNDS = 50


def available() -> str | None:
    """None when LightGBM can be used, else why not (e.g. its OpenMP runtime is missing)."""
    try:
        import lightgbm  # noqa: F401
    except (ImportError, OSError) as exc:  # OSError: libgomp.so.1 not found
        return f"lightgbm cannot be imported ({exc})"
    return None


@dataclass
class PooledGBM:
    """Per (cutoff, step) a booster; a step without one forecasts NaN."""

    lags: int
    horizon: int
    boosters: dict[tuple[int, int], Any] = field(default_factory=dict)
    trained_cutoffs: list[int] = field(default_factory=list)
    anchor: str = "level"  # targets: log changes from the window's level or its last value

    @property
    def cutoffs(self) -> list[int]:
        return self.trained_cutoffs

    def design(self, feats: FloatArray, levels: FloatArray) -> FloatArray:
        """The trees' inputs: the normalised window and its level (last column)."""
        return np.column_stack([feats, levels])

    def predict_steps(self, feats: FloatArray, cutoff: int, h: int) -> FloatArray:
        out = np.full((feats.shape[0], h), np.nan)
        for j in range(1, h + 1):
            booster = self.boosters.get((cutoff, j))
            if booster is not None:
                out[:, j - 1] = booster.predict(feats, num_threads=1)
        return out


def train_gbm(histories: Sequence[FloatArray], horizon: int, lags: int = LAGS,
              cutoffs: Iterable[int] = (0,), anchor: str = "level") -> PooledGBM:
    """Like ``pooled.train``: cutoff c's models see no window whose target lies in the last c
    periods of any series.  ``anchor``: what the targets are log changes from (``pooled.ANCHORS``)."""
    import lightgbm as lgb

    w = build_windows(histories, lags, horizon, anchor)
    model = PooledGBM(lags, horizon, anchor=anchor)
    X = model.design(w.feats, w.levels)
    for c in cutoffs:
        model.trained_cutoffs.append(c)
        for j in steps_at(c, horizon):
            rows = w.room - c >= j
            if int(rows.sum()) < lags + 2:  # the linear fit's minimum
                continue
            data = lgb.Dataset(X[rows], w.targets[rows, j - 1],
                               params={"max_bin": PARAMS["max_bin"], "verbosity": -1})
            model.boosters[(c, j)] = lgb.train(PARAMS, data, num_boost_round=ROUNDS)
    return model
