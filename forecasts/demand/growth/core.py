"""Fit growth families to a series, choose one, and forecast it with simulated intervals.

Pipeline of ``forecast_series``:

1. Working scale.  ``log=None`` chooses the log transform automatically by this rule: all values
   positive, at least 5 of them, and the better (by AICc) of a straight line and a quadratic in
   t fitted to log(y), with the Jacobian correction 2 * sum(log y) added, beats the better of
   the two fitted to y by more than 2 AICc units, and no value more than 100 times, or less than a
   hundredth of, the one before (a break, not growth: ``forecasts.usage.breaks``).
   ``log=True/False`` forces it.  Values are then
   divided by their largest magnitude so every optimiser sees numbers of order one.
2. Every requested family is fitted to all finite values (``families.py``).
3. Rolling-origin backtest (``backtest.py``): each family is refitted from each origin and
   scored by MASE, sMAPE and 80%-interval coverage in series units.  The log decision of the
   full series is kept at every origin.
4. Selection (``select='backtest'``, the default, when at least two origins were scored): the
   families whose backtest MASE is within 10% of the lowest are treated as tied (the backtest
   cannot tell them apart); among those, the family with the fewest parameters whose AICc is
   within 2 of the lowest is chosen (smaller AICc differences are not evidence); with
   ``select='aicc'`` or too short a series, lowest AICc.  ``family=`` overrides both.
5. Intervals: ``n_boot`` simulated paths of the chosen family (parameter draw + resampled
   residuals, see ``families.simulate``); quantiles per step and calendar-year aggregates are
   taken over the paths (never by adding quantiles).

Deterministic for a given ``seed``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from forecasts.usage.breaks import break_reason

from .backtest import BacktestAccumulator, naive_scale, plan_backtest
from .calendar import PERIODS_PER_YEAR, check_frequency, period_dates
from .families import ALL_FAMILIES, FitError, FloatArray, ModelFit, aicc_from_sse
from .projection import fit_family, in_sample, point_forecast, simulate
from .results import FitResult, Forecast, ForecastStep, YearAggregate

LOG_MARGIN = 2.0  # AICc units the log scale must win by
LOG_HEADROOM = 30.0  # simulated log values are capped at max(log y) + 30 (e^30 ~ 1e13 x the max)
MASE_TIE = 0.10  # backtest MASEs within 10% of the best are a tie, broken by AICc
AICC_TIE = 2.0  # AICc differences below 2 are not evidence: prefer fewer parameters
QUANTILES = (0.025, 0.10, 0.5, 0.90, 0.975)


def choose_log(t: FloatArray, y: FloatArray, log: bool | None = None) -> tuple[bool, str]:
    """Decide the log transform for finite (t, y); see the module docstring for the rule."""
    if log is not None:
        if log and np.any(y <= 0):
            raise ValueError("log transform forced but the series has values <= 0")
        return bool(log), "forced by caller"
    if np.any(y <= 0):
        return False, "raw scale: series has values <= 0"
    if y.size < 5:
        return False, "raw scale: fewer than 5 values"
    jump = break_reason(y.tolist())  # the engine's break rule (forecasts.demand.engine.scale)
    if jump:
        return False, f"raw scale: {jump}"
    ly = np.log(y)
    raw = _poly_aicc(t, y)
    lg = _poly_aicc(t, ly) + 2 * float(ly.sum())
    if lg < raw - LOG_MARGIN:
        return True, f"log scale: AICc {lg:.1f} (Jacobian-corrected) beats raw {raw:.1f} by > {LOG_MARGIN:g}"
    return (
        False,
        f"raw scale: log AICc {lg:.1f} (Jacobian-corrected) does not beat raw {raw:.1f} by > {LOG_MARGIN:g}",
    )


def _poly_aicc(t: FloatArray, v: FloatArray) -> float:
    best = math.inf
    for deg in (1, 2):
        if v.size < deg + 4:
            continue
        c = np.polyfit(t - t.mean(), v, deg)
        sse = float(np.sum((np.polyval(c, t - t.mean()) - v) ** 2))
        best = min(best, aicc_from_sse(sse, v.size, deg + 1))
    return best


@dataclass
class _Scale:
    """Working scale: z = g(y) / sz with g = log or identity."""

    log: bool
    sz: float
    cap: float  # upper cap on g(y) for simulated values (log scale only)

    @classmethod
    def of(cls, y: FloatArray, log: bool) -> _Scale:
        g = np.log(y) if log else y
        sz = float(np.max(np.abs(g))) if g.size else 1.0
        return cls(log, sz if sz > 0 else 1.0, float(g.max()) + LOG_HEADROOM if log else math.inf)

    def forward(self, y: FloatArray) -> FloatArray:
        return (np.log(y) if self.log else y) / self.sz

    def back(self, z: FloatArray) -> FloatArray:
        g = z * self.sz
        if self.log:
            return np.exp(np.clip(g, -700.0, self.cap))
        return g

    def capacity(self, capacity: float | None) -> float | None:
        if capacity is None:
            return None
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        return (math.log(capacity) if self.log else capacity) / self.sz


def _fit_all(
    t: FloatArray, z: FloatArray, families: Sequence[str], loss: str, capacity: float | None
) -> tuple[dict[str, ModelFit], dict[str, str]]:
    fits: dict[str, ModelFit] = {}
    skipped: dict[str, str] = {}
    for fam in families:
        if fam not in ALL_FAMILIES:
            raise ValueError(f"unknown family {fam!r}; choose from {', '.join(ALL_FAMILIES)}")
        try:
            fit = fit_family(fam, t, z, loss, capacity)
        except (FitError, ValueError, np.linalg.LinAlgError) as exc:
            skipped[fam] = str(exc)
            continue
        if not np.all(np.isfinite(fit.fitted)) or not np.all(np.isfinite(fit.theta)):
            skipped[fam] = "fit produced non-finite values"
            continue
        if not np.all(np.isfinite(fit.cov)):
            fit.cov = np.zeros_like(fit.cov)
        fits[fam] = fit
    return fits, skipped


def _result(fit: ModelFit, scale: _Scale, t_all: FloatArray) -> FitResult:
    return FitResult(
        family=fit.family,
        params=fit.report(scale.sz),
        n_params=fit.k,
        n_obs=fit.n,
        aicc=fit.aicc(),
        sigma=math.sqrt(fit.sse / max(fit.n - fit.k, 1)) * scale.sz,
        log=scale.log,
        converged=fit.converged,
        message=fit.message,
        fitted=scale.back(in_sample(fit, t_all)).tolist(),
    )


def fit_series(
    t: Iterable[float],
    y: Iterable[float],
    *,
    families: Sequence[str] = ALL_FAMILIES,
    log: bool | None = None,
    loss: str = "linear",
    capacity: float | None = None,
) -> list[FitResult]:
    """Fit every family to (t, y) and return the fits sorted by AICc (best first).

    ``t`` is in periods (unit spacing, any origin); non-finite ``y`` are gaps.  ``loss`` is a
    scipy ``least_squares`` loss ('linear', 'soft_l1', 'huber', 'cauchy', 'arctan') for robust
    fits.  ``capacity`` (series units) fixes K of the logistic and Gompertz families.
    ``fitted`` values are reported at every input t.  On the log scale the exponential family is
    left out (a straight line in log y is exponential growth) unless it is the only one asked.
    """
    t_all = np.asarray(list(t), dtype=float)
    y_all = np.asarray(list(y), dtype=float)
    if t_all.shape != y_all.shape:
        raise ValueError("t and y must have the same length")
    ok = np.isfinite(y_all) & np.isfinite(t_all)
    if ok.sum() < 3:
        raise ValueError("need at least 3 finite values")
    use_log, _ = choose_log(t_all[ok], y_all[ok], log)
    scale = _Scale.of(y_all[ok], use_log)
    fams = [f for f in families if not (use_log and f == "exponential" and len(families) > 1)]
    fits, _ = _fit_all(t_all[ok], scale.forward(y_all[ok]), fams, loss, scale.capacity(capacity))
    return sorted((_result(f, scale, t_all) for f in fits.values()), key=lambda r: r.aicc)


def _backtest(
    y: FloatArray,
    families: Sequence[str],
    use_log: bool,
    max_origins: int,
    loss: str,
    capacity: float | None,
    n_paths: int,
    m: int,
    rng: np.random.Generator,
) -> tuple[dict[str, BacktestAccumulator], int, int]:
    plan = plan_backtest(y, max_origins)
    accs = {f: BacktestAccumulator.empty() for f in families}
    for o in plan.origins:
        train = y[:o]
        ok = np.isfinite(train)
        t_tr = np.flatnonzero(ok).astype(float)
        scale = _Scale.of(train[ok], use_log)
        z = scale.forward(train[ok])
        t_fut = np.arange(o, o + plan.horizon, dtype=float)
        actual = y[o : o + plan.horizon]
        mscale = naive_scale(train, m)
        fits, _ = _fit_all(t_tr, z, families, loss, scale.capacity(capacity))
        for fam, fit in fits.items():
            paths = scale.back(simulate(fit, t_fut, n_paths, rng))
            point = scale.back(point_forecast(fit, t_fut))
            p10, p90 = np.quantile(paths, [0.1, 0.9], axis=0)
            accs[fam].add(actual, point, p10, p90, mscale)
    return accs, plan.horizon, len(plan.origins)


def _yearly(
    hist_dates: list[date],
    hist: FloatArray,
    future_dates: list[date],
    paths: FloatArray,
    aggregate: str,
    frequency: str,
) -> list[YearAggregate]:
    years = sorted({d.year for d in hist_dates} | {d.year for d in future_dates})
    full = PERIODS_PER_YEAR[frequency]
    out: list[YearAggregate] = []
    hy = np.array([d.year for d in hist_dates])
    fy = np.array([d.year for d in future_dates])
    for year in years:
        hv = hist[hy == year]
        cols = np.flatnonzero(fy == year)
        block = np.concatenate([np.broadcast_to(hv, (paths.shape[0], hv.size)), paths[:, cols]], axis=1)
        if aggregate == "sum":
            per_path = block.sum(axis=1)
        elif aggregate == "last":
            per_path = block[:, -1]
        else:
            per_path = block.mean(axis=1)
        q10, q50, q90 = np.quantile(per_path, [0.1, 0.5, 0.9])
        count = hv.size + cols.size
        out.append(
            YearAggregate(
                year,
                float(q50),
                float(q10),
                float(q90),
                float(per_path.mean()),
                int(hv.size),
                int(cols.size),
                bool(count >= math.floor(full)),
            )
        )
    return out


def forecast_series(
    values: Iterable[float],
    *,
    start: date,
    horizon: int,
    frequency: str = "M",
    backtest_origins: int = 12,
    family: str | None = None,
    families: Sequence[str] = ALL_FAMILIES,
    select: str = "backtest",
    log: bool | None = None,
    loss: str = "linear",
    capacity: float | None = None,
    n_boot: int = 500,
    backtest_boot: int = 100,
    seasonal_period: int = 1,
    aggregate: str = "sum",
    return_paths: bool = False,
    seed: int = 0,
) -> Forecast:
    """Forecast a regular series ``horizon`` periods past its end (see the module docstring).

    ``values`` holds one value per period from ``start`` (NaN = missing period); ``frequency``
    is 'M', 'Q', 'S' (semiannual), 'A' or 'W'.  ``families`` limits the candidates, ``family``
    forces the chosen one (it is fitted even if absent from ``families``).  ``select`` is
    'backtest' or 'aicc'.  ``seasonal_period`` > 1 scales MASE by the seasonal-naive MAE.
    ``aggregate`` ('sum', 'last', 'mean') says how periods make a calendar year.
    """
    freq = check_frequency(frequency)
    if horizon < 1:
        raise ValueError("horizon must be at least 1")
    if select not in ("backtest", "aicc"):
        raise ValueError("select must be 'backtest' or 'aicc'")
    if aggregate not in ("sum", "last", "mean"):
        raise ValueError("aggregate must be 'sum', 'last' or 'mean'")
    y = np.asarray(list(values), dtype=float)
    y[~np.isfinite(y)] = np.nan
    ok = np.isfinite(y)
    if ok.sum() < 3:
        raise ValueError("need at least 3 finite values")
    cands = list(dict.fromkeys([*families, *([family] if family else [])]))
    t_all = np.arange(y.size, dtype=float)
    t_obs = t_all[ok]
    use_log, log_reason = choose_log(t_obs, y[ok], log)
    scale = _Scale.of(y[ok], use_log)
    redundant: dict[str, str] = {}
    if use_log and "exponential" in cands and family != "exponential":
        cands.remove("exponential")  # a straight line in log y already is exponential growth
        redundant["exponential"] = "on the log scale 'linear' is exponential growth"
    fits, skipped = _fit_all(t_obs, scale.forward(y[ok]), cands, loss, scale.capacity(capacity))
    skipped.update(redundant)
    if not fits:
        raise ValueError("no family could be fitted: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    if family is not None and family not in fits:
        raise ValueError(f"family {family!r} could not be fitted: {skipped.get(family, 'unknown')}")

    ss = np.random.SeedSequence(seed)
    rng_bt, rng_fc = (np.random.default_rng(s) for s in ss.spawn(2))
    accs, bt_h, bt_n = _backtest(
        y, list(fits), use_log, backtest_origins, loss, capacity, backtest_boot, seasonal_period, rng_bt
    )
    t_fut = np.arange(y.size, y.size + horizon, dtype=float)
    results: dict[str, FitResult] = {}
    for fam, fit in fits.items():
        r = _result(fit, scale, t_all)
        acc = accs.get(fam)
        if acc is not None:
            r.mase, r.smape, r.coverage80, r.backtest_origins = (
                acc.mase,
                acc.smape,
                acc.coverage80,
                acc.origins_used,
            )
        r.point_forecast = scale.back(point_forecast(fit, t_fut)).tolist()
        results[fam] = r

    def bt_key(r: FitResult) -> tuple[float, float]:
        ok = r.backtest_origins >= 2 and math.isfinite(r.mase)
        return (r.mase if ok else math.inf, r.aicc)

    def aicc_key(r: FitResult) -> tuple[float, float]:
        return (r.aicc, r.mase if math.isfinite(r.mase) else math.inf)

    scored = [r for r in results.values() if r.backtest_origins >= 2 and math.isfinite(r.mase)]
    if family is not None:
        chosen, how = results[family], "override"
        reason = f"{family} chosen by the caller"
        ordered = sorted(results.values(), key=bt_key if scored else aicc_key)
    elif select == "backtest" and scored:
        ordered = sorted(results.values(), key=bt_key)
        best_mase = min(r.mase for r in scored)
        tied = [r for r in scored if r.mase <= best_mase * (1 + MASE_TIE)]
        best_aicc = min(r.aicc for r in tied)
        plausible = [r for r in tied if r.aicc <= best_aicc + AICC_TIE]
        chosen, how = min(plausible, key=lambda r: (r.n_params, r.aicc)), "backtest"
        ordered.remove(chosen)
        ordered.insert(0, chosen)
        reason = (
            f"rolling-origin MASE {chosen.mase:.3f} over {chosen.backtest_origins} origins (h={bt_h}); "
            f"{len(tied)} families within {MASE_TIE:.0%} of the best MASE {best_mase:.3f}, "
            f"the simplest of those within {AICC_TIE:g} AICc of the lowest"
        )
    else:
        ordered = sorted(results.values(), key=aicc_key)
        chosen, how = ordered[0], "aicc"
        why = "as asked" if select == "aicc" else "series too short to backtest"
        reason = f"lowest AICc {chosen.aicc:.1f} ({why})"

    paths = scale.back(simulate(fits[chosen.family], t_fut, n_boot, rng_fc))
    qs = np.quantile(paths, QUANTILES, axis=0)
    means = paths.mean(axis=0)
    fut_dates = period_dates(start, horizon, freq, offset=y.size)
    hist_dates = period_dates(start, y.size, freq)
    steps = [
        ForecastStep(
            d.isoformat(),
            y.size + i,
            float(means[i]),
            float(qs[2, i]),
            float(qs[0, i]),
            float(qs[1, i]),
            float(qs[3, i]),
            float(qs[4, i]),
        )
        for i, d in enumerate(fut_dates)
    ]
    hist_filled = np.where(ok, y, np.asarray(chosen.fitted, dtype=float))
    return Forecast(
        family=chosen.family,
        selection=how,
        reason=reason,
        log=use_log,
        log_reason=log_reason,
        frequency=freq,
        start=start.isoformat(),
        horizon=horizon,
        n_boot=n_boot,
        seed=seed,
        aggregate=aggregate,
        backtest_horizon=bt_h,
        backtest_origins=bt_n,
        seasonal_period=seasonal_period,
        history_dates=[d.isoformat() for d in hist_dates],
        history=y.tolist(),
        fits=ordered,
        steps=steps,
        yearly=_yearly(hist_dates, hist_filled, fut_dates, paths, aggregate, freq),
        skipped=skipped,
        paths=paths.tolist() if return_paths else None,
    )
