"""The forecasting engine on small synthetic series whose right answers are known (pure, no Django)."""

from __future__ import annotations

import numpy as np
import pytest

from forecasts.demand.engine import ShortHistoryError, choose_log, forecast, growth_rate_projection
from forecasts.demand.engine.backtest import MAX_ORIGINS, plan_origins
from forecasts.demand.engine.core import trimmed_mean
from forecasts.demand.engine.intervals import calibrate, sample_paths


def test_a_straight_line_is_extrapolated_as_a_straight_line():
    y = 10.0 + 2.0 * np.arange(20)
    fc = forecast(y, 5)
    assert not fc.log, fc.log_reason
    assert fc.column("median") == pytest.approx([50, 52, 54, 56, 58], rel=0.01)


def test_a_geometric_series_is_modelled_on_the_log_scale_and_continued_geometrically():
    y = 5.0 * 1.1 ** np.arange(20)
    fc = forecast(y, 5)
    assert fc.log and "log scale" in fc.log_reason
    assert fc.column("median") == pytest.approx(y[-1] * 1.1 ** np.arange(1, 6), rel=0.01)


def test_the_log_rule_keeps_constant_differences_and_non_positive_series_on_their_own_scale():
    assert choose_log(10.0 + 3.0 * np.arange(16))[0] is False
    assert choose_log(np.linspace(-1.0, 5.0, 16))[0] is False
    assert choose_log(3.0 * 1.2 ** np.arange(16))[0] is True
    with pytest.raises(ValueError, match="values <= 0"):
        choose_log(np.array([1.0, 0.0, 2.0]), log=True)


def test_a_break_of_two_orders_of_magnitude_keeps_the_series_on_its_own_scale_and_the_intervals_sane():
    """A cluster's last whole month at 212 core-hours after three years growing 3 % a month to 368,000 (a
    department gone, or a month of logs missing): on the log scale that one backtest error (x1,700) was calibrated
    into every interval and compounded along the paths, and the yearly p90 came out at 1e21 core-hours."""
    grown = 100_000 * 1.03 ** np.arange(36)
    y = np.append(grown, 212.0)
    log, reason = choose_log(y, 12)
    assert log is False and "the last value is 0.000" in reason and "break" in reason
    assert choose_log(grown, 12)[0] is True  # the same growth without the break: log
    up = choose_log(np.array([1.0, 2.0, 250.0, 260.0, 270.0, 280.0]))  # upwards too, anywhere in the series
    assert up[0] is False and "value 3 of 6 is 125 times" in up[1]
    fc = forecast(y, 12, season_length=12)
    assert not fc.log
    p90 = fc.column("p90")
    assert max(p90) < 3 * grown.max()  # no longer orders of magnitude above anything the cluster ever did


def test_the_forecast_has_the_requested_horizon_and_the_backtest_is_capped_by_the_length():
    rng = np.random.default_rng(3)
    y = 100 + np.cumsum(1 + rng.standard_normal(30))
    short = forecast(y, 3)
    assert len(short.steps) == 3 and short.backtest_horizon == 3
    long = forecast(y, 40)
    assert len(long.steps) == 40
    assert long.backtest_horizon == 30 - 8  # the first quarter of the series is always training
    assert all(len(m.median) == 40 for m in long.members if m.median)


def test_a_short_history_says_how_many_periods_exist_and_how_many_are_needed():
    with pytest.raises(ShortHistoryError) as exc:
        forecast([5.0, 6.0, 7.0], 12, unit="months")
    assert exc.value.periods == 3 and exc.value.needed == 8
    assert "3 months of history; at least 8 are needed" in str(exc.value)
    assert "Wait for 5 more." in str(exc.value)  # the engine's own message offers no remedy it cannot take
    assert "or enter a growth rate" in exc.value.message(growth_rate=True)  # a series page can take a rate


def test_a_growth_rate_projection_compounds_the_annual_rate_over_the_periods():
    out = growth_rate_projection(100.0, 12.0, 24, 12)
    assert out[11] == pytest.approx(112.0) and out[23] == pytest.approx(125.44)
    with pytest.raises(ValueError, match="above -100%"):
        growth_rate_projection(100.0, -100.0, 3, 12)


