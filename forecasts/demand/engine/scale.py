"""The working scale of a series: its values, or their natural logarithms.

Rule (stated on every result as ``log_reason``): a series is modelled on the log scale when

1. every value is strictly positive,
2. no value is more than ``MAX_STEP_RATIO`` (100) times, or less than a hundredth of, the one before: a
   jump of two orders of magnitude in one period is a break (a department that left, logs missing for a
   month), not multiplicative growth, and on the log scale its single backtest error of +-4.6 log units
   or more would be calibrated into every interval and compounded along every sample path (a cluster's
   last month at 212 core-hours after 368,000 gave yearly p90s of 1e21 core-hours), and
3. its spread grows with its level: split the series into consecutive blocks of
   ``max(2, season_length)`` periods (the first incomplete block is dropped), take each block's
   mean m_i and standard deviation s_i; with at least ``MIN_BLOCKS`` blocks whose s_i > 0, the
   coefficient of variation of s_i / m_i is smaller than that of s_i.

This is Guerrero's (1993) variance-stabilising choice of the Box-Cox lambda restricted to
lambda = 0 (log) or 1 (no transform): the log is chosen when the series' variability is more
nearly proportional to its level than constant.  A linear trend (constant differences) stays on
its own scale; a geometric series (constant ratios) goes to the log scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from forecasts.usage.breaks import break_reason  # the break rule, shared with the usage page

FloatArray = npt.NDArray[np.float64]

MIN_BLOCKS = 3


def _cv(x: FloatArray) -> float:
    mean = float(np.mean(x))
    if mean == 0:
        return float("inf")
    return float(np.std(x, ddof=1) / abs(mean))


def choose_log(y: FloatArray, season_length: int = 1, log: bool | None = None) -> tuple[bool, str]:
    """Decide the log scale for the finite values ``y`` (see the module docstring)."""
    if log is not None:
        if log and np.any(y <= 0):
            raise ValueError("log scale forced but the series has values <= 0")
        return bool(log), "log scale forced by the caller" if log else "original scale forced by the caller"
    if np.any(y <= 0):
        return False, "original scale: the series has values <= 0"
    jump = break_reason(y.tolist())
    if jump:
        return False, f"original scale: {jump}"
    p = max(2, season_length)
    nb = y.size // p
    if nb < MIN_BLOCKS:
        return False, f"original scale: fewer than {MIN_BLOCKS} blocks of {p} periods to compare spread with level"
    blocks = y[y.size - nb * p :].reshape(nb, p)
    m = blocks.mean(axis=1)
    s = blocks.std(axis=1, ddof=1)
    keep = s > 0
    if keep.sum() < MIN_BLOCKS:
        return False, "original scale: the series is (nearly) constant"
    cv_log = _cv(s[keep] / m[keep])
    cv_raw = _cv(s[keep])
    if cv_log < cv_raw:
        return True, (
            f"log scale: all values > 0 and the spread grows with the level (Guerrero check over {nb} blocks "
            f"of {p}: CV of sd/mean {cv_log:.2f} < CV of sd {cv_raw:.2f})"
        )
    return False, (
        f"original scale: the spread does not grow with the level (Guerrero check over {nb} blocks of {p}: "
        f"CV of sd/mean {cv_log:.2f} >= CV of sd {cv_raw:.2f})"
    )


@dataclass(frozen=True)
class Scale:
    """z = log(y) when ``log`` else y."""

    log: bool

    def forward(self, y: FloatArray) -> FloatArray:
        if self.log:
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.log(np.where(y > 0, y, np.nan))
        return np.asarray(y, dtype=float)

    def back(self, z: FloatArray) -> FloatArray:
        if self.log:
            return np.exp(np.clip(z, -700.0, 700.0))
        return np.asarray(z, dtype=float)
