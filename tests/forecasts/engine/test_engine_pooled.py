"""The pooled (global) member of panels: it learns across series, never sees a period at or after
a backtest origin or a held-back point, and is blended into the combination (pure, no Django)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from forecasts.demand.engine import CurveMember, forecast
from forecasts.demand.engine.backtest import plan_origins, run_backtest
from forecasts.demand.engine.panel import Options, read_panel, run_panel, summarise, train_pooled
from forecasts.demand.engine.pooled import PooledMember, train
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


def test_changing_every_value_at_or_after_a_backtest_origin_leaves_that_origins_forecast_unchanged():
    rng = np.random.default_rng(2)
    panel = _noisy_panel(rng)
    h, c = 4, 3  # the origin c periods before each series' end
    changed = [np.concatenate([y[:-c], y[-c:] * rng.uniform(0.2, 5.0, c)]) for y in panel]
    target = panel[0]
    n = target.size
    plan = plan_origins(n, h)
    row = plan.origins.index(n - c)

    def backtest(p: list[np.ndarray]) -> np.ndarray:
        model = train(p, h, cutoffs=range(13))
        scale = Scale(True)
        return run_backtest(scale.forward(p[0]), [PooledMember(model, n)], scale, h, 1).forecasts["global"]

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
    model_a = train_pooled(read_panel(_panel_file(panel), "A"), opts)
    model_b = train_pooled(read_panel(_panel_file(changed), "A"), opts)
    assert model_a is not None and model_b is not None
    assert all(np.array_equal(model_a.coefs[c], model_b.coefs[c], equal_nan=True) for c in model_a.coefs)


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