def test_each_member_is_reported_with_backtest_errors_and_weights_that_sum_to_one():
    rng = np.random.default_rng(5)
    y = np.exp(np.cumsum(0.02 + 0.05 * rng.standard_normal(48))) * 50
    fc = forecast(y, 6)
    names = {m.name for m in fc.members}
    assert {"ets", "ets_damped", "theta", "dotm", "arima", "rwd"} <= names
    assert sum(m.weight for m in fc.members) == pytest.approx(1.0)
    assert {m.name for m in fc.members if m.weight > 0} == set(fc.selected)
    for m in fc.members:
        assert m.cells > 0 and np.isfinite(m.mase) and np.isfinite(m.smape)
    assert [m.rank for m in fc.members] == list(range(1, len(fc.members) + 1))


def test_a_pinned_member_replaces_the_combination():
    y = 20 + 0.5 * np.arange(24) + np.sin(np.arange(24))
    fc = forecast(y, 4, pin="rwd")
    rwd = next(m for m in fc.members if m.name == "rwd")
    assert fc.method == "pinned: rwd" and fc.selected == ["rwd"]
    assert fc.column("median") == pytest.approx(rwd.median)
    with pytest.raises(ValueError, match="cannot pin 'prophet'"):
        forecast(y, 4, pin="prophet")


def test_conformal_intervals_from_exchangeable_errors_cover_near_the_nominal_rate():
    rng = np.random.default_rng(11)
    hits80, hits95 = [], []
    for _ in range(2000):
        errors = np.abs(rng.laplace(size=(10, 1)))  # ten backtest errors at one step
        cal = calibrate(errors)  # 80% from the ten; 95% beyond their reach, by the Laplace ratio
        new = abs(rng.laplace())
        hits80.append(new <= cal.widths[0.80][0])
        hits95.append(new <= cal.widths[0.95][0])
    assert 0.77 <= np.mean(hits80) <= 0.83
    assert 0.92 <= np.mean(hits95) <= 0.975


def test_widths_past_the_calibrated_steps_grow_as_a_random_walk_with_an_estimated_drift():
    """w_j = w_last sqrt(g(j) / g(j_last)), g(j) = j (1 + j / T): the drift's error, estimated from T values,
    adds to the walk's; with T unknown, g(j) = j (a random walk)."""
    errors = np.full((6, 2), np.nan)
    errors[:, 0] = [1, 2, 3, 4, 5, 6]  # six errors at step 1, two at step 2: only step 1 is calibrated
    errors[:2, 1] = [1, 2]
    w1 = calibrate(errors).widths[0.80][0]
    for fitted in (None, 8, 60):
        half = calibrate(errors, fitted=fitted).half_widths(6)[0.80]
        j = np.arange(1, 7, dtype=float)
        g = j if fitted is None else j * (1 + j / fitted)
        assert half == pytest.approx(w1 * np.sqrt(g / g[0]))
    short, long = calibrate(errors, fitted=8).half_widths(6)[0.80], calibrate(errors, fitted=60).half_widths(6)
    assert short[5] > long[0.80][5] > calibrate(errors).half_widths(6)[0.80][5]  # fewer values, wider far out


def test_pooled_errors_are_scaled_back_to_step_one_by_the_same_growth():
    errors = np.full((3, 3), np.nan)  # three origins: 3, 2 and 1 errors at steps 1-3, no step has four
    g = np.array([1 * (1 + 1 / 8), 2 * (1 + 2 / 8), 3 * (1 + 3 / 8)])
    for i, j in [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)]:
        errors[i, j] = np.sqrt(g[j] / g[0])  # one unit at step 1, grown by the drift rule
    cal = calibrate(errors, fitted=8)
    assert cal.steps_calibrated == 1 and cal.widths[0.80][0] == pytest.approx(1.0)
    assert cal.half_widths(3)[0.80] == pytest.approx(np.sqrt(g / g[0]))


def test_the_combined_forecast_of_simulated_random_walks_covers_near_the_nominal_rate():
    rng = np.random.default_rng(7)
    inside = []
    for _ in range(40):
        y = 200 + np.cumsum(0.5 + rng.standard_normal(46))
        fc = forecast(y[:40], 6, members=("rwd", "ets", "theta"))
        lo, hi = np.array(fc.column("p10")), np.array(fc.column("p90"))
        inside.extend((y[40:] >= lo) & (y[40:] <= hi))
    assert 0.68 <= np.mean(inside) <= 0.92


def test_sample_paths_keep_the_calibrated_quantiles_and_the_correlation_between_steps():
    rng = np.random.default_rng(1)
    center = np.linspace(1.0, 2.0, 6)
    half = {0.80: np.linspace(0.1, 0.6, 6), 0.95: np.linspace(0.2, 1.0, 6)}
    paths = sample_paths(center, half, 20000, rng)
    q = np.quantile(paths, [0.025, 0.10, 0.5, 0.90, 0.975], axis=0)
    assert q[1] == pytest.approx(center - half[0.80], abs=0.02)
    assert q[3] == pytest.approx(center + half[0.80], abs=0.02)
    assert q[0] == pytest.approx(center - half[0.95], abs=0.03)
    assert np.corrcoef(paths[:, 4], paths[:, 5])[0, 1] > 0.8


