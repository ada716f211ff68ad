"""Forecast one regular series: members, backtest, combination, calibrated intervals, paths.

``forecast(values, horizon, season_length=...)``:

1. Working scale by the stated log rule (``scale.py``); interior gaps are filled by linear
   interpolation on that scale (their number is reported).
2. Every member (``members.py``) is fitted to the whole history and forecasts ``horizon`` steps.
   Scale ensemble: for a positive series whose scale the rule chose (``log=None``), every
   combinable member is fitted a second time on the other scale (``theta_log`` or
   ``theta_orig``, ``members.ScaledMember``), its forecasts mapped onto the working scale.  The
   log rule is a noisy yes/no on short series; hedging it by combining both (model uncertainty,
   Petropoulos, Hyndman & Bergmeir 2018) scored better on the M3 validation sets, yearly and
   quarterly, than either scale alone (docs/forecasting.md).
3. Rolling-origin backtest at the requested horizon capped by the length (``backtest.py``): each
   member's MASE on the working scale and sMAPE on the original scale.
4. Combination: the per-step median (or mean, or 20% trimmed mean: ``combine``) on the working scale of the members
   with a backtest MASE no more than ``TRIM_FACTOR`` (10) times the best one's (a member shown
   badly wrong on this series, e.g. Theta's half slope on an exact straight line or a linear
   fit to an exact geometric series, is left out) and not outvoted one step ahead (a member whose
   one-step backtest forecasts were worse than the best member's at significantly more origins
   than not, sign test p < ``SIGN_ALPHA``, is left out: on long smooth growth series Theta's half
   slope and the other-scale twins; docs/forecasting.md "Growth series"), at most ``k`` of them by
   rank (default: all).  Equal weights / the median of many members rather than selection or fitted weights:
   the M3 and M4 findings (Makridakis et al. 2020; Petropoulos & Svetunkov 2020 use the median
   of ETS, CES, ARIMA and DOTM); on the M3 validation sets the best 1-3 by backtest and
   inverse-MASE weights did worse.  AutoARIMA is reported with its backtest errors and its own
   intervals but left out of the default combination (``not_combined``): its backtest reuses
   the whole-series coefficients (see members.py), so its errors there are optimistic and
   would narrow the combination's intervals.  ``pin`` replaces the combination by one member.
   ``blend=(name, w)`` mixes one member in after the median, with the fixed weight w:
   (1 - w) median + w member, in the whole-series forecast and at every backtest origin alike
   (where that member has no forecast, the median alone).  Panels use it for the pooled global
   model (``pooled.py`` / ``gbm.py``, w = 0.5 for the trees, 0.2 for the linear model, chosen on the M3
   validation sets): a member of another kind
   (learned across the series) that one vote among ten in a median would barely move.
5. Intervals: conformal, from the backtest errors of the combined forecast itself (the same
   median of the same members at every origin), see ``intervals.py``; each member also gets
   intervals from its own errors.
6. Optional sample paths keep the calibration and the correlation between steps.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .backtest import (
    MAX_ORIGINS,
    MIN_TRAIN,
    Backtest,
    Scores,
    SignTest,
    one_step_sign_test,
    rank_key,
    run_backtest,
    score,
)
from .fitcache import shared_fits
from .intervals import LEVELS, calibrate, sample_paths
from .members import STAT_MEMBERS, Member, ScaledMember, default_members, other_scale_members
from .results import EngineForecast, MemberResult, ShortHistoryError, Step
from .scale import FloatArray, Scale, choose_log

DEFAULT_K: int | None = None  # all members that pass the trim
COMBINE = ("mean", "median", "trimmed")  # the local members' per-step combination (median by default)
TRIM_SHARE = 0.2  # "trimmed": floor(0.2 n) of the n members dropped from each end, the mean of the rest
TRIM_FACTOR = 10.0  # members with a backtest MASE over 10x the best are left out of the combination
# ... and members whose one-step backtest forecasts were worse than the best member's at significantly more
# origins than not (one-sided sign test, p < SIGN_ALPHA: with 12 origins, worse at 11 or 12; below 7 origins
# never).  Conservative for the ~9 comparisons a series makes; docs/forecasting.md "Growth series".
SIGN_ALPHA = 0.01
NOT_COMBINED = ("arima",)  # reported, pinnable, not combined by default (leaky backtest, see above)
MIN_PERIODS = MIN_TRAIN + 3  # five to fit, three origins to backtest and calibrate on


def min_periods(season_length: int = 1) -> int:
    """Periods needed for a backtested forecast (seasonal members need two seasons more; below
    that they run without seasonality)."""
    return MIN_PERIODS


def _fill_gaps(z: FloatArray) -> tuple[FloatArray, int]:
    bad = ~np.isfinite(z)
    if not bad.any():
        return z, 0
    idx = np.arange(z.size)
    out = z.copy()
    out[bad] = np.interp(idx[bad], idx[~bad], z[~bad])
    return out, int(bad.sum())


def _bounds(center: FloatArray, half: dict[float, FloatArray], back: Callable[[FloatArray], FloatArray]
            ) -> dict[str, FloatArray]:
    """The median and the 80% and 95% bounds, mapped to the original scale by ``back``."""
    return {
        "median": back(center),
        "p10": back(center - half[0.80]),
        "p90": back(center + half[0.80]),
        "p2_5": back(center - half[0.95]),
        "p97_5": back(center + half[0.95]),
    }


def _coverage(abs_err: FloatArray, half80: FloatArray) -> float:
    """Share of backtest errors inside the 80% half-width of their step (the calibration's own
    check: near 0.8 by construction; far from it means too few errors to calibrate on)."""
    ok = np.isfinite(abs_err)
    if not ok.any():
        return math.nan
    inside = abs_err <= half80[None, : abs_err.shape[1]] + 1e-12
    return float(inside[ok].mean())


def trimmed_mean(stack: FloatArray, share: float = TRIM_SHARE) -> FloatArray:
    """Per cell (axis 0 holds the members), the mean of the finite values left after dropping floor(share n)
    of the n from each end (Jose & Winkler 2008); nothing is dropped from fewer than 1 / share values."""
    s = np.sort(stack, axis=0)  # NaN last
    n = np.isfinite(s).sum(axis=0)
    g = np.floor(share * n)
    i = np.arange(s.shape[0]).reshape((-1,) + (1,) * (s.ndim - 1))
    keep = (i >= g) & (i < n - g)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(keep, s, 0.0).sum(axis=0) / keep.sum(axis=0))


def _combined_backtest(bt: Backtest, names: Sequence[str], how: str) -> FloatArray:
    stack = np.stack([bt.forecasts[n] for n in names])
    ok = np.isfinite(stack).any(axis=0)
    out = np.full(stack.shape[1:], np.nan)
    if ok.any():
        part = stack[:, ok]
        out[ok] = (np.nanmean(part, axis=0) if how == "mean" else trimmed_mean(part) if how == "trimmed"
                   else np.nanmedian(part, axis=0))
    return out


def forecast(
    values: Iterable[float],
    horizon: int,
    *,
    season_length: int = 1,
    members: Sequence[str] = STAT_MEMBERS,
    extra_members: Sequence[Member] = (),
    k: int | None = DEFAULT_K,
    not_combined: Sequence[str] = NOT_COMBINED,
    pin: str | None = None,
    combine: str = "median",
    blend: tuple[str, float] | None = None,
    log: bool | None = None,
    both_scales: bool = True,
    max_origins: int = MAX_ORIGINS,
    n_paths: int = 0,
    seed: int = 0,
    unit: str = "periods",
) -> EngineForecast:
    """Forecast ``horizon`` periods past the last value (see the module docstring).

    ``values``: one per period, NaN for a gap (leading gaps are dropped; the last value must be
    present).  ``both_scales``: add the other-scale members when the rule chose the scale of a
    positive series (a forced ``log`` keeps to that scale).  ``unit`` names the periods in
    messages ("months", "quarters").  Raises ``ShortHistoryError`` below ``MIN_PERIODS`` values
    and ``ValueError`` for bad arguments.
    """
    t0 = time.perf_counter()
    if horizon < 1:
        raise ValueError("horizon must be at least 1")
    if k is not None and k < 1:
        raise ValueError("k must be at least 1")
    if combine not in COMBINE:
        raise ValueError(f"combine must be one of {', '.join(COMBINE)}")
    if blend is not None and not 0 < blend[1] < 1:
        raise ValueError("the blend weight must be between 0 and 1")
    y = np.asarray(list(values), dtype=float)
    y[~np.isfinite(y)] = np.nan
    finite = np.flatnonzero(np.isfinite(y))
    if finite.size == 0:
        raise ShortHistoryError(0, min_periods(season_length), unit)
    y = y[finite[0] :]
    if not np.isfinite(y[-1]):
        raise ValueError("the last period has no value: cut the series at its last observed period")
    if np.isfinite(y).sum() < min_periods(season_length):
        raise ShortHistoryError(int(np.isfinite(y).sum()), min_periods(season_length), unit)
    use_log, log_reason = choose_log(y[np.isfinite(y)], season_length, log)
    scale = Scale(use_log)
    z, filled = _fill_gaps(scale.forward(y))
    positive = bool(np.all(y[np.isfinite(y)] > 0))
    # back to the original scale; a quantity that has never been negative is not forecast below zero (an additive
    # fit to a falling series, or a wide interval, may cross it; clipping there moves no interval's coverage)
    nonnegative = bool(np.all(y[np.isfinite(y)] >= 0))

    def back(a: FloatArray) -> FloatArray:
        return np.maximum(scale.back(a), 0.0) if nonnegative else scale.back(a)

    mems: list[Member] = [*default_members(season_length, scale, positive, tuple(members)), *extra_members]
    if both_scales and log is None and positive:
        mems += other_scale_members(season_length, scale, tuple(n for n in members if n not in not_combined))
    names = [m.name for m in mems]
    other_names = {m.name for m in mems if isinstance(m, ScaledMember)}
    if len(set(names)) != len(names):
        raise ValueError("member names must be unique")
    if pin is not None and pin not in names:
        raise ValueError(f"cannot pin {pin!r}: members are {', '.join(names)}")
    if blend is not None and blend[0] not in names:
        raise ValueError(f"cannot blend {blend[0]!r}: members are {', '.join(names)}")
    blended = blend[0] if blend is not None and pin is None else None

    with shared_fits():  # identical statsforecast fits made once (fitcache.py: the same numbers)
        full = {m.name: m.forecast(z, horizon, scale) for m in mems}  # first: AutoARIMA picks its orders
        bt = run_backtest(z, mems, scale, horizon, season_length, max_origins)
    scores: dict[str, Scores] = {n: score(bt, bt.forecasts[n], scale) for n in names}
    order = sorted(names, key=lambda n: (not np.all(np.isfinite(full[n])), *rank_key(scores[n])))
    usable = [n for n in order if np.all(np.isfinite(full[n])) and rank_key(scores[n])[0] == 0]
    outvoted: dict[str, SignTest] = {}  # members left out by the one-step sign test against the best
    trimmed: set[str] = set()  # members left out for a backtest MASE over TRIM_FACTOR x the best
    reference = ""
    if pin is not None:
        if not np.all(np.isfinite(full[pin])):
            raise ValueError(f"the pinned member {pin!r} could not be fitted to this series")
        selected, method = [pin], f"pinned: {pin}"
    else:
        fitted = [n for n in order if np.all(np.isfinite(full[n]))]
        pool = ([n for n in usable if n not in not_combined and n != blended]
                or [n for n in usable if n != blended] or [n for n in fitted if n != blended])
        if not pool:
            raise ValueError("no member could be fitted to this series")
        reference, best = pool[0], scores[pool[0]].mase
        kept = {n for n in pool if not math.isfinite(best) or scores[n].mase <= TRIM_FACTOR * best + 1e-12}
        trimmed = {n for n in pool if n not in kept and math.isfinite(scores[n].mase)}
        selected = [n for n in pool[: len(pool) if k is None else min(k, len(pool))] if n in kept] or pool[:1]
        outvoted = {n: t for n in selected[1:] if (t := one_step_sign_test(bt, n, reference)).p < SIGN_ALPHA}
        selected = [n for n in selected if n not in outvoted]
        label = "trimmed mean" if combine == "trimmed" else combine
        method = (f"{label} of {len(selected)} of {len(names)} members ({', '.join(selected)}) by backtest MASE"
                  if len(selected) > 1 else f"best of {len(names)} members by backtest MASE: {selected[0]}")
        if outvoted:
            method += f"; {len(outvoted)} left out as worse than {reference} one step ahead (sign test)"

    stack = np.stack([full[n] for n in selected])
    center = (stack.mean(axis=0) if combine == "mean" else trimmed_mean(stack) if combine == "trimmed"
              else np.median(stack, axis=0))
    comb_bt = _combined_backtest(bt, selected, combine)
    weights = {n: 1.0 / len(selected) for n in selected}
    if blend is not None and blended is not None and np.all(np.isfinite(full[blended])):
        w = blend[1]
        center = (1 - w) * center + w * full[blended]
        g_bt = bt.forecasts[blended]
        comb_bt = np.where(np.isfinite(g_bt), (1 - w) * comb_bt + w * g_bt, comb_bt)
        weights = {n: (1 - w) / len(selected) for n in selected} | {blended: w}
        method += f", blended {1 - w:.2g} : {w:.2g} with {blended}"
        selected = [*selected, blended]
    comb_scores = score(bt, comb_bt, scale)
    comb_err = np.abs(bt.actual - comb_bt)
    cal = calibrate(comb_err, LEVELS, fitted=z.size)
    half = cal.half_widths(max(horizon, comb_err.shape[1]))
    if not all(np.all(np.isfinite(v)) for v in half.values()):
        half = {lv: np.zeros(max(horizon, comb_err.shape[1])) for lv in LEVELS}
    comb_cov = _coverage(comb_err, half[0.80])
    half = {lv: w[:horizon] for lv, w in half.items()}
    cols = _bounds(center, half, back)
    steps = [Step(i, *(float(cols[c][i]) for c in ("median", "p10", "p90", "p2_5", "p97_5")))
             for i in range(horizon)]

    results: list[MemberResult] = []
    for rank, n in enumerate(order, start=1):
        s = scores[n]
        weight = weights.get(n, 0.0)
        mr = MemberResult(n, s.mase, s.smape, s.cells, rank, weight,
                          log=(not use_log) if n in other_names else use_log)
        if np.all(np.isfinite(full[n])):
            merr = np.abs(bt.actual - bt.forecasts[n])
            mhalf = calibrate(merr, LEVELS, fitted=z.size).half_widths(max(horizon, merr.shape[1]))
            if all(np.all(np.isfinite(v)) for v in mhalf.values()):
                mr.coverage80 = _coverage(merr, mhalf[0.80])
                mhalf = {lv: w[:horizon] for lv, w in mhalf.items()}
                b = _bounds(full[n], mhalf, back)
                mr.median, mr.p10, mr.p90, mr.p2_5, mr.p97_5 = (b[c].tolist() for c in
                                                                 ("median", "p10", "p90", "p2_5", "p97_5"))
            else:
                mr.median = back(full[n]).tolist()
                mr.note = "no backtest errors to calibrate intervals on"
        else:
            mr.note = "could not be fitted to the whole series"
        if n in trimmed and not mr.note:
            mr.note = (f"left out: its backtest MASE is over {TRIM_FACTOR:g}x the best member's ({reference}'s)"
                       if scores[reference].mase > 1e-9 else  # 10x of 0: say what the table's 0.000s cannot
                       f"left out: {reference}'s backtest forecasts were exact (MASE 0) and this one's were not "
                       f"(MASE {s.mase:.2g})")
        if n in outvoted:
            t = outvoted[n]
            mr.note = (f"left out: its one-step backtest forecasts were worse than {reference}'s at {t.worse} "
                       f"of {t.worse + t.better} origins (sign test p = {t.p:.2g} < {SIGN_ALPHA:g})")
        if n not in selected and rank_key(s)[0] == 1 and not mr.note:
            mr.note = "scored on too few backtest forecasts"
        if n not in selected and n in not_combined and pin is None and not mr.note:
            mr.note = "not combined by default: its backtest reuses whole-series coefficients (optimistic)"
        results.append(mr)

    paths = None
    if n_paths > 0:
        rng = np.random.default_rng(seed)
        paths = back(sample_paths(center, half, n_paths, rng)).tolist()
    return EngineForecast(
        horizon=horizon, n_obs=int(y.size), season_length=season_length, log=use_log, log_reason=log_reason,
        method=method, selected=list(selected), pinned=pin, backtest_origins=len(bt.plan.origins),
        backtest_horizon=bt.plan.horizon, backtest_mase=comb_scores.mase, backtest_smape=comb_scores.smape,
        backtest_coverage80=comb_cov,
        interval_steps=cal.steps_calibrated, interval_scores=cal.n_scores, steps=steps, members=results,
        gaps_filled=filled, seconds=time.perf_counter() - t0, paths=paths,
    )


def growth_rate_projection(last_value: float, growth_pct_per_year: float, horizon: int,
                           periods_per_year: int) -> list[float]:
    """A projection from an entered growth rate (for histories too short to forecast): the last
    value compounded at ``growth_pct_per_year`` per year, one value per future period."""
    if not math.isfinite(last_value) or not math.isfinite(growth_pct_per_year):
        raise ValueError("last value and growth rate must be numbers")
    if growth_pct_per_year <= -100:
        raise ValueError("growth rate must be above -100% per year")
    if horizon < 1 or periods_per_year < 1:
        raise ValueError("horizon and periods per year must be at least 1")
    r = (1 + growth_pct_per_year / 100) ** (1 / periods_per_year)
    return [last_value * r ** (i + 1) for i in range(horizon)]
