"""Growth models: parameters recovered, intervals calibrated, sensible selection, real traces."""

from __future__ import annotations

import gzip
import json
import math
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forecasts.demand.growth import fit_series, forecast_series, series_from_points
from tests.shared import SHARED_DATA, requires_shared

T60 = np.arange(60, dtype=float)


def params_of(fits: list, family: str) -> dict[str, float]:
    return next(f for f in fits if f.family == family).params


def test_linear_slope_and_level_are_recovered() -> None:
    rng = np.random.default_rng(1)
    y = 100 + 5 * T60 + rng.normal(0, 2, 60)
    p = params_of(fit_series(T60, y, families=("linear",), log=False), "linear")
    assert p["slope"] == pytest.approx(5, abs=0.1)
    assert p["level_at_tc"] == pytest.approx(100 + 5 * 29.5, abs=1.5)


def test_exponential_rate_is_recovered_on_the_raw_scale() -> None:
    rng = np.random.default_rng(2)
    y = 50 * np.exp(0.04 * T60) + rng.normal(0, 2, 60)
    p = params_of(fit_series(T60, y, families=("exponential",), log=False), "exponential")
    assert p["rate"] == pytest.approx(0.04, abs=0.002)


def test_logistic_capacity_rate_and_midpoint_are_recovered() -> None:
    rng = np.random.default_rng(3)
    y = 1000 / (1 + np.exp(-0.15 * (T60 - 30))) + rng.normal(0, 10, 60)
    p = params_of(fit_series(T60, y, families=("logistic",), log=False), "logistic")
    assert p["capacity"] == pytest.approx(1000, rel=0.03)
    assert p["rate"] == pytest.approx(0.15, rel=0.15)
    assert p["midpoint"] == pytest.approx(30, abs=1.5)


def test_logistic_capacity_can_be_fixed_by_the_caller() -> None:
    rng = np.random.default_rng(3)
    y = 1000 / (1 + np.exp(-0.15 * (T60 - 30))) + rng.normal(0, 10, 60)
    p = params_of(fit_series(T60, y, families=("logistic",), log=False, capacity=1200), "logistic")
    assert p["capacity"] == pytest.approx(1200)


def test_gompertz_capacity_and_rate_are_recovered() -> None:
    rng = np.random.default_rng(4)
    y = 1000 * np.exp(-3 * np.exp(-0.1 * (T60 - 29.5))) + rng.normal(0, 10, 60)
    p = params_of(fit_series(T60, y, families=("gompertz",), log=False), "gompertz")
    assert p["capacity"] == pytest.approx(1000, rel=0.03)
    assert p["rate"] == pytest.approx(0.1, rel=0.15)
    assert p["displacement"] == pytest.approx(3, rel=0.2)


def test_piecewise_finds_the_breakpoint_and_both_slopes() -> None:
    rng = np.random.default_rng(5)
    y = 100 + 2 * T60 + 6 * np.maximum(0, T60 - 25) + rng.normal(0, 3, 60)
    p = params_of(fit_series(T60, y, families=("piecewise",), log=False), "piecewise")
    assert p["break_1"] == pytest.approx(25, abs=3)
    assert p["slope_1"] == pytest.approx(2, abs=0.4)
    assert p["slope_1"] + p["slope_change_1"] == pytest.approx(8, abs=0.4)


def test_damped_trend_recovers_its_noise_level_and_smoothing() -> None:
    rng = np.random.default_rng(6)
    level, trend, ys = 100.0, 2.0, []
    for _ in range(120):
        e = rng.normal(0, 3)
        f = level + 0.9 * trend
        ys.append(f + e)
        level, trend = f + 0.3 * e, 0.9 * trend + 0.05 * e
    fit = next(f for f in fit_series(np.arange(120.0), np.array(ys), families=("damped",), log=False))
    assert fit.sigma == pytest.approx(3, rel=0.2)
    assert fit.params["alpha"] == pytest.approx(0.3, abs=0.2)
    assert 0.8 <= fit.params["phi"] <= 0.98