def test_forecast_paths_are_returned_on_the_original_scale_when_asked():
    y = 5.0 * 1.05 ** np.arange(30) * (1 + 0.01 * np.sin(np.arange(30)))
    fc = forecast(y, 4, n_paths=1000, seed=2)
    assert fc.paths is not None and np.array(fc.paths).shape == (1000, 4)
    assert np.median(np.array(fc.paths), axis=0) == pytest.approx(fc.column("median"), rel=0.02)


def test_the_backtest_plan_keeps_a_quarter_of_the_series_for_training_and_the_last_origins():
    plan = plan_origins(20, 6, max_origins=10)
    assert plan.min_train == 5 and plan.origins == tuple(range(10, 20)) and plan.horizon == 6
    assert plan_origins(40, 6).origins == tuple(range(40 - MAX_ORIGINS, 40))  # at most MAX_ORIGINS origins
    assert plan_origins(6, 3).horizon == 1


def test_intervals_past_the_backtest_horizon_widen_like_a_random_walk_and_never_shrink():
    errors = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, np.nan]])
    half = calibrate(errors).half_widths(8)[0.80]
    assert half[:2] == pytest.approx([1.0, 2.0])
    assert half[7] == pytest.approx(2.0 * np.sqrt(8 / 2))
    assert np.all(np.diff(half) >= 0)


def test_a_growth_curve_plugs_in_as_a_member_and_is_backtested_and_weighted_like_the_others():
    from forecasts.demand.engine import CurveMember
    from forecasts.demand.engine.curves import curve_members

    t = np.arange(40.0)
    y = 1000 / (1 + np.exp(-(t - 15) / 4)) + 5  # an S-curve saturating near 1005
    fc = forecast(y, 12, extra_members=curve_members(capacity=1005.0))
    logistic = next(m for m in fc.members if m.name == "logistic")
    assert logistic.cells > 0 and np.isfinite(logistic.mase)
    assert max(logistic.median) <= 1005.0 * 1.01  # saturates at the given capacity, not beyond
    flat = CurveMember("last_value", lambda hist, h: np.full(h, hist[-1]))
    pinned = forecast(y, 3, extra_members=[flat], pin="last_value")
    assert pinned.column("median") == pytest.approx([y[-1]] * 3)


def test_a_positive_series_whose_scale_the_rule_chose_also_gets_every_member_on_the_other_scale():
    rng = np.random.default_rng(5)
    y = np.exp(np.cumsum(0.02 + 0.05 * rng.standard_normal(30))) * 50
    fc = forecast(y, 4)
    suffix = "_orig" if fc.log else "_log"
    by_name = {m.name: m for m in fc.members}
    for base in ("ets", "ets_damped", "theta", "dotm", "rwd"):
        assert base + suffix in by_name and by_name[base + suffix].log is (not fc.log)
        assert by_name[base].log is fc.log
    assert "arima" + suffix not in by_name  # AutoARIMA is not combined, so it is not doubled either
    assert sum(m.weight for m in fc.members) == pytest.approx(1.0)
    forced = forecast(y, 4, log=fc.log)  # a scale the caller forces is kept to
    assert not any(m.name.endswith(("_log", "_orig")) for m in forced.members)
    negative = forecast(np.linspace(-1.0, 5.0, 20) + 0.1 * np.sin(np.arange(20.0)), 4)
    assert not any(m.name.endswith(("_log", "_orig")) for m in negative.members)


def test_linear_fits_to_an_exact_geometric_series_are_trimmed_out_of_the_combination():
    y = 5.0 * 1.1 ** np.arange(20)
    fc = forecast(y, 5)
    assert fc.log
    orig = [m for m in fc.members if m.name.endswith("_orig")]
    assert orig and all(m.weight == 0 for m in orig)  # backtest MASE over 10x the best
    # the best (a log-scale member) is exact here: 10x of MASE 0 is said in words
    assert all(m.note.startswith("left out: ") and "backtest forecasts were exact (MASE 0)" in m.note for m in orig)
    assert all(not n.endswith("_orig") for n in fc.selected)


