"""The pooled (global) member of panels: it learns across series, never sees a period at or after
a backtest origin or a held-back point, and is blended into the combination (pure, no Django)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from forecasts.demand.engine import CurveMember, forecast, gbm
from forecasts.demand.engine.backtest import MAX_ORIGINS, plan_origins, run_backtest
from forecasts.demand.engine.panel import (
    DEFAULT_WEIGHTS,
    FULL_WEIGHT_SERIES,
    LEARNERS,
    POOLED_FREQUENCIES,
    SMALL_PANEL_WEIGHT,
    Options,
    PanelSeries,
    anchor_used,
    pooled_forecasts,
    read_panel,
    run_panel,
    summarise,
    train_pooled,
    weight_used,
    with_weight,
)
from forecasts.demand.engine.pooled import PooledMember, build_windows, forecast_table, train
from forecasts.demand.engine.scale import Scale


def _geometric_panel(rng: np.random.Generator, k: int = 30) -> list[np.ndarray]:
    rates = rng.uniform(-0.05, 0.2, k)
    lengths = rng.integers(10, 30, k)
    return [rng.uniform(10, 1000) * np.exp(g * np.arange(n)) for g, n in zip(rates, lengths, strict=True)]


def _noisy_panel(rng: np.random.Generator, k: int = 12, n: int = 24) -> list[np.ndarray]:
    return [100 * np.exp(np.cumsum(0.05 + 0.04 * rng.standard_normal(n))) for _ in range(k)]


def test_on_a_panel_of_exact_geometric_series_the_pooled_model_recovers_each_series_growth():
    model = train(_geometric_panel(np.random.default_rng(0)), horizon=6, cutoffs=range(4))
    for rate in (0.0, 0.07, 0.15):
        y = 50 * np.exp(rate * np.arange(14))
        expected = 50 * np.exp(rate * np.arange(14, 20))
        assert model.predict(y, 6) == pytest.approx(expected, rel=0.01)
        # cutoff 3: the model trained without anyone's last 3 periods, from a history 3 shorter
        assert model.predict(y[:11], 3, cutoff=3) == pytest.approx(y[11:14], rel=0.01)


def test_a_series_with_a_value_at_or_below_zero_gets_no_pooled_forecast_and_adds_no_windows():
    panel = _geometric_panel(np.random.default_rng(1))
    model = train(panel, horizon=3)
    with_bad = train([*panel, np.array([5.0, -1.0, 3.0, 4.0, 5.0, 6.0, 7.0])], horizon=3)
    assert np.array_equal(model.coefs[0], with_bad.coefs[0])
    assert np.isnan(model.predict(np.array([1.0, 2.0, 0.0, 4.0, 5.0]), 3)).all()


@pytest.mark.parametrize("learner", [train, gbm.train_gbm], ids=["linear", "lightgbm"])
def test_changing_every_value_at_or_after_a_backtest_origin_leaves_that_origins_forecast_unchanged(learner):
    rng = np.random.default_rng(2)
    panel = _noisy_panel(rng)
    h, c = 4, 3  # the origin c periods before each series' end
    changed = [np.concatenate([y[:-c], y[-c:] * rng.uniform(0.2, 5.0, c)]) for y in panel]
    target = panel[0]
    n = target.size
    plan = plan_origins(n, h)
    row = plan.origins.index(n - c)

    def backtest(p: list[np.ndarray]) -> np.ndarray:
        model = learner(p, h, cutoffs=range(13))
        scale = Scale(True)
        return run_backtest(scale.forward(p[0]), [PooledMember.of(model, p[0])], scale, h, 1).forecasts["global"]

    before, after = backtest(panel), backtest(changed)
    assert np.isfinite(before[row, :c]).all() and np.isfinite(before[:row]).all()
    assert np.array_equal(before[: row + 1], after[: row + 1], equal_nan=True)  # this origin and every earlier one
    assert not np.allclose(before[row + 1 :], after[row + 1 :], equal_nan=True)  # later ones see the change


def _panel_file(series: list[np.ndarray]) -> io.StringIO:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["series_id", "timestamp", "value"])
    for k, y in enumerate(series):
        for i, v in enumerate(y):
            w.writerow([f"S{k}", str(1980 + i), repr(float(v))])
    buf.seek(0)
    return buf


def test_held_back_points_never_reach_the_pooled_model_or_any_forecast():
    rng = np.random.default_rng(3)
    panel = _noisy_panel(rng, k=8, n=22)
    changed = [np.concatenate([y[:-6], y[-6:] * 3.0]) for y in panel]
    opts = Options("A", 6, holdout=6)
    a = run_panel(read_panel(_panel_file(panel), "A"), opts, jobs=1)
    b = run_panel(read_panel(_panel_file(changed), "A"), opts, jobs=1)
    med_a = [r["median"] for o in a for r in o.rows]
    med_b = [r["median"] for o in b for r in o.rows]
    assert med_a == med_b
    for learner in LEARNERS:
        o = Options("A", 6, holdout=6, global_learner=learner)
        table_a = pooled_forecasts(read_panel(_panel_file(panel), "A"), o)
        table_b = pooled_forecasts(read_panel(_panel_file(changed), "A"), o)
        for row_a, row_b in zip(table_a, table_b, strict=True):
            assert row_a is not None and row_b is not None
            assert row_a.keys() == row_b.keys() == set(range(MAX_ORIGINS + 1))
            assert all(np.array_equal(row_a[c], row_b[c], equal_nan=True) for c in row_a)


def test_a_panel_blends_the_pooled_member_in_and_scores_it_and_weight_zero_leaves_it_out():
    rng = np.random.default_rng(4)
    series = read_panel(_panel_file(_noisy_panel(rng, k=6, n=24)), "A")
    opts = Options("A", 6, holdout=6)
    summary = summarise(run_panel(series, opts, jobs=1), opts, 0.0, 1)
    assert "global" in summary["scores"] and summary["scores"]["global"]["series"] == 6
    off = Options("A", 6, holdout=6, global_weight=0.0)
    assert train_pooled(series, off) is None
    assert "global" not in summarise(run_panel(series, off, jobs=1), off, 0.0, 1)["scores"]


def test_a_blended_member_takes_its_fixed_share_of_the_median_and_of_the_backtest():
    y = 10.0 + 2.0 * np.arange(20)  # every local member continues the line: 50, 52, ...
    flat = CurveMember("flat", lambda hist, h: np.full(h, hist[-1]))
    plain = forecast(y, 3, log=False)
    fc = forecast(y, 3, log=False, extra_members=[flat], blend=("flat", 0.2))
    local = np.array(plain.column("median"))
    assert fc.column("median") == pytest.approx(0.8 * local + 0.2 * y[-1], rel=1e-6)
    weights = {m.name: m.weight for m in fc.members}
    assert weights["flat"] == pytest.approx(0.2) and sum(weights.values()) == pytest.approx(1.0)
    assert "flat" in fc.selected and "blended" in fc.method
    assert fc.backtest_mase > plain.backtest_mase  # its errors enter the calibration
    with pytest.raises(ValueError, match="blend weight"):
        forecast(y, 3, extra_members=[flat], blend=("flat", 1.5))


def test_the_tree_model_learns_growth_across_a_panel_and_gives_the_same_numbers_every_run():
    panel = _noisy_panel(np.random.default_rng(5), k=40, n=24)  # log growth 5% +- 4% a period
    a = forecast_table(gbm.train_gbm(panel, 4, cutoffs=range(5)), panel)
    b = forecast_table(gbm.train_gbm(panel, 4, cutoffs=range(5)), panel)
    # deterministic: the same numbers every run
    assert all(np.array_equal(ra[c], rb[c], equal_nan=True) for ra, rb in zip(a, b, strict=True) for c in ra)
    growth = np.array([np.log(row[0][3] / y[-1]) / 4 for row, y in zip(a, panel, strict=True)])
    assert np.median(growth) == pytest.approx(0.05, abs=0.015)  # each series' forecast keeps growing
    assert all(row[2].size == 4 and np.isnan(row[2][2:]).all() for row in a)  # cutoff 2 forecasts 2 steps


def test_a_panel_says_which_learner_it_used_and_falls_back_to_the_linear_one_without_lightgbm(monkeypatch):
    series = read_panel(_panel_file(_noisy_panel(np.random.default_rng(6), k=6, n=24)), "A")
    opts = Options("A", 6, holdout=6)
    summary = summarise(run_panel(series, opts, jobs=1), opts, 0.0, 1)
    assert summary["global_learner"] == "lightgbm" and "global_note" not in summary
    monkeypatch.setattr(gbm, "available", lambda: "lightgbm cannot be imported (libgomp.so.1: cannot open)")
    assert isinstance(train_pooled(series, opts), type(train([np.ones(3)], 1)))
    summary = summarise(run_panel(series, opts, jobs=1), opts, 0.0, 1)
    assert summary["global_learner"] == "linear" and "libgomp" in summary["global_note"]
    assert "global" in summary["scores"]


def test_pooled_forecasts_shared_out_between_processes_equal_the_serial_ones():
    series = read_panel(_panel_file(_noisy_panel(np.random.default_rng(7), k=10, n=20)), "A")
    opts = Options("A", 6, holdout=6)
    serial = pooled_forecasts(series, opts)
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context
    with ProcessPoolExecutor(max_workers=2, mp_context=get_context("fork")) as pool:
        shared = pooled_forecasts(series, opts, pool, 2)
    for a, b in zip(serial, shared, strict=True):
        assert a is not None and b is not None and a.keys() == b.keys()
        assert all(np.array_equal(a[c], b[c], equal_nan=True) for c in a)


def test_the_trees_see_each_window_and_its_level_the_mean_of_its_log_values():
    y = np.array([1.0, np.e, np.e**2, np.e**3, np.e**4, np.e**5])  # log values 0..5
    windows = build_windows([y], lags=4, horizon=1)
    model = gbm.PooledGBM(4, 1)
    inputs = model.design(windows.feats, windows.levels)
    # the last training window holds log values 1..4: minus its mean 2.5, then the mean itself
    assert inputs[-1] == pytest.approx([-1.5, -0.5, 0.5, 1.5, 2.5])
    assert windows.targets[-1, 0] == pytest.approx(5 - 2.5)
    assert train([y], 1).design(windows.feats, windows.levels) is windows.feats  # the linear model: the window only


def _sized_panel(rng: np.random.Generator, k: int = 40, n: int = 24) -> list[np.ndarray]:
    """Half the series small (about 10) and rising 4% a period, half large (about 10,000) and
    falling 4%, under noise of 15% a period: a window alone hardly shows which way it goes."""
    out = []
    for i in range(k):
        small = i % 2 == 0
        base, drift = (10.0, 0.04) if small else (10_000.0, -0.04)
        out.append(base * rng.uniform(0.7, 1.4) * np.exp(drift * np.arange(n) + 0.15 * rng.standard_normal(n)))
    return out


def test_the_level_lets_the_trees_tell_small_rising_series_from_large_falling_ones():
    panel = _sized_panel(np.random.default_rng(8))
    model = gbm.train_gbm(panel, 4)
    flat = np.ones(12)  # the same flat history at two sizes
    small, large = model_forecast(model, 10.0 * flat), model_forecast(model, 10_000.0 * flat)
    assert small[-1] > 10.0 * 1.05 and large[-1] < 10_000.0 / 1.05  # each goes its own group's way


def model_forecast(model: gbm.PooledGBM, y: np.ndarray) -> np.ndarray:
    return forecast_table(model, [y])[0][0]


def test_the_default_weight_is_a_half_with_the_trees_and_a_fifth_with_the_linear_model_or_a_small_panel(monkeypatch):
    assert weight_used(Options("A", 6)) == DEFAULT_WEIGHTS["lightgbm"] == 0.5
    assert weight_used(Options("A", 6, global_learner="linear")) == DEFAULT_WEIGHTS["linear"] == 0.2
    assert weight_used(Options("A", 6, global_weight=0.3)) == 0.3
    # a model learned from fewer than 100 series is weaker: a fifth; an asked-for weight is kept
    assert weight_used(Options("A", 6), learned_from=FULL_WEIGHT_SERIES) == 0.5
    assert weight_used(Options("A", 6), learned_from=FULL_WEIGHT_SERIES - 1) == SMALL_PANEL_WEIGHT == 0.2
    assert weight_used(Options("A", 6, global_weight=0.4), learned_from=5) == 0.4
    series = read_panel(_panel_file(_noisy_panel(np.random.default_rng(9), k=6, n=24)), "A")
    opts = Options("A", 6, holdout=6)
    assert with_weight(series, opts).global_weight == 0.2
    summary = summarise(run_panel(series, opts, jobs=1), opts, 0.0, 1)
    assert summary["global_weight"] == 0.2
    big = [PanelSeries(f"S{i}", s.style, s.first_period, s.values) for i, s in enumerate(series * 17)]  # 102 series
    assert with_weight(big, opts).global_weight == 0.5
    with_zero = [*big[:98], PanelSeries("neg", big[0].style, 0, np.array([1.0, -1.0, 2, 3, 4, 5, 6, 7, 8, 9]))]
    assert with_weight(with_zero, opts).global_weight == 0.2  # 98 series the model can learn from
    monkeypatch.setattr(gbm, "available", lambda: "lightgbm cannot be imported (libgomp.so.1: cannot open)")
    assert weight_used(opts) == 0.2  # the fallback learner keeps its own default


def test_monthly_and_half_yearly_panels_leave_the_pooled_member_out_unless_asked():
    """The pooled member was chosen and checked on yearly and quarterly panels; on the monthly ones it made the
    combination worse (docs/forecasting.md), so other frequencies get none by default."""
    assert POOLED_FREQUENCIES == ("A", "Q")
    assert weight_used(Options("Q", 8)) == 0.5
    for frequency in ("M", "S"):
        assert weight_used(Options(frequency, 12)) == 0.0
        assert weight_used(Options(frequency, 12), learned_from=FULL_WEIGHT_SERIES) == 0.0
        assert weight_used(Options(frequency, 12, global_weight=0.3)) == 0.3  # asked for: kept
    rng = np.random.default_rng(12)
    rows = "series_id,timestamp,value\n" + "".join(
        f"S{k},{2000 + i // 12}-{i % 12 + 1:02d},{100 + k + i + rng.normal(0, 2):.2f}\n"
        for k in range(4) for i in range(40))
    series = read_panel(io.StringIO(rows), "M")
    opts = Options("M", 6, holdout=6)
    assert with_weight(series, opts).global_weight == 0.0
    assert pooled_forecasts(series, opts) == [None] * len(series)
    summary = summarise(run_panel(series, opts, jobs=1), opts, 0.0, 1)
    assert "global" not in summary["scores"] and "global_weight" not in summary
    assert summary["global_note"].startswith("no pooled global member: by default only yearly and quarterly")
    asked = Options("M", 6, holdout=6, global_weight=0.3)
    assert "global" in summarise(run_panel(series, asked, jobs=1), asked, 0.0, 1)["scores"]


def test_from_the_last_value_the_trees_targets_are_the_changes_since_the_window_ended():
    y = np.exp(np.arange(6.0))  # log values 0..5
    level = build_windows([y], lags=4, horizon=2)
    last = build_windows([y], lags=4, horizon=2, anchor="last")
    assert np.array_equal(last.feats, level.feats) and np.array_equal(last.levels, level.levels)  # same inputs
    # the last training window holds log values 1..4 (level 2.5): its step-1 target is 5 - 4, not 5 - 2.5
    assert last.targets[-1, 0] == pytest.approx(1.0) and level.targets[-1, 0] == pytest.approx(2.5)
    assert last.anchors[-1] == pytest.approx(4.0) and level.anchors[-1] == pytest.approx(2.5)
    with pytest.raises(ValueError, match="anchor must be one of"):
        build_windows([y], lags=4, horizon=2, anchor="first")


def test_trees_anchored_at_the_last_value_continue_a_random_walk_from_where_it_ended():
    rng = np.random.default_rng(9)
    panel = [100 * np.exp(np.cumsum(0.1 * rng.standard_normal(30))) for _ in range(60)]  # no drift
    model = gbm.train_gbm(panel, 3, anchor="last")
    jumped = np.concatenate([np.full(11, 100.0), [200.0]])  # flat, then a step up at the last value
    assert model_forecast(model, jumped) == pytest.approx(np.full(3, 200.0), rel=0.1)
    assert model.anchor == "last"


def test_the_trees_anchor_is_the_last_value_for_yearly_panels_and_the_level_for_seasonal_ones():
    assert anchor_used(Options("A", 6)) == "last"
    assert [anchor_used(Options(f, 4)) for f in ("S", "Q", "M")] == ["level"] * 3
    assert anchor_used(Options("A", 6, global_anchor="level")) == "level"
    assert anchor_used(Options("Q", 4, global_anchor="last")) == "last"
    series = read_panel(_panel_file(_noisy_panel(np.random.default_rng(10), k=6, n=24)), "A")
    model = train_pooled(series, Options("A", 6, holdout=6))
    assert isinstance(model, gbm.PooledGBM) and model.anchor == "last"
    assert train_pooled(series, Options("A", 6, holdout=6, global_learner="linear")).anchor == "level"
    opts = Options("A", 6, holdout=6)
    assert summarise(run_panel(series, opts, jobs=1), opts, 0.0, 1)["global_anchor"] == "last"