def test_robust_loss_resists_outliers() -> None:
    rng = np.random.default_rng(7)
    y = 100 + 5 * T60 + rng.normal(0, 2, 60)
    y[[10, 20, 30]] += 400
    ols = params_of(fit_series(T60, y, families=("linear",), log=False), "linear")["slope"]
    rob = params_of(fit_series(T60, y, families=("linear",), log=False, loss="soft_l1"), "linear")["slope"]
    assert abs(rob - 5) < abs(ols - 5)
    assert rob == pytest.approx(5, abs=0.15)


def _coverage(make, n: int, h: int, **kw: object) -> tuple[float, float]:
    hits80, hits95 = [], []
    for i in range(200):
        y = make(np.random.default_rng(1000 + i), n + h)
        fc = forecast_series(
            y[:n], start=date(2010, 1, 1), horizon=h, backtest_origins=0, n_boot=300, seed=i, **kw
        )
        actual = y[n:]
        p10 = np.array([s.p10 for s in fc.steps])
        p90 = np.array([s.p90 for s in fc.steps])
        lo = np.array([s.p2_5 for s in fc.steps])
        hi = np.array([s.p97_5 for s in fc.steps])
        hits80.append(np.mean((actual >= p10) & (actual <= p90)))
        hits95.append(np.mean((actual >= lo) & (actual <= hi)))
    return float(np.mean(hits80)), float(np.mean(hits95))


def test_intervals_cover_their_nominal_share_for_a_linear_process() -> None:
    def make(rng: np.random.Generator, m: int) -> np.ndarray:
        return 500 + 10 * np.arange(m) + rng.normal(0, 20, m)

    c80, c95 = _coverage(make, 36, 12, families=("linear",), log=False)
    assert 0.7 <= c80 <= 0.9, c80
    assert 0.88 <= c95 <= 0.99, c95


def test_intervals_cover_their_nominal_share_for_an_exponential_process() -> None:
    def make(rng: np.random.Generator, m: int) -> np.ndarray:
        return 1e5 * np.exp(0.03 * np.arange(m) + rng.normal(0, 0.05, m))

    c80, c95 = _coverage(make, 48, 12, families=("linear", "exponential"))
    assert 0.7 <= c80 <= 0.9, c80
    assert 0.88 <= c95 <= 0.99, c95


def test_selection_picks_a_straight_line_for_a_straight_line() -> None:
    picks = []
    for seed in range(10):
        y = 100 + 3 * T60 + np.random.default_rng(seed).normal(0, 4, 60)
        fc = forecast_series(y, start=date(2010, 1, 1), horizon=12)
        assert not fc.log and fc.selection == "backtest"
        picks.append(fc.family)
    assert picks.count("linear") >= 7, picks  # 3-parameter curves can mimic a line by chance


def test_selection_takes_logs_for_multiplicative_exponential_growth() -> None:
    picks = []
    for seed in range(10):
        y = 1e6 * np.exp(0.05 * T60 + np.random.default_rng(seed).normal(0, 0.03, 60))
        fc = forecast_series(y, start=date(2010, 1, 1), horizon=12)
        assert fc.log
        assert "exponential" in fc.skipped  # on the log scale, 'linear' is exponential growth
        picks.append(fc.family)
    assert picks.count("linear") >= 7, picks


def test_a_break_of_two_orders_of_magnitude_keeps_the_series_on_its_own_scale() -> None:
    # exponential growth that the log rule takes, then a last month at a thousandth: logs missing, not growth
    y = 1e6 * np.exp(0.05 * T60 + np.random.default_rng(3).normal(0, 0.03, 60))
    assert forecast_series(y, start=date(2010, 1, 1), horizon=12).log
    y[-1] = y[-2] / 1000
    fc = forecast_series(y, start=date(2010, 1, 1), horizon=12)
    assert not fc.log
    assert "x100" in fc.log_reason and "break" in fc.log_reason
    assert not any(r.log for r in fit_series(T60, y))