def test_the_default_combination_is_the_per_step_median_of_the_selected_members():
    rng = np.random.default_rng(2)
    y = np.cumsum(rng.standard_normal(30)) - 3.0  # values <= 0: one scale, the original
    fc = forecast(y, 4)
    assert not fc.log and fc.method.startswith("median of")
    medians = np.array([m.median for m in fc.members if m.name in fc.selected])
    assert fc.column("median") == pytest.approx(np.median(medians, axis=0))
    mean = forecast(y, 4, combine="mean")
    assert mean.column("median") == pytest.approx(np.mean(medians, axis=0))
    trimmed = forecast(y, 4, combine="trimmed")  # floor(0.2 n) of the n members dropped from each end
    cut = int(0.2 * len(medians))
    assert trimmed.method.startswith("trimmed mean of")
    assert trimmed.column("median") == pytest.approx(np.sort(medians, axis=0)[cut: len(medians) - cut].mean(axis=0))
    with pytest.raises(ValueError, match="combine must be one of mean, median, trimmed"):
        forecast(y, 4, combine="mode")


def test_the_trimmed_mean_drops_a_fifth_from_each_end_skips_gaps_and_trims_nothing_below_five():
    ten = np.array([[v, 2 * v] for v in (1.0, 2, 3, 4, 5, 6, 7, 8, 9, 1000)])  # 10 members, 2 cells
    assert trimmed_mean(ten) == pytest.approx([5.5, 11.0])  # 1, 2 and 9, 1000 dropped: mean of 3..8
    four = np.array([1.0, 2.0, 3.0, 100.0])
    assert trimmed_mean(four) == pytest.approx(26.5)  # floor(0.8) = 0 dropped: the plain mean
    gaps = np.array([[1.0], [np.nan], [2.0], [3.0], [4.0], [50.0], [np.nan]])  # 5 finite: 1 dropped from each end
    assert trimmed_mean(gaps) == pytest.approx([3.0])


@pytest.mark.parametrize(("horizon", "season"), [(6, 1), (8, 4)])
def test_every_step_of_the_benchmark_horizons_is_calibrated_on_its_own_backtest_errors(horizon: int,
                                                                                      season: int) -> None:
    """Per-step conformal intervals need MIN_ERRORS origins reaching each step: K - h + 1 >= 4 (the
    M3 yearly h = 6 and quarterly h = 8); fewer origins would extrapolate the last steps instead."""
    from forecasts.demand.engine.intervals import MIN_ERRORS

    assert MAX_ORIGINS - horizon + 1 >= MIN_ERRORS
    rng = np.random.default_rng(5)
    t = np.arange(48)
    y = 100 * np.exp(0.02 * t) * (1 + 0.05 * np.sin(2 * np.pi * t / 4) * (season > 1)) * np.exp(
        rng.normal(0, 0.03, t.size))
    fc = forecast(y, horizon, season_length=season, members=("rwd", "ets", "theta"))
    assert fc.interval_steps == horizon


def test_autoces_is_an_optional_member_that_continues_a_seasonal_pattern_and_keeps_its_form():
    from forecasts.demand.engine.members import ALL_MEMBERS, STAT_MEMBERS, CesMember
    from forecasts.demand.engine.scale import Scale

    assert "ces" in ALL_MEMBERS and "ces" not in STAT_MEMBERS  # asked for by name only
    pattern = np.array([10.0, -5.0, -10.0, 5.0])
    y = 100.0 + np.tile(pattern, 8) + 0.1 * np.sin(np.arange(32.0))
    ces = CesMember("ces", season_length=4)
    out = ces.forecast(y, 8, Scale(False))
    assert out == pytest.approx(100.0 + np.tile(pattern, 2), abs=1.5)
    assert ces.form in ("S", "P", "F")  # a seasonal form, chosen on the whole series ...
    assert ces.for_backtest().form == ces.form  # ... and kept at the backtest origins
    flat = CesMember("ces").forecast(np.full(12, 7.0), 3, Scale(False))
    assert flat == pytest.approx([7.0, 7.0, 7.0])
    fc = forecast(5.0 * 1.1 ** np.arange(20) * (1 + 0.01 * np.sin(np.arange(20.0))), 4, members=("theta", "ces"))
    names = {m.name for m in fc.members}
    assert {"ces", "ces_orig" if fc.log else "ces_log"} <= names
    assert "ces" not in {m.name for m in forecast(y, 4).members}