def test_selection_picks_logistic_for_a_saturating_s_curve() -> None:
    rng = np.random.default_rng(13)
    y = 1000 / (1 + np.exp(-0.2 * (T60 - 25))) + rng.normal(0, 8, 60)
    fc = forecast_series(y, start=date(2010, 1, 1), horizon=12, log=False)
    assert fc.family in ("logistic", "gompertz")
    assert fc.chosen.point_forecast[-1] == pytest.approx(1000, rel=0.05)


def test_selection_picks_piecewise_for_a_clear_change_of_slope() -> None:
    rng = np.random.default_rng(14)
    y = 100 + 1 * T60 + 9 * np.maximum(0, T60 - 30) + rng.normal(0, 3, 60)
    fc = forecast_series(y, start=date(2010, 1, 1), horizon=12, log=False)
    assert fc.family == "piecewise"


def test_caller_can_override_the_family_and_selection_by_aicc() -> None:
    rng = np.random.default_rng(15)
    y = 100 + 3 * T60 + rng.normal(0, 4, 60)
    assert forecast_series(y, start=date(2010, 1, 1), horizon=6, family="damped").family == "damped"
    fc = forecast_series(y, start=date(2010, 1, 1), horizon=6, select="aicc", backtest_origins=0)
    assert fc.selection == "aicc"
    assert fc.fits[0].aicc == min(f.aicc for f in fc.fits)


def test_gaps_are_tolerated_and_filled_by_the_model() -> None:
    rng = np.random.default_rng(16)
    y = 100 + 3 * T60 + rng.normal(0, 4, 60)
    y[[5, 6, 7, 30, 59]] = np.nan
    fc = forecast_series(y, start=date(2010, 1, 1), horizon=12)
    assert all(math.isfinite(s.median) for s in fc.steps)
    assert all(math.isfinite(v) for v in fc.chosen.fitted)
    d = fc.to_dict()
    assert d["history"][5] is None
    json.dumps(d)


def test_series_from_points_makes_missing_months_nan() -> None:
    start, v = series_from_points([date(2020, 1, 5), date(2020, 1, 20), date(2020, 4, 2)], [1.0, 2.0, 5.0])
    assert start == date(2020, 1, 1)
    assert v[0] == 3.0 and np.isnan(v[1]) and np.isnan(v[2]) and v[3] == 5.0


def test_forecast_is_deterministic_for_a_seed_and_json_serialisable() -> None:
    rng = np.random.default_rng(17)
    y = 100 + 3 * T60 + rng.normal(0, 4, 60)
    a = forecast_series(y, start=date(2010, 1, 1), horizon=12, seed=3).to_dict()
    b = forecast_series(y, start=date(2010, 1, 1), horizon=12, seed=3).to_dict()
    assert json.dumps(a) == json.dumps(b)


def test_yearly_figures_come_from_paths_not_from_summed_quantiles() -> None:
    rng = np.random.default_rng(18)
    y = 1000 + 10 * T60 + rng.normal(0, 50, 60)
    fc = forecast_series(y, start=date(2010, 1, 1), horizon=24, return_paths=True, families=("linear",))
    paths = np.array(fc.paths)
    yr = next(a for a in fc.yearly if a.year == 2015)
    totals = paths[:, :12].sum(axis=1)
    assert yr.median == pytest.approx(float(np.median(totals)))
    assert yr.p90 - yr.p10 < sum(s.p90 - s.p10 for s in fc.steps[:12])  # errors partly cancel over a year
    assert yr.complete and yr.periods_forecast == 12
    hist = next(a for a in fc.yearly if a.year == 2011)
    assert hist.median == pytest.approx(float(np.sum(y[12:24])))


def test_one_sixty_month_series_gets_everything_the_timed_benchmark_times() -> None:
    """What `python -m forecasts.demand.engine.bench` and `manage.py bench_forecast` time (< 1 s,
    docs/performance.md) is the whole fit: every family, the backtest at the horizon, both interval levels and
    the yearly figures. The time itself is the benchmark's to measure, not a unit test's: a shared CI machine
    slowed this once past a second (2026-11-28) while the benchmark on the same machine met it."""
    rng = np.random.default_rng(19)
    y = 1e6 * np.exp(0.02 * T60 + rng.normal(0, 0.05, 60))
    fc = forecast_series(y, start=date(2010, 1, 1), horizon=36)
    assert {f.family for f in fc.fits} >= {"linear", "logistic", "gompertz", "damped", "piecewise"}
    assert fc.backtest_origins > 0 and fc.backtest_horizon > 0
    assert len(fc.steps) == 36
    assert all(s.p2_5 <= s.p10 <= s.median <= s.p90 <= s.p97_5 for s in fc.steps)
    assert any(a.complete for a in fc.yearly)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(min_value=1.0, max_value=1e6), min_size=8, max_size=36), st.integers(0, 10))
def test_positive_series_never_forecast_nan_and_quantiles_are_ordered(values: list[float], seed: int) -> None:
    fc = forecast_series(
        values, start=date(2020, 1, 1), horizon=12, n_boot=100, backtest_origins=4, seed=seed
    )
    for s in fc.steps:
        qs = [s.p2_5, s.p10, s.median, s.p90, s.p97_5]
        assert all(math.isfinite(q) for q in qs)
        assert qs == sorted(qs)
    for a in fc.yearly:
        assert a.p10 <= a.median <= a.p90


# --- real traces: monthly/weekly core-hours from SWF logs -------------------------------------


def swf_core_hours(path: Path, frequency: str) -> tuple[date, np.ndarray]:
    """Core-hours per period from an SWF trace (field 2 submit s since UnixStartTime, field 4 run
    time s, field 5 allocated processors); the partial first and last periods are dropped."""
    unix_start, days, core_hours = 0, [], []
    with gzip.open(path, "rt") as fh:
        for line in fh:
            if line.startswith(";"):
                if "UnixStartTime" in line:
                    unix_start = int(line.split(":")[1])
                continue
            f = line.split()
            if len(f) < 18 or float(f[3]) <= 0 or float(f[4]) <= 0:
                continue
            days.append(datetime.fromtimestamp(unix_start + float(f[1]), tz=UTC).date())
            core_hours.append(float(f[3]) * float(f[4]) / 3600)
    start, values = series_from_points(days, core_hours, frequency)
    from forecasts.demand.growth.calendar import period_date

    return period_date(start, 1, frequency), values[1:-1]


SWF_CASES = [
    ("cloudsimplusfork_KTH-SP2-1996-2.1-cln", "M"),
    ("cloudsimplusfork_KTH-SP2-1996-2.1-cln", "W"),
    ("cloudsimplus_NASA-iPSC-1993-3.1-cln", "W"),
]


@requires_shared
@pytest.mark.parametrize(("trace", "frequency"), SWF_CASES)
def test_backtest_on_real_swf_core_hours(trace: str, frequency: str) -> None:
    start, values = swf_core_hours(SHARED_DATA / "swf" / f"{trace}.swf.gz", frequency)
    fc = forecast_series(values, start=start, frequency=frequency, horizon=12)
    chosen = fc.chosen
    print(
        json.dumps(
            {
                "trace": trace,
                "frequency": frequency,
                "periods": len(values),
                "family": fc.family,
                "log": fc.log,
                "h": fc.backtest_horizon,
                "origins": fc.backtest_origins,
                "fits": {
                    f.family: [round(f.mase, 3), round(f.smape, 1), round(f.coverage80, 2)]
                    for f in fc.fits
                    if math.isfinite(f.mase)
                },
            }
        )
    )
    assert fc.backtest_origins >= 2
    assert math.isfinite(chosen.mase) and math.isfinite(chosen.smape)
    assert all(s.p10 <= s.median <= s.p90 for s in fc.steps)