def test_a_series_that_never_went_below_zero_is_not_forecast_below_it():
    rng = np.random.default_rng(3)
    falling = 200.0 - 12.0 * np.arange(16) + rng.normal(0, 6, 16)  # on its way through zero
    fc = forecast(falling, 8, log=False, n_paths=200, seed=1)
    lows = [s.p2_5 for s in fc.steps]
    assert min(lows) == 0.0 and all(s.median >= 0 and s.p10 >= 0 for s in fc.steps)
    assert np.min(fc.paths) >= 0.0
    assert all(min(m.p2_5) >= 0 for m in fc.members if m.p2_5)
    # a series that has been negative keeps its negative quantiles
    shifted = forecast(falling - 250.0, 8, log=False)
    assert min(s.p2_5 for s in shifted.steps) < -250.0


class _Drifted:
    """A test member: the last value plus ``shift`` times the mean step (``shift`` 1 is the random walk with drift)."""

    def __init__(self, name: str, shift: float) -> None:
        self.name, self.shift = name, shift

    def forecast(self, z, h, scale):
        step = (z[-1] - z[0]) / (z.size - 1)
        return z[-1] + self.shift * step * np.arange(1, h + 1)

    def for_backtest(self):
        return self


def test_the_one_step_sign_test_is_the_binomial_tail_of_the_origins_where_a_member_was_worse():
    from types import SimpleNamespace

    from forecasts.demand.engine.backtest import one_step_sign_test

    actual = np.zeros((12, 3))
    best = np.ones((12, 3))
    other = np.full((12, 3), 2.0)
    other[0, 0], other[1, 0] = 0.5, 1.0  # better once, a tie once (left out of the count)
    bt = SimpleNamespace(actual=actual, forecasts={"best": best, "other": other})
    t = one_step_sign_test(bt, "other", "best")  # type: ignore[arg-type]
    assert (t.worse, t.better) == (10, 1) and t.p == pytest.approx(12 / 2048)  # P(X >= 10), X ~ Bin(11, 1/2)
    assert one_step_sign_test(bt, "best", "other").p == pytest.approx(2047 / 2048)  # type: ignore[arg-type]


def test_a_member_worse_one_step_ahead_at_almost_every_origin_is_left_out_with_its_reason():
    rng = np.random.default_rng(2)
    y = np.cumsum(1.0 + 0.15 * rng.standard_normal(40)) + 100  # a steady trend: the drift is well known
    fc = forecast(y, 4, members=("rwd",), extra_members=[_Drifted("half_drift", 0.5), _Drifted("drift_x1_1", 1.1)],
                  log=False)
    half = next(m for m in fc.members if m.name == "half_drift")
    assert "half_drift" not in fc.selected and half.weight == 0
    assert half.note.startswith("left out: its one-step backtest forecasts were worse than")
    assert "sign test" in fc.method and len(fc.selected) == 2
    assert half.mase < 10 * min(m.mase for m in fc.members)  # within the 10x trim: the sign test left it out


def test_below_seven_backtest_origins_the_sign_test_leaves_no_member_out():
    y = 100.0 + np.arange(10.0)  # 5 origins: even "worse at all 5" has p = 1/32 > 0.01
    fc = forecast(y, 3, members=("rwd",), extra_members=[_Drifted("half_drift", 0.5)], log=False)
    assert fc.backtest_origins < 7
    assert not any(m.note.startswith("left out: its one-step") for m in fc.members)


def test_the_median_drift_random_walk_is_an_optional_member_that_one_jump_does_not_steer():
    from forecasts.demand.engine.members import ALL_MEMBERS, STAT_MEMBERS, MedianDriftMember
    from forecasts.demand.engine.scale import Scale

    assert "rwdm" in ALL_MEMBERS and "rwdm" not in STAT_MEMBERS  # asked for by name only
    y = np.concatenate([np.arange(10.0), np.arange(10.0, 20.0) + 50.0])  # steps of 1 and one jump of 51
    rwdm = MedianDriftMember()
    assert rwdm.forecast(y, 3, Scale(False)) == pytest.approx([70.0, 71.0, 72.0])  # the median step, 1
    rwd = forecast(y, 3, members=("rwd",), pin="rwd", log=False)
    assert rwd.column("median") == pytest.approx(69.0 + (69.0 / 19.0) * np.arange(1, 4))  # the mean step, 69 / 19
    assert np.all(np.isnan(rwdm.forecast(np.array([5.0]), 2, Scale(False))))  # no difference to take
    fc = forecast(5.0 * 1.1 ** np.arange(20) * (1 + 0.01 * np.sin(np.arange(20.0))), 4, members=("theta", "rwdm"))
    names = {m.name for m in fc.members}
    assert {"rwdm", "rwdm_orig" if fc.log else "rwdm_log"} <= names  # with its other-scale twin, like the others
    assert "rwdm" not in {m.name for m in forecast(y, 4).members}
